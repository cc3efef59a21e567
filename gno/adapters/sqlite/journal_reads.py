"""Reads of the knowledge delta journal (mixed into SqliteStore through
``DocumentJournal``): the state row, pages of entries, one entry, a path's newest entry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import apsw

if TYPE_CHECKING:
    from gno.journal_rows import JournalRow, JournalState


class JournalReads:
    conn: apsw.Connection

    def journal_state(self) -> JournalState:
        from gno.journal_rows import JournalState

        row = self.conn.execute(
            "SELECT last_sequence, retention_floor, retained_entries, retained_bytes "
            "FROM document_change_journal_state WHERE id = 1"
        ).fetchone()
        return JournalState(*row) if row else JournalState(0, 0, 0, 0)

    def journal_page(
        self, after: int, since_time: str | None, collection: str | None, limit: int
    ) -> list[JournalRow]:
        """Up to ``limit`` entries with sequence > ``after`` (observed at or after
        ``since_time``), oldest first."""
        from gno.core import journal as j

        where: list[str] = ["sequence > ?"]
        params: list[object] = [after]
        if since_time:
            where.append("observed_ms >= ?")
            params.append(j.ms_of_iso(since_time))
        if collection:
            where.append("collection = ?")
            params.append(collection)
        from gno.journal_rows import JournalRow

        rows: Any = self.conn.execute(  # the columns in JournalRow's order
            "SELECT sequence, observed_ms, kind, collection, entry_json FROM document_changes "
            f"WHERE {' AND '.join(where)} ORDER BY sequence LIMIT ?",
            (*params, limit),
        )
        return list(map(JournalRow, rows))

    def journal_entry(self, sequence: int) -> JournalRow | None:
        row = self.conn.execute(
            "SELECT sequence, observed_ms, kind, collection, entry_json FROM document_changes "
            "WHERE sequence = ?",
            (sequence,),
        ).fetchone()
        return _journal_row(row) if row else None

    def journal_latest(self, collection: str, rel_path: str) -> JournalRow | None:
        """The newest retained entry whose current (or, for a rename, previous) path is this one."""
        from gno.core import journal as j

        key = j.path_key(collection, rel_path)
        found = [
            _journal_row(row)
            for row in self.conn.execute(
                "SELECT sequence, observed_ms, kind, collection, entry_json FROM document_changes "
                "WHERE path_key = ? OR previous_key = ? ORDER BY sequence DESC",
                (key, key),
            )
        ]
        # A 63-bit key can collide: confirm the path on the entry itself.
        for row in found:
            entry = row.entry
            paths = {(entry[side] or {}).get("relPath") for side in ("previous", "current")}
            if row.collection == collection and rel_path in paths:
                return row
        return None


def _journal_row(row: Any) -> JournalRow:
    from gno.journal_rows import JournalRow

    return JournalRow(row)  # the columns in JournalRow's order
