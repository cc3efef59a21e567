"""Egress policies (in the index, migration 9) and audit receipts (a file of their own),
spec/egress.md.

``EgressStore`` is mixed into ``SqliteStore`` for the egress operations; ``EgressLedger``
is what a server's per-request checks use (``gno/rest/egress_gate.py``): the policies
read on a connection of its own, so a check never waits behind the owner's writes.

Receipts are kept in ``<index file>.egress-audit`` (``AuditLog``), not in the index: one
is written per request from off the machine, and any write to the index file moves its
``PRAGMA data_version``, which empties every reader's page cache and the caches keyed on
the index generation (REST results, the edge projection, Capsule snapshots). Receipts are
append-only (the table refuses updates); retention keeps the newest ``MAX_RECEIPTS`` of
the last ``MAX_AGE_DAYS`` days, enforced on every append.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import apsw

from gno.adapters.sqlite.failures import maps_file_failures
from gno.rows import now_iso

MAX_RECEIPTS = 10_000
MAX_AGE_DAYS = 30
BUSY_TIMEOUT_MS = 5000
AUDIT_SCHEMA = 1  # PRAGMA user_version of the receipts file
_T = TypeVar("_T")

# (policy, revision, source, updated_at) per collection with a stored policy
PolicyRows = dict[str, tuple[str, int, str, str]]


def _cutoff() -> str:
    t = time.time() - MAX_AGE_DAYS * 86400
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".000Z"


def read_policies(conn: apsw.Connection) -> PolicyRows:
    rows = conn.execute(
        "SELECT collection, policy, revision, source, updated_at FROM egress_policies"
    ).fetchall()
    return {str(r[0]): (str(r[1]), int(str(r[2])), str(r[3]), str(r[4])) for r in rows}


# When each configured collection name last came into the configuration (Unix ms), as JSON in
# schema_meta. A retrieval trace begun before then holds documents of an earlier collection of
# that name, which the newcomer's policy must not judge (gno/rest/trace_lineage.py). A name
# without an entry was configured before gno kept this: its traces are judged as before.
ARRIVALS_KEY = "collection_arrivals"


def read_arrivals(conn: apsw.Connection) -> dict[str, int]:
    row = conn.execute("SELECT value FROM schema_meta WHERE key = ?", (ARRIVALS_KEY,)).fetchone()
    try:
        found = json.loads(str(row[0])) if row else {}
    except ValueError:  # a hand-edited index: no arrival known, judged as before gno kept them
        return {}
    if not isinstance(found, dict):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, int) and not isinstance(v, bool)}


def read_epoch(conn: apsw.Connection) -> int:
    row = conn.execute("SELECT epoch FROM egress_epoch WHERE id = 1").fetchone()
    return int(str(row[0])) if row else 0


def audit_path(index_path: Path) -> Path:
    return index_path.with_name(index_path.name + ".egress-audit")


class SharedConnection:
    """One SQLite connection, opened by ``opener`` on first use and used by one thread at a
    time (a lock): the receipts file's and a server's read of the policies."""

    def __init__(self, opener: Callable[[], apsw.Connection]) -> None:
        self._opener = opener
        self._conn: apsw.Connection | None = None
        self._lock = threading.Lock()

    @contextmanager
    def use(self) -> Iterator[apsw.Connection]:
        with self._lock:
            if self._conn is None:
                self._conn = self._opener()
            yield self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


@maps_file_failures  # a damaged receipts file: its own error, naming it
class AuditLog:
    """The receipts file: one connection, serialized by a lock, created on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._shared = SharedConnection(self._open)
        self._connection = self._shared.use

    def close(self) -> None:
        self._shared.close()

    def _open(self) -> apsw.Connection:
        if not self.path.exists():  # private from the first byte, like the index
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        conn = apsw.Connection(str(self.path))
        conn.setbusytimeout(BUSY_TIMEOUT_MS)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        row = conn.execute("PRAGMA user_version").fetchone()
        if row is None or int(str(row[0])) < AUDIT_SCHEMA:
            conn.execute(
                """
                BEGIN IMMEDIATE;
                CREATE TABLE IF NOT EXISTS egress_audits (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    audit_id TEXT NOT NULL UNIQUE,
                    created_at TEXT NOT NULL,
                    receipt_json TEXT NOT NULL
                );
                CREATE INDEX IF NOT EXISTS egress_audits_created ON egress_audits (created_at);
                CREATE TRIGGER IF NOT EXISTS egress_audits_append_only
                BEFORE UPDATE ON egress_audits BEGIN
                    SELECT RAISE(ABORT, 'egress audit receipts are append-only');
                END;
                PRAGMA user_version = 1;
                COMMIT;
                """
            )
        return conn

    @contextmanager
    def _write(self) -> Iterator[apsw.Connection]:
        with self._connection() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def append(self, audit_id: str, created_at: str, receipt: str) -> None:
        """Append one receipt, then apply retention, in one transaction."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO egress_audits (audit_id, created_at, receipt_json) VALUES (?, ?, ?)",
                (audit_id, created_at, receipt),
            )
            conn.execute("DELETE FROM egress_audits WHERE created_at < ?", (_cutoff(),))
            # By sequence, not by counting rows (an index seek, not a walk of 10,000): at
            # most the newest MAX_RECEIPTS sequence numbers stay; gaps from deletes only
            # make it fewer.
            conn.execute(
                "DELETE FROM egress_audits WHERE seq <= last_insert_rowid() - ?",
                (MAX_RECEIPTS,),
            )

    def page(self, before: int | None, limit: int) -> list[tuple[int, str]]:
        """(seq, receipt JSON), newest first, below ``before`` when given."""
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT seq, receipt_json FROM egress_audits WHERE seq < ? "
                "ORDER BY seq DESC LIMIT ?",
                (before if before is not None else 2**63 - 1, limit),
            ).fetchall()
        return [(int(str(r[0])), str(r[1])) for r in rows]

    def receipt(self, audit_id: str) -> str | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT receipt_json FROM egress_audits WHERE audit_id = ?", (audit_id,)
            ).fetchone()
        return str(row[0]) if row else None

    def counts(self) -> tuple[int, str | None, str | None]:
        """(receipts kept, oldest createdAt, newest createdAt)."""
        with self._connection() as conn:
            row = conn.execute(
                "SELECT count(*), min(created_at), max(created_at) FROM egress_audits"
            ).fetchone()
        if row is None:
            return 0, None, None
        oldest, newest = row[1], row[2]
        return (
            int(str(row[0])),
            None if oldest is None else str(oldest),
            None if newest is None else str(newest),
        )

    def delete(self, audit_id: str | None) -> int:
        """Delete one receipt (or all, with None); how many went."""
        with self._write() as conn:
            if audit_id is None:
                conn.execute("DELETE FROM egress_audits")
            else:
                conn.execute("DELETE FROM egress_audits WHERE audit_id = ?", (audit_id,))
            return int(conn.changes())


class EgressStore:
    conn: apsw.Connection
    path: Path  # the index file
    write: Callable[[], AbstractContextManager[None]]  # SqliteStore.write

    def egress_policies(self) -> PolicyRows:
        return read_policies(self.conn)

    def egress_epoch(self) -> int:
        return read_epoch(self.conn)

    def swap_egress_policy(
        self, collection: str, expected_revision: int, policy: str, source: str
    ) -> bool:
        """Store ``policy`` at revision ``expected_revision + 1`` if the collection is still
        at ``expected_revision`` (compare and set, one transaction, epoch bumped)."""
        with self.write():
            row = self.conn.execute(
                "SELECT revision FROM egress_policies WHERE collection = ?", (collection,)
            ).fetchone()
            current = int(row[0]) if row else 0
            if current != expected_revision:
                return False
            self.conn.execute(
                "INSERT INTO egress_policies (collection, policy, revision, source, updated_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (collection) DO UPDATE SET "
                "policy = excluded.policy, revision = excluded.revision, "
                "source = excluded.source, updated_at = excluded.updated_at",
                (collection, policy, expected_revision + 1, source, now_iso()),
            )
            self.conn.execute("UPDATE egress_epoch SET epoch = epoch + 1 WHERE id = 1")
            return True

    def reset_egress_policies(self, names: Iterable[str]) -> int:
        """Back to ``local_only`` (source ``legacy_default``, revision + 1, epoch + 1) for
        each of these names holding anything else: a name that leaves the configuration, or
        comes into it, must not hand its old policy to the next collection called so (a
        new folder would otherwise inherit another's ``remote``). How many were reset."""
        with self.write():
            reset = 0
            for name in names:
                self.conn.execute(
                    "UPDATE egress_policies SET policy = 'local_only', "
                    "source = 'legacy_default', revision = revision + 1, updated_at = ? "
                    "WHERE collection = ? AND (policy, source) != ('local_only', 'legacy_default')",
                    (now_iso(), name),
                )
                reset += self.conn.changes()
            if reset:
                self.conn.execute("UPDATE egress_epoch SET epoch = epoch + 1 WHERE id = 1")
            return reset

    def note_collection_arrivals(self, arrived: Iterable[str], names: Iterable[str]) -> None:
        """Stamp the names that just came into the configuration; forget those that left
        (``names`` is the whole configuration now). Part of the config mirror's transaction."""
        known, kept = read_arrivals(self.conn), set(names)
        now = int(time.time() * 1000)
        found = {n: ms for n, ms in known.items() if n in kept} | dict.fromkeys(arrived, now)
        if found != known:
            self.conn.execute(
                "INSERT INTO schema_meta (key, value, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                "updated_at = excluded.updated_at",
                (ARRIVALS_KEY, json.dumps(found, sort_keys=True), now_iso()),
            )

    @property
    def egress_audit_log(self) -> AuditLog:
        found: AuditLog | None = getattr(self, "_egress_audit", None)
        if found is None:
            found = self._egress_audit = AuditLog(audit_path(self.path))
        return found

    def append_egress_audit(self, audit_id: str, created_at: str, receipt: str) -> None:
        self.egress_audit_log.append(audit_id, created_at, receipt)

    def egress_audit_page(self, before: int | None, limit: int) -> list[tuple[int, str]]:
        return self.egress_audit_log.page(before, limit)

    def egress_audit_receipt(self, audit_id: str) -> str | None:
        return self.egress_audit_log.receipt(audit_id)

    def egress_audit_counts(self) -> tuple[int, str | None, str | None]:
        return self.egress_audit_log.counts()

    def delete_egress_audit(self, audit_id: str) -> bool:
        return self.egress_audit_log.delete(audit_id) > 0

    def purge_egress_audits(self) -> int:
        return self.egress_audit_log.delete(None)

    def close_egress_audit(self) -> None:
        found: AuditLog | None = getattr(self, "_egress_audit", None)
        if found is not None:
            found.close()


@maps_file_failures  # a damaged index: the store's error, before any handler runs
class EgressLedger:
    """A server's egress state: the index's policies on a read connection of its own and
    the receipts file (thread-safe by a lock each)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.audits = AuditLog(audit_path(path))
        self._policies = SharedConnection(self._open)
        self._connection = self._policies.use
        # Each read kept with the connection's ``data_version`` it was made at: that number
        # moves whenever another connection commits to the index (a policy change, a sync),
        # so a remote request pays one pragma, not a transaction of reads.
        self._kept: dict[str, tuple[int, Any]] = {}

    def _open(self) -> apsw.Connection:
        conn = apsw.Connection(str(self.path), flags=apsw.SQLITE_OPEN_READONLY)
        conn.setbusytimeout(BUSY_TIMEOUT_MS)
        return conn

    def _read_kept(self, key: str, read: Callable[[apsw.Connection], _T]) -> _T:
        """``read(conn)`` in one read transaction, kept until the index changes."""
        with self._connection() as conn:
            version = int(str(conn.execute("PRAGMA data_version").fetchone()[0]))  # type: ignore[index]
            kept = self._kept.get(key)
            if kept is not None and kept[0] == version:
                return cast(_T, kept[1])
            with conn:  # read after the version: a commit in between only means a reread
                found = read(conn)
            self._kept[key] = (version, found)
        return found

    def snapshot(self) -> tuple[PolicyRows, int, list[str]]:
        """Policies, epoch and the collections the index knows, in one read transaction.
        Shared between callers: read it, never change it."""

        def read(conn: apsw.Connection) -> tuple[PolicyRows, int, list[str]]:
            names = [str(r[0]) for r in conn.execute("SELECT name FROM collections").fetchall()]
            return read_policies(conn), read_epoch(conn), names

        return self._read_kept("snapshot", read)

    def epoch(self) -> int:
        return self.snapshot()[1]

    def journal_collections(self) -> list[str]:
        """The names the change journal holds entries of. A removed collection's entries
        (paths, headings, links) stay until retention drops them, and `changes` serves
        them: they count for a request that reads the journal."""
        return self._read_kept(
            "journal",
            lambda conn: [
                str(r[0]) for r in conn.execute("SELECT DISTINCT collection FROM document_changes")
            ],
        )

    def arrivals(self) -> dict[str, int]:
        """When each configured collection name arrived (``ARRIVALS_KEY``); read only for
        the rare trace show or export from off the machine, so not kept."""
        with self._connection() as conn:
            return read_arrivals(conn)

    def append(self, audit_id: str, created_at: str, receipt: str) -> None:
        self.audits.append(audit_id, created_at, receipt)

    def close(self) -> None:
        self.audits.close()
        self._policies.close()
