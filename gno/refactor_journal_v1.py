"""Journals an older gno left behind (before format 2): they named each file by its whole
path. ``upgraded`` turns one into the current shape, so a crash an older gno left is still
recovered after an upgrade (``gno.refactor_journal.recover``)."""

from __future__ import annotations

import os
from typing import Any


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
