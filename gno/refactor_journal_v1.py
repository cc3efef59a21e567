"""Journals this gno did not write: an older gno's (before format 2) named each file by its
whole path, and ``upgraded`` turns one into the current shape, so a crash an older gno left
is still recovered after an upgrade (``gno.refactor_journal.recover``). ``usable`` says
whether a journal has the shape recovery follows: a newer gno's, or a damaged one, is set
aside rather than half-followed (or failing every sync with an internal error)."""

from __future__ import annotations

import os
from typing import Any, TypeGuard


def upgraded(record: dict[str, Any], current: int) -> dict[str, Any]:
    """A journal an older gno left named whole paths: each file's own folder stands in for
    its root there (reached by path, as that gno did)."""
    if record.get("format") == current:
        return record

    def spot(path: str, **more: Any) -> dict[str, Any]:
        return {"root": os.path.dirname(path), "rel": os.path.basename(path), **more}

    def name(path: str | None) -> str | None:
        return os.path.basename(path) if path else None

    entries = [
        spot(e["path"], temp=name(e["temp"]), backup=name(e["backup"]), create=e["create"],
             newHash=e["newHash"])
        for e in record["entries"]
    ]  # fmt: skip
    remove = record.get("remove")
    return record | {
        "entries": entries,
        "remove": spot(remove, backup=name(record.get("removeBackup"))) if remove else None,
        "madeDirs": [spot(p) for p in record.get("madeDirs", [])],
    }


def usable(record: Any) -> TypeGuard[dict[str, Any]]:
    """``record`` (upgraded) names every file the way recovery reads it."""
    if not isinstance(record, dict):
        return False

    def spot(value: Any, *keys: str) -> bool:
        return isinstance(value, dict) and all(
            isinstance(value.get(k), str) for k in ("root", "rel", *keys)
        )

    entries, remove, made = record.get("entries"), record.get("remove"), record.get("madeDirs", [])
    return (
        isinstance(record.get("phase"), str)
        and isinstance(entries, list)
        and all(
            spot(e, "temp", "newHash")
            and isinstance(e.get("create"), bool)
            and (e.get("backup") is None or isinstance(e["backup"], str))
            for e in entries
        )
        and (remove is None or spot(remove, "backup"))
        and isinstance(made, list)
        and all(spot(d) for d in made)
    )
