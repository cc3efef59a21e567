"""What the write operations need of the index (mixed into SqliteStore): stored receipts
of writes sent with a requestId, user tags on documents, title/path suggestions."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import apsw

from gno.rows import DOC_COLUMNS, DocRow, doc_row, now_iso

MAX_REQUESTS = 10_000


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class WriteSupport:
    conn: apsw.Connection
    write: Callable[[], AbstractContextManager[None]]  # SqliteStore.write

    def request_receipt(self, request_id: str) -> tuple[str, str, str] | None:
        """(operation, receipt JSON, created at) of an earlier write with this id."""
        row = self.conn.execute(
            "SELECT operation, receipt_json, created_at FROM write_requests WHERE request_id = ?",
            (request_id,),
        ).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def save_request_receipt(self, request_id: str, operation: str, receipt_json: str) -> None:
        with self.write():
            self.conn.execute(
                "INSERT OR IGNORE INTO write_requests (request_id, operation, receipt_json, created_at) "
                "VALUES (?, ?, ?, ?)",
                (request_id, operation, receipt_json, now_iso()),
            )
            self.conn.execute(
                "DELETE FROM write_requests WHERE request_id IN (SELECT request_id FROM "
                "write_requests ORDER BY created_at DESC LIMIT -1 OFFSET ?)",
                (MAX_REQUESTS,),
            )

    def set_user_tag(self, doc_id: int, tag: str, present: bool) -> bool:
        """Add (or remove) a tag on a document; True when something changed."""
        with self.write():
            if present:
                self.conn.execute(
                    "INSERT OR IGNORE INTO doc_tags (document_id, tag, source) VALUES (?, ?, 'user')",
                    (doc_id, tag),
                )
            else:
                self.conn.execute(
                    "DELETE FROM doc_tags WHERE document_id = ? AND tag = ?", (doc_id, tag)
                )
            return bool(self.conn.changes())

    def move_user_tags(self, from_id: int, to_id: int) -> None:
        """A document's index-only tags onto the row its file became (gno's rename or
        move): left on the old row, a later file at the old path would take them over."""
        with self.write():
            self.conn.execute(
                "INSERT OR IGNORE INTO doc_tags (document_id, tag, source) "
                "SELECT ?, tag, 'user' FROM doc_tags WHERE document_id = ? AND source = 'user'",
                (to_id, from_id),
            )
            self.conn.execute(
                "DELETE FROM doc_tags WHERE document_id = ? AND source = 'user'", (from_id,)
            )

    def suggest_documents(self, text: str, collection: str | None, limit: int) -> list[DocRow]:
        """Active documents whose title or path contains ``text`` (prefix matches first)."""
        where = "active = 1 AND (title LIKE ?1 ESCAPE '\\' OR rel_path LIKE ?1 ESCAPE '\\')"
        args: list[object] = [_like(text)]
        if collection:
            where += " AND collection = ?2"
            args.append(collection)
        prefix = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        args.append(prefix)
        mark = len(args)
        rows = self.conn.execute(
            f"SELECT {DOC_COLUMNS} FROM documents WHERE {where} "
            f"ORDER BY (coalesce(title, '') LIKE ?{mark} ESCAPE '\\') DESC, rel_path LIMIT {int(limit)}",
            args,
        ).fetchall()
        return [doc_row(r) for r in rows]
