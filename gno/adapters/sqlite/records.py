"""Record lane rows of the store (mixed into SqliteStore): export containers and the
provenance of each record's virtual document (migration 8, spec/records.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import apsw

from gno.rows import now_iso

if TYPE_CHECKING:  # built by the record lane's sync, not by a read
    from gno.sync_rows import ContainerState, DocState

ID_BATCH = 10_000


class RecordStore:
    conn: apsw.Connection
    _journal_known: tuple[str, set[str]] | None  # DocumentJournal's paths known at sync start

    def record_states(self, collection: str, prefix: str) -> dict[str, DocState]:
        """The states of the record documents under ``prefix`` (one container's folder,
        ending in "/"): a range scan of the (collection, rel_path) index, so a sync reads
        only the records of the containers that changed."""
        from gno.sync_rows import DocState

        rows = self.conn.execute(
            "SELECT rel_path, id, source_size, source_mtime_ns, source_inode, source_hash, "
            "mirror_hash, active, ingest_version, last_error_code FROM documents "
            "WHERE collection = ? AND rel_path >= ? AND rel_path < ?",
            (collection, prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)),
        )
        states = {
            r[0]: DocState(r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8], r[9]) for r in rows
        }
        known = getattr(self, "_journal_known", None)
        if known is not None and known[0] == collection:
            known[1].update(states)  # their writes must read the row they replace
        return states

    def record_containers(self, collection: str) -> dict[str, ContainerState]:
        from gno.sync_rows import ContainerState

        rows = self.conn.execute(
            "SELECT rel_path, size, mtime_ns, inode, source_hash, fingerprint, ingest_version, "
            "complete, records, error_code FROM record_containers WHERE collection = ?",
            (collection,),
        )
        return {
            r[0]: ContainerState(r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8], r[9])
            for r in rows
        }

    def record_container(self, collection: str, rel_path: str) -> ContainerState | None:
        """One container's row (a sync reads it again at its commit: another sync may have
        imported the same bytes meanwhile)."""
        from gno.sync_rows import ContainerState

        row = self.conn.execute(
            "SELECT size, mtime_ns, inode, source_hash, fingerprint, ingest_version, complete, "
            "records, error_code FROM record_containers WHERE collection = ? AND rel_path = ?",
            (collection, rel_path),
        ).fetchone()
        if row is None:
            return None
        return ContainerState(
            row[0], row[1], row[2], row[3], row[4], row[5], bool(row[6]), row[7], row[8]
        )

    def has_active_records(self, collection: str, prefix: str) -> bool:
        """Whether any record under ``prefix`` is active (one index lookup): records a
        collection removal or ``cleanup`` took away make an unchanged container re-import."""
        row = self.conn.execute(
            "SELECT 1 FROM documents WHERE collection = ? AND rel_path >= ? AND rel_path < ? "
            "AND active = 1 LIMIT 1",
            (collection, prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)),
        ).fetchone()
        return row is not None

    def save_container(
        self,
        collection: str,
        rel_path: str,
        state: ContainerState,
        error_message: str | None = None,
    ) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO record_containers (collection, rel_path, size, mtime_ns, inode, "
            "source_hash, fingerprint, ingest_version, complete, records, error_code, error_message, "
            "imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                collection,
                rel_path,
                state.size,
                state.mtime_ns,
                state.inode,
                state.source_hash,
                state.fingerprint,
                state.ingest_version,
                int(state.complete),
                state.records,
                state.error_code,
                error_message,
                now_iso(),
            ),
        )

    def drop_container(self, collection: str, rel_path: str) -> None:
        self.conn.execute(
            "DELETE FROM record_containers WHERE collection = ? AND rel_path = ?",
            (collection, rel_path),
        )

    def save_record(self, doc_id: int, container_path: str, record: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO doc_records (document_id, container_path, record_json) "
            "VALUES (?, ?, ?)",
            (doc_id, container_path, json.dumps(record, separators=(",", ":"))),
        )

    def records_for(self, doc_ids: Sequence[int]) -> dict[int, tuple[str, dict[str, Any]]]:
        """Container path and ``record`` object of each record document among ``doc_ids``."""
        out: dict[int, tuple[str, dict[str, Any]]] = {}
        ids = list(doc_ids)
        for i in range(0, len(ids), ID_BATCH):
            batch = ids[i : i + ID_BATCH]
            marks = ",".join("?" * len(batch))
            for doc_id, container, text in self.conn.execute(
                f"SELECT document_id, container_path, record_json FROM doc_records "
                f"WHERE document_id IN ({marks})",
                tuple(batch),
            ):
                out[doc_id] = (container, json.loads(text))
        return out
