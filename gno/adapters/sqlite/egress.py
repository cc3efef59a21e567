"""Egress policies and audit receipts in the index (migration 9, spec/egress.md).

``EgressStore`` is mixed into ``SqliteStore`` for the egress operations; ``EgressLedger``
is the same tables on a connection of its own, for the per-request checks of a server
(``gno/rest/egress_gate.py``): it never waits behind the owner's writes on one
connection. Receipts are append-only (the table refuses updates); retention keeps the
newest ``MAX_RECEIPTS`` of the last ``MAX_AGE_DAYS`` days, enforced on every append.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import apsw

from gno.rows import now_iso

MAX_RECEIPTS = 10_000
MAX_AGE_DAYS = 30
BUSY_TIMEOUT_MS = 5000

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


def read_epoch(conn: apsw.Connection) -> int:
    row = conn.execute("SELECT epoch FROM egress_epoch WHERE id = 1").fetchone()
    return int(str(row[0])) if row else 0


def append_receipt(conn: apsw.Connection, audit_id: str, created_at: str, receipt: str) -> None:
    """Append one receipt and apply retention (inside the caller's transaction)."""
    conn.execute(
        "INSERT INTO egress_audits (audit_id, created_at, receipt_json) VALUES (?, ?, ?)",
        (audit_id, created_at, receipt),
    )
    conn.execute("DELETE FROM egress_audits WHERE created_at < ?", (_cutoff(),))
    conn.execute(
        "DELETE FROM egress_audits WHERE seq <= (SELECT seq FROM egress_audits "
        "ORDER BY seq DESC LIMIT 1 OFFSET ?)",
        (MAX_RECEIPTS,),
    )


class EgressStore:
    conn: apsw.Connection
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

    def append_egress_audit(self, audit_id: str, created_at: str, receipt: str) -> None:
        with self.write():
            append_receipt(self.conn, audit_id, created_at, receipt)

    def egress_audit_page(self, before: int | None, limit: int) -> list[tuple[int, str]]:
        """(seq, receipt JSON), newest first, below ``before`` when given."""
        if before is None:
            rows = self.conn.execute(
                "SELECT seq, receipt_json FROM egress_audits ORDER BY seq DESC LIMIT ?",
                (limit,),
            ).fetchall()
        else:
            rows = self.conn.execute(
                "SELECT seq, receipt_json FROM egress_audits WHERE seq < ? "
                "ORDER BY seq DESC LIMIT ?",
                (before, limit),
            ).fetchall()
        return [(int(str(r[0])), str(r[1])) for r in rows]

    def egress_audit_receipt(self, audit_id: str) -> str | None:
        row = self.conn.execute(
            "SELECT receipt_json FROM egress_audits WHERE audit_id = ?", (audit_id,)
        ).fetchone()
        return str(row[0]) if row else None

    def egress_audit_counts(self) -> tuple[int, str | None, str | None]:
        """(receipts kept, oldest createdAt, newest createdAt)."""
        row = self.conn.execute(
            "SELECT count(*), min(created_at), max(created_at) FROM egress_audits"
        ).fetchone()
        if row is None:
            return 0, None, None
        oldest, newest = row[1], row[2]
        return int(str(row[0])), None if oldest is None else str(oldest), (
            None if newest is None else str(newest)
        )

    def delete_egress_audit(self, audit_id: str) -> bool:
        with self.write():
            self.conn.execute("DELETE FROM egress_audits WHERE audit_id = ?", (audit_id,))
            return bool(self.conn.changes())

    def purge_egress_audits(self) -> int:
        with self.write():
            self.conn.execute("DELETE FROM egress_audits")
            return int(self.conn.changes())


class EgressLedger:
    """The egress tables on a connection of the server's own (thread-safe by a lock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: apsw.Connection | None = None
        self._lock = threading.Lock()

    @contextmanager
    def _connection(self) -> Iterator[apsw.Connection]:
        with self._lock:
            if self._conn is None:
                conn = apsw.Connection(str(self.path), flags=apsw.SQLITE_OPEN_READWRITE)
                conn.setbusytimeout(BUSY_TIMEOUT_MS)
                conn.execute("PRAGMA synchronous = NORMAL")
                self._conn = conn
            yield self._conn

    def snapshot(self) -> tuple[PolicyRows, int, list[str]]:
        """Policies, epoch and the collections the index knows, in one transaction."""
        with self._connection() as conn, conn:
            names = [str(r[0]) for r in conn.execute("SELECT name FROM collections").fetchall()]
            found = read_policies(conn), read_epoch(conn), names
        return found

    def epoch(self) -> int:
        with self._connection() as conn:
            return read_epoch(conn)

    def append(self, audit_id: str, created_at: str, receipt: str) -> None:
        with self._connection() as conn, conn:
            append_receipt(conn, audit_id, created_at, receipt)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
