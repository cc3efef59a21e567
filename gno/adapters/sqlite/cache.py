"""Expansion cache reads and writes (mixed into SqliteStore).

Best effort by design: the cache is written from read commands (``gno query``),
which must never wait on or fail because of a running sync. A write that cannot
take the write lock at once is skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import apsw

from gno.errors import IndexFileError, LockedError
from gno.rows import now_iso

MAX_ENTRIES = 5000


class ExpansionCache:
    conn: apsw.Connection
    busy_timeout_ms: int
    write: Callable[[], AbstractContextManager[None]]  # SqliteStore.write

    def cached_expansion(self, key: str) -> str | None:
        row = self.conn.execute(
            "SELECT answer_json FROM expansion_cache WHERE key = ?", (key,)
        ).fetchone()
        return row[0] if row else None

    def cache_expansion(self, key: str, model_uri: str, answer_json: str) -> bool:
        """Store one answer (replacing an older one for the key) and keep the newest
        ``MAX_ENTRIES``. Returns False when the index was busy and nothing was written."""
        if not self.conn.get_autocommit():  # inside another transaction: not ours to extend
            return False
        self.conn.set_busy_timeout(0)
        try:
            with self.write():  # SqliteStore.write
                self.conn.execute(
                    "INSERT OR REPLACE INTO expansion_cache (key, model_uri, answer_json, created_at) "
                    "VALUES (?, ?, ?, ?)",
                    (key, model_uri, answer_json, now_iso()),
                )
                self.conn.execute(
                    "DELETE FROM expansion_cache WHERE id <= "
                    "(SELECT max(id) FROM expansion_cache) - ?",
                    (MAX_ENTRIES,),
                )
            return True
        except (LockedError, IndexFileError, apsw.Error):  # busy, read-only: no cache
            return False
        finally:
            self.conn.set_busy_timeout(self.busy_timeout_ms)
