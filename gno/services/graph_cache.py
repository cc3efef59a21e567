"""Answers of the graph reads, kept beside the index for as long as its state lasts.

`gno links`, `backlinks`, `graph`, `graph query` and `impact` answer from the links of
the whole index, resolved at read time: 10–50 ms of work per call that gives the same
answer until the index changes. Each answer (the handler's wire payload) is kept as a
JSON file in the index's cache folder (``<cache>/graph/<index>/``), named by the index's
``graph_state`` token (``Store.graph_state``: redrawn by triggers on every change of the
documents, links, relations or content-type rules these answers read, migration 11) and
a checksum of the operation and its input; the file holds that key in full, so a file of
another key is never taken for this one. A read whose token matches answers from the
file; after any change the old files are never read again (the next write removes them).

Best effort and never different: an unreadable or unwritable folder, a damaged file, or
a payload that JSON would not give back equal (a tuple, a key that is not a string)
means the answer is computed as before and not kept. An answer is kept only when the
token was the same before and after computing it (no change committed in between), at
most ``MAX_ENTRY_BYTES`` per answer, ``MAX_ENTRIES`` answers and ``MAX_TOTAL_BYTES`` per
index.
"""

from __future__ import annotations

import json
import os
import zlib
from _thread import get_ident
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gno.app import App
from gno.ports import Store

MAX_ENTRIES = 256  # answers kept per index (the oldest go first)
MAX_ENTRY_BYTES = 16 * 1024 * 1024  # a larger answer is computed each time instead
MAX_TOTAL_BYTES = 64 * 1024 * 1024  # all answers kept per index (the oldest go first)


def input_fields(inp: Any) -> dict[str, Any]:
    """The input as given: the lean path's wire fields or the model's set fields."""
    wire = getattr(inp, "wire", None)
    if isinstance(wire, dict):
        return dict(wire)
    dumped: dict[str, Any] = inp.model_dump(mode="json", exclude_unset=True)
    return dumped


def cached(
    app: App,
    store: Store,
    operation: str,
    key: Callable[[], dict[str, Any]],
    compute: Callable[[], dict[str, Any]],
    *,
    cheap_in_memory: bool = True,
) -> dict[str, Any]:
    """``compute()``'s payload for ``operation`` with ``key()`` (everything the answer
    depends on besides the index), from the cache when this index state answered it.
    ``key()`` runs after the token is read: a ref it resolves is resolved in the state
    the answer is kept for (resolved before, a document another writer indexed in between
    was answered under the key of "no document", every unknown ref's).
    ``cheap_in_memory``: computing is cheaper than reading a file once the store holds
    the full projection (a resident server), so then no file is read or written."""
    if cheap_in_memory and store.projection_kept():
        return compute()
    token = store.graph_state()
    if token is None:
        return compute()
    fields = key()
    try:
        key_text = json.dumps([operation, fields], sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return compute()
    folder = app.paths.cache_dir / "graph" / app.paths.index_name
    digest = zlib.crc32(key_text.encode()) << 32 | zlib.adler32(key_text.encode())
    prefix = token.hex()
    path = folder / f"{prefix}-{digest:016x}.json"
    found = _read(path, key_text)
    if found is not None:
        return found
    payload = compute()
    if store.graph_state() == token:
        _keep(folder, path, prefix, key_text, payload)
    return payload


def _read(path: Path, key_text: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as file:
            if os.fstat(file.fileno()).st_size > MAX_ENTRY_BYTES:
                return None  # not one this module wrote
            entry = json.loads(file.read())
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != key_text:
        return None
    payload = entry.get("payload")
    return payload if isinstance(payload, dict) else None


def _keep(folder: Path, path: Path, prefix: str, key_text: str, payload: dict[str, Any]) -> None:
    try:
        data = json.dumps({"key": key_text, "payload": payload}, ensure_ascii=False).encode()
        if len(data) > MAX_ENTRY_BYTES or json.loads(data)["payload"] != payload:
            return  # too large, or JSON would not give this payload back as it is
    except (TypeError, ValueError):
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _prune(folder, prefix, len(data))
        partial = folder / f".{path.name}.{os.getpid()}-{get_ident()}.tmp"  # per thread
        partial.write_bytes(data)
        os.replace(partial, path)
    except OSError:
        return


def _prune(folder: Path, prefix: str, incoming: int) -> None:
    """Make room for one answer of ``incoming`` bytes: remove the answers of other index
    states, then this state's oldest until the bounds hold with the new one."""
    current: list[tuple[float, int, Path]] = []
    for entry in os.scandir(folder):
        if not entry.is_file():
            continue
        if entry.name.startswith(prefix + "-") and entry.name.endswith(".json"):
            stat = entry.stat()
            current.append((stat.st_mtime, stat.st_size, Path(entry.path)))
        else:  # another state's answer, or a write that never finished
            Path(entry.path).unlink(missing_ok=True)
    current.sort()
    count, total = len(current), sum(size for _, size, _ in current) + incoming
    for _, size, stale in current:  # oldest first
        if count < MAX_ENTRIES and total <= MAX_TOTAL_BYTES:
            break
        stale.unlink(missing_ok=True)
        count, total = count - 1, total - size
