"""index.yml's parsed form, kept as JSON in the cache folder (``load_config``'s cache).

PyYAML's import and parse cost a read-only command such as `gno status` more than its own
work. The parsed data is stored under ``{cache}/config/`` keyed by the file's SHA-256, so an
edited file is simply a miss: there is no stamp to trust. Only data that JSON carries
exactly is kept (a YAML date, a non-string key or a NaN would come back different, so such a
file is parsed every time). The cache is an optimisation only: any failure to read or write
it (a full disk, a read-only folder, a damaged file) falls back to parsing the YAML.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT = 1
MAX_BYTES = 4 * 1024 * 1024  # index.yml is at most 1 MiB; its JSON is never much larger


@dataclass(frozen=True)
class Recalled:
    """The kept parsed data (which may itself be None: an empty file)."""

    data: Any


def _file(cache_dir: Path, config_path: Path) -> str:
    key = hashlib.sha256(os.path.abspath(config_path).encode("utf-8")).hexdigest()[:24]
    return os.path.join(cache_dir, "config", f"{key}.json")


def recall(cache_dir: Path, config_path: Path, digest: str) -> Recalled | None:
    """The parsed data of the config file whose text hashes to ``digest``, if kept."""
    try:
        fd = os.open(_file(cache_dir, config_path), os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as kept:
            raw = kept.read(MAX_BYTES + 1)
        entry = json.loads(raw) if len(raw) <= MAX_BYTES else None
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("format") != FORMAT:
        return None
    if entry.get("sha256") != digest or "data" not in entry:
        return None
    return Recalled(entry["data"])


def remember(cache_dir: Path, config_path: Path, digest: str, data: Any) -> None:
    """Keep ``data`` for the text hashing to ``digest`` when JSON gives it back unchanged;
    written to a private temporary file and renamed, so a reader never sees half of it."""
    try:
        text = json.dumps({"format": FORMAT, "sha256": digest, "data": data})
        if json.loads(text)["data"] != data:  # NaN too: it equals nothing, itself included
            return
    except (TypeError, ValueError):  # a date, a set …: not JSON
        return
    target = _file(cache_dir, config_path)
    temporary = f"{target}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        with os.fdopen(os.open(temporary, flags, 0o600), "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
