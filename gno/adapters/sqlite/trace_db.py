"""The retrieval trace database: a SQLite file of its own beside the index (spec/traces.md).

Not tables in the index file, on purpose: every commit to the index moves SQLite's
``data_version`` for every other connection, and gno keys read caches on it (the typed
edge projection a query's graph expansion uses, the REST result cache, a Capsule's index
snapshot). A trace written after each read would throw those away on every call of every
reader, a cost that grows with the corpus. Here trace writes leave the index untouched.

One file per index (``trace-<index identity>.db`` in the data folder), so a trace id of
another index is simply not here. Schema version in ``PRAGMA user_version``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import apsw

from gno.adapters.sqlite.traces import RetrievalTraceStore
from gno.errors import GnoError, LockedError, NewerIndexError

BUSY_TIMEOUT_MS = 5000
SCHEMA_V1 = """
        CREATE TABLE retrieval_traces (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            trace_id TEXT NOT NULL UNIQUE,
            status TEXT NOT NULL,
            trace_json TEXT NOT NULL,
            created_at_ms INTEGER NOT NULL,
            updated_at_ms INTEGER NOT NULL,
            expires_at_ms INTEGER NOT NULL,
            byte_size INTEGER NOT NULL,
            records INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX retrieval_traces_expires ON retrieval_traces (expires_at_ms);
        CREATE TABLE retrieval_trace_runs (
            run_id TEXT PRIMARY KEY,
            trace_id TEXT NOT NULL REFERENCES retrieval_traces (trace_id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            row_json TEXT NOT NULL
        );
        CREATE INDEX retrieval_trace_runs_trace ON retrieval_trace_runs (trace_id, seq);
        CREATE TABLE retrieval_trace_events (
            event_id TEXT PRIMARY KEY,
            trace_id TEXT NOT NULL REFERENCES retrieval_traces (trace_id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            row_json TEXT NOT NULL
        );
        CREATE INDEX retrieval_trace_events_trace ON retrieval_trace_events (trace_id, seq);
        CREATE TABLE retrieval_trace_judgments (
            judgment_id TEXT PRIMARY KEY,
            trace_id TEXT NOT NULL REFERENCES retrieval_traces (trace_id) ON DELETE CASCADE,
            idempotency_key TEXT NOT NULL,
            seq INTEGER NOT NULL,
            row_json TEXT NOT NULL,
            UNIQUE (trace_id, idempotency_key)
        );
        CREATE INDEX retrieval_trace_judgments_trace ON retrieval_trace_judgments (trace_id, seq);
        CREATE TABLE retrieval_trace_exports (
            export_id TEXT PRIMARY KEY,
            manifest_json TEXT NOT NULL,
            created_at_ms INTEGER NOT NULL
        );
        CREATE TABLE retrieval_trace_export_traces (
            export_id TEXT NOT NULL REFERENCES retrieval_trace_exports (export_id) ON DELETE CASCADE,
            trace_id TEXT NOT NULL REFERENCES retrieval_traces (trace_id) ON DELETE CASCADE,
            PRIMARY KEY (export_id, trace_id)
        ) WITHOUT ROWID;
        CREATE INDEX retrieval_trace_export_traces_trace ON retrieval_trace_export_traces (trace_id);
        """
# Version 2: retention reads count, total bytes and the soonest expiry after every recorded
# call. From an index holding exactly those columns that is a scan of a few small pages; from
# the table it read every stored trace's JSON (a fifth of a traced search's added time).
SCHEMA_V2 = """
        CREATE INDEX retrieval_traces_budget ON retrieval_traces (expires_at_ms, byte_size);
        DROP INDEX retrieval_traces_expires;
        """
UPGRADES = (SCHEMA_V1, SCHEMA_V2)  # UPGRADES[n] takes user_version n to n + 1
SCHEMA_VERSION = len(UPGRADES)


def trace_db_path(db_path: Path) -> Path:
    """``index-<id>.sqlite`` -> ``trace-<id>.db`` (no longer: the name stays ≤ 255 bytes)."""
    identity = db_path.name.removeprefix("index-").removesuffix(".sqlite")
    return db_path.with_name(f"trace-{identity}.db")


class TraceDb(RetrievalTraceStore):
    def __init__(self, conn: apsw.Connection, busy_timeout_ms: int) -> None:
        self.conn = conn
        self.busy_timeout_ms = busy_timeout_ms

    @classmethod
    def open(cls, path: Path) -> TraceDb:
        try:
            conn = apsw.Connection(str(path))
            busy = int(os.environ.get("GNO_BUSY_TIMEOUT_MS", BUSY_TIMEOUT_MS))
            conn.set_busy_timeout(busy)
            db = cls(conn, busy)
            try:
                db._refuse_newer(path)  # before any write, a journal mode's included
                conn.execute("PRAGMA foreign_keys = ON")
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                if db.version() < SCHEMA_VERSION:
                    with db.write():  # read again inside: another process may have upgraded it
                        db._refuse_newer(path)
                        current = db.version()
                        if current < SCHEMA_VERSION:
                            for version in range(current, SCHEMA_VERSION):
                                conn.execute(UPGRADES[version])
                            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            except BaseException:
                conn.close()
                raise
        except apsw.BusyError as exc:
            raise LockedError("The retrieval trace database is locked by another process") from exc
        except apsw.Error as exc:
            raise GnoError(f"Cannot open the retrieval trace database {path}: {exc}") from exc
        return db

    def _refuse_newer(self, path: Path) -> None:
        """A newer gno's file is never written: its rows may not be what this gno writes,
        and a downgrade of its schema would lose them."""
        current = self.version()
        if current > SCHEMA_VERSION:
            raise NewerIndexError(
                f"The retrieval trace database {path} was written by a newer gno (schema "
                f"{current}; this gno knows up to {SCHEMA_VERSION}): traces are off until gno "
                "is upgraded; nothing was changed"
            )

    def version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])  # type: ignore[index]

    @contextmanager
    def write(self) -> Iterator[None]:
        """One write transaction, rolled back on any exception."""
        if not self.conn.get_autocommit():
            yield
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except apsw.BusyError as exc:
            raise LockedError("The retrieval trace database is busy; try again") from exc
        try:
            yield
        except BaseException:
            if not self.conn.get_autocommit():
                self.conn.execute("ROLLBACK")
            raise
        try:
            self.conn.execute("COMMIT")
        except apsw.BusyError as exc:
            if not self.conn.get_autocommit():
                self.conn.execute("ROLLBACK")
            raise LockedError("The retrieval trace database is busy; try again") from exc

    def close(self) -> None:
        self.conn.close()
