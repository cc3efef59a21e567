"""``<models>/manifest.json``: what ``gno models pull`` put in the cache, and from where.

    {"version": 1, "models": [{"uri", "roles", "path", "size", "sha256", "etag",
                               "revision", "pulledAt"}, ...]}

One entry per cached file (``path`` is unique); ``roles`` lists the roles it was
pulled or found for, as one file may serve several (``expand`` and ``gen``). The
file is a record, never the source of truth: the cache folder is. Every update is a
read-modify-write under the manifest lock, written to a temporary file and renamed,
and drops entries whose file is gone; an unreadable manifest counts as empty.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from gno.models.locks import cache_lock

MANIFEST = "manifest.json"
VERSION = 1


def manifest_path(models_dir: Path) -> Path:
    return models_dir / MANIFEST


def read_manifest(models_dir: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(manifest_path(models_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    models = data.get("models") if isinstance(data, dict) else None
    return [m for m in models or [] if isinstance(m, dict) and isinstance(m.get("path"), str)]


def record_pull(models_dir: Path, entry: dict[str, Any]) -> None:
    """Add or replace the entry of ``entry["path"]`` (its roles merged with the old ones)."""

    def change(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        old = next((e for e in entries if e["path"] == entry["path"]), None)
        roles = sorted({*(old or {}).get("roles", []), *entry.get("roles", [])})
        return [e for e in entries if e["path"] != entry["path"]] + [entry | {"roles": roles}]

    _update(models_dir, change)


def note_role(models_dir: Path, path: Path, role: str) -> None:
    """Record that a cached file also serves ``role`` (no-op when the file has no entry)."""
    if not any(
        e["path"] == str(path) and role not in e.get("roles", []) for e in read_manifest(models_dir)
    ):
        return  # nothing to add: no lock, no write

    def change(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for e in entries:
            if e["path"] == str(path) and role not in e.get("roles", []):
                e["roles"] = sorted([*e.get("roles", []), role])
        return entries

    _update(models_dir, change)


def prune(models_dir: Path) -> None:
    """Drop entries whose file no longer exists (after ``gno models clear``)."""
    if manifest_path(models_dir).exists():
        _update(models_dir, lambda entries: entries)


def _update(models_dir: Path, change: Any) -> None:
    with cache_lock(models_dir, MANIFEST):
        entries = [e for e in change(read_manifest(models_dir)) if Path(e["path"]).is_file()]
        _write_atomically(
            manifest_path(models_dir), {"version": VERSION, "models": sorted(entries, key=_by_path)}
        )


def _by_path(entry: dict[str, Any]) -> str:
    return str(entry["path"])


def _write_atomically(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".manifest.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
