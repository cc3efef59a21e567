"""Answers of `POST /api/search` (and the SDK's `POST /api/op/search`) kept by input while
the index has not changed.

A hit costs no worker thread, no reader connection and no search: the request is
still parsed and validated as any other (same errors), then answered with the
bytes a search with the same input produced under the same index generation.

The generation is read on each lookup: SQLite's ``PRAGMA data_version`` on a
connection of the cache's own (it changes whenever another connection commits:
a sync or embed job, a write route, a reader mirroring an ``index.yml`` edit,
`gno update` in another process), the index file's inode (a reset index is a new
file) and the ``index.yml`` stat stamp. It is read *before* the search runs, so
an answer that raced a write is filed under the older generation and never
served. Inputs whose meaning depends on the clock (``since``/``until`` accept
"today", "this week") are never cached.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apsw
from gno_contracts.operations import BY_ID

MAX_ENTRIES = 1024
MAX_BYTES = 32 * 1024 * 1024

Generation = tuple[int, int, str]


@dataclass
class Slot:
    """One lookup: the cached answer (or None), and how to keep a fresh one."""

    body: bytes | None
    keep: Callable[[bytes], None]


class ResultCache:
    """LRU of answer bytes, bounded by count and size. Used from the event loop only."""

    def __init__(
        self,
        db_path: Path,
        config_file: Path,
        max_entries: int = MAX_ENTRIES,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.db_path, self.config_file = db_path, config_file
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self._entries: OrderedDict[tuple[Any, ...], tuple[Generation, bytes]] = OrderedDict()
        self._size = 0
        self._conn: Any = None
        self._inode = 0
        self.hits = self.misses = 0

    def slot(self, op_id: str, inp: Any, local: bool, shape: str = "rest") -> Slot | None:
        """None when this input is not cacheable (registry ``cacheable``) or the index
        cannot be read. ``shape`` keeps apart answers of one input in different shapes
        (the REST route's view, the SDK route's operation output)."""
        if not BY_ID[op_id].cacheable or self.max_entries <= 0:
            return None
        if getattr(inp, "since", None) or getattr(inp, "until", None):
            return None
        generation = self.generation()
        if generation is None:
            return None
        key = (op_id, shape, local, inp.model_dump_json())
        found = self._entries.get(key)
        if found is not None and found[0] == generation:
            self._entries.move_to_end(key)
            self.hits += 1
            return Slot(found[1], _ignore)
        self.misses += 1
        return Slot(None, lambda body: self._put(key, generation, body))

    def generation(self) -> Generation | None:
        try:
            index = os.stat(self.db_path)
            config = os.stat(self.config_file)
            if self._conn is None or self._inode != index.st_ino:
                self.close()
                self._conn = apsw.Connection(str(self.db_path), flags=apsw.SQLITE_OPEN_READONLY)
                self._inode = index.st_ino
            # unpacking steps to the end: no read transaction outlives the statement
            ((version,),) = self._conn.execute("PRAGMA data_version")
        except (OSError, apsw.Error):
            return None
        return version, index.st_ino, f"{config.st_mtime_ns}:{config.st_size}:{config.st_ino}"

    def _put(self, key: tuple[Any, ...], generation: Generation, body: bytes) -> None:
        if len(body) > self.max_bytes // 8:
            return
        old = self._entries.pop(key, None)
        if old is not None:
            self._size -= len(old[1])
        self._entries[key] = (generation, body)
        self._size += len(body)
        while len(self._entries) > self.max_entries or self._size > self.max_bytes:
            _, (_, dropped) = self._entries.popitem(last=False)
            self._size -= len(dropped)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _ignore(_: bytes) -> None:
    pass
