"""Document writes of the store (mixed into SqliteStore): what a sync applies."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import apsw

from gno.adapters.sqlite.cursor import scalar
from gno.adapters.sqlite.fts_schema import OUTLINE_INSERT, outline_rows
from gno.adapters.sqlite.journal import DocumentJournal
from gno.rows import INGEST_VERSION, now_iso

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from gno.core.document import Analysis
    from gno.sync_rows import DocState, SourceFile

# Bump when ingestion changes what it stores: every document is then re-read once.


class DocumentWrites(DocumentJournal):
    conn: apsw.Connection
    # FTS rows written inside a transaction go in together just before COMMIT: FTS5
    # flushes its pending terms at every statement savepoint, so interleaving them
    # with other writes turns one segment into thousands.
    _fts_pending: list[tuple[int, str, str, str]]
    _outline: bool | None = None  # outline_fts exists (migration 12)

    write: Callable[[], AbstractContextManager[None]]  # provided by SqliteStore

    def doc_states(self, collection: str) -> dict[str, DocState]:
        from gno.sync_rows import DocState

        version = self.journal_version()  # before the read: a commit after it counts
        rows = self.conn.execute(
            "SELECT rel_path, id, source_size, source_mtime_ns, source_inode, source_hash, mirror_hash, active, "
            "ingest_version, last_error_code, frontmatter_type, content_rules_fp FROM documents "
            "WHERE collection = ? "
            # record documents are the record lane's, loaded per container (records.py)
            "AND NOT (rel_path >= '.gno/records/' AND rel_path < '.gno/records0')",
            (collection,),
        )
        states = {
            r[0]: DocState(r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8], r[9], r[10], r[11])
            for r in rows
        }
        # Every sync of a collection starts here.
        self.journal_sync_started(collection, set(states), version)
        return states

    def active_ids(self, collection: str) -> set[int]:
        rows = self.conn.execute(
            "SELECT id FROM documents WHERE collection = ? AND active = 1", (collection,)
        )
        return {int(r[0]) for r in rows}

    def touch_document(self, doc_id: int, size: int, mtime_ns: int, inode: int | None) -> None:
        self.conn.execute(
            "UPDATE documents SET source_size = ?, source_mtime_ns = ?, source_inode = ? WHERE id = ?",
            (size, mtime_ns, inode, doc_id),
        )

    def save_document(
        self,
        src: SourceFile,
        analysis: Analysis,
        *,
        fts_title: str,
        fts_body: str,
        converter_id: str,
        converter_version: str,
        language_hint: str | None,
    ) -> int:
        """Upsert a converted document with its content, chunks, FTS row, tags and links."""
        a, ts = analysis, now_iso()
        before = self.journal_prior(src.collection, src.rel_path)  # read before links go
        doc_id = scalar(
            self.conn.execute(
                """
            INSERT INTO documents (collection, rel_path, source_hash, source_mime, source_ext, source_size,
                source_mtime_ns, source_inode, docid, uri, title, mirror_hash, converter_id, converter_version,
                language_hint, content_type, content_type_source, categories_json, author, frontmatter_date,
                date_fields_json, active, last_error_code, last_error_message, last_error_at, ingest_version,
                indexed_at, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, NULL, NULL, NULL, ?, ?, ?, ?)
            ON CONFLICT (collection, rel_path) DO UPDATE SET
                source_hash = excluded.source_hash, source_mime = excluded.source_mime,
                source_ext = excluded.source_ext, source_size = excluded.source_size,
                source_mtime_ns = excluded.source_mtime_ns, source_inode = excluded.source_inode,
                docid = excluded.docid, uri = excluded.uri, title = excluded.title,
                mirror_hash = excluded.mirror_hash, converter_id = excluded.converter_id,
                converter_version = excluded.converter_version, language_hint = excluded.language_hint,
                content_type = excluded.content_type, content_type_source = excluded.content_type_source,
                categories_json = excluded.categories_json, author = excluded.author,
                frontmatter_date = excluded.frontmatter_date, date_fields_json = excluded.date_fields_json,
                active = 1, last_error_code = NULL, last_error_message = NULL, last_error_at = NULL,
                ingest_version = excluded.ingest_version, indexed_at = excluded.indexed_at,
                updated_at = excluded.updated_at
            RETURNING id
            """,
                (
                    *src.values(),
                    a.title,
                    a.mirror_hash,
                    converter_id,
                    converter_version,
                    language_hint,
                    a.content_type,
                    a.content_type_source,
                    json.dumps(a.categories),
                    a.metadata.author,
                    a.metadata.frontmatter_date,
                    json.dumps(a.metadata.date_fields) if a.metadata.date_fields else None,
                    INGEST_VERSION,
                    ts,
                    ts,
                    ts,
                ),
            )
        )
        inserted = self.conn.execute(
            "INSERT INTO content (mirror_hash, markdown, line_count) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING 1",
            (a.mirror_hash, a.mirror, a.mirror.count("\n")),
        ).fetchone()
        if inserted:
            self.conn.executemany(
                "INSERT INTO content_chunks (mirror_hash, seq, pos, end_pos, start_line, end_line, language) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        a.mirror_hash,
                        c.chunk.seq,
                        c.chunk.pos,
                        c.chunk.end,
                        c.chunk.start_line,
                        c.chunk.end_line,
                        c.language,
                    )
                    for c in a.chunks
                ],
            )
        self._replace_fts(doc_id, src.rel_path, fts_title, fts_body, prepared=True)
        self.conn.execute(
            "DELETE FROM doc_tags WHERE document_id = ? AND source = 'frontmatter'", (doc_id,)
        )
        self.conn.executemany(
            "INSERT OR IGNORE INTO doc_tags (document_id, tag, source) VALUES (?, ?, 'frontmatter')",
            [(doc_id, tag) for tag in a.tags],
        )
        self.conn.execute(
            "DELETE FROM doc_links WHERE source_doc_id = ? AND source = 'parsed'", (doc_id,)
        )
        self.conn.executemany(
            "INSERT OR IGNORE INTO doc_links (source_doc_id, link_type, target_ref, target_ref_norm, target_anchor, "
            "target_collection, link_text, start_line, start_col, end_line, end_col, source) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'parsed')",
            [
                (
                    doc_id,
                    lk.link_type,
                    lk.target_ref,
                    lk.target_ref_norm,
                    lk.target_anchor,
                    lk.target_collection,
                    lk.link_text,
                    lk.start_line,
                    lk.start_col,
                    lk.end_line,
                    lk.end_col,
                )
                for lk in a.links
            ],
        )
        self.save_relations(doc_id, a)
        self.journal_saved(before, src, a, doc_id)
        return doc_id

    def _replace_fts(
        self, doc_id: int, rel_path: str, title: str | None, body: str, prepared: bool = False
    ) -> None:
        """(Re)index one document at commit; ``prepared``: title/body already went through index_text."""
        from gno.core.fts import index_text

        if not prepared:
            title, body = index_text(title or ""), index_text(body)
        self._fts_pending.append((doc_id, index_text(rel_path), title or "", body))

    def _flush_fts(self) -> None:
        if not self._fts_pending:
            return
        rows, self._fts_pending = self._fts_pending, []
        self.conn.executemany(
            "DELETE FROM documents_fts WHERE rowid = ?", [(row[0],) for row in rows]
        )
        self.conn.executemany(
            "INSERT INTO documents_fts (rowid, filepath, title, body) VALUES (?, ?, ?, ?)", rows
        )
        if self.outline_ready():
            drop = [(row[0],) for row in rows]
            self.conn.executemany("DELETE FROM outline_fts WHERE rowid = ?", drop)
            self.conn.executemany(OUTLINE_INSERT, outline_rows(rows))

    def outline_ready(self) -> bool:
        """Whether ``outline_fts`` exists: always after migration 12; tests that hold an index
        at an older version write without it."""
        if self._outline is None:
            found = "SELECT count(*) FROM sqlite_master WHERE name = 'outline_fts'"
            self._outline = bool(scalar(self.conn.execute(found)))
        return self._outline

    def save_failure(self, src: SourceFile, code: str, message: str) -> None:
        """Record an ingest error; a document that failed has no searchable content."""
        ts = now_iso()
        before = self.journal_prior(src.collection, src.rel_path)
        row = self.conn.execute(
            """
            INSERT INTO documents (collection, rel_path, source_hash, source_mime, source_ext, source_size,
                source_mtime_ns, source_inode, docid, uri, title, mirror_hash, active, last_error_code,
                last_error_message, last_error_at, ingest_version, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, 1, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (collection, rel_path) DO UPDATE SET
                source_hash = excluded.source_hash, source_size = excluded.source_size,
                source_mtime_ns = excluded.source_mtime_ns, source_inode = excluded.source_inode,
                docid = excluded.docid, mirror_hash = NULL, active = 1,
                last_error_code = excluded.last_error_code, last_error_message = excluded.last_error_message,
                last_error_at = excluded.last_error_at, ingest_version = excluded.ingest_version,
                updated_at = excluded.updated_at
            RETURNING id
            """,
            (
                *src.values(),
                code,
                message,
                ts,
                INGEST_VERSION,
                ts,
                ts,
            ),
        )
        failed_id = scalar(row)
        self._drop_fts([failed_id])
        self.journal_saved(before, src, None, failed_id)
        self.record_error(src.collection, src.rel_path, code, message)

    def record_error(self, collection: str, rel_path: str, code: str, message: str) -> None:
        self.conn.execute(
            "INSERT INTO ingest_errors (collection, rel_path, occurred_at, code, message) VALUES (?, ?, ?, ?, ?)",
            (collection, rel_path, now_iso(), code, message),
        )

    def reactivate(self, doc_id: int) -> None:
        row = self.conn.execute(
            "SELECT d.rel_path, d.title, c.markdown FROM documents d JOIN content c ON c.mirror_hash = d.mirror_hash "
            "WHERE d.id = ?",
            (doc_id,),
        ).fetchone()
        self.journal_reactivated(doc_id)
        self.conn.execute(
            "UPDATE documents SET active = 1, updated_at = ? WHERE id = ?", (now_iso(), doc_id)
        )
        if row:
            self._replace_fts(doc_id, row[0], row[1], row[2])

    def inactivate(self, doc_ids: Sequence[int]) -> None:
        ts = now_iso()
        self.journal_inactivated(doc_ids)
        self.conn.executemany(
            "UPDATE documents SET active = 0, updated_at = ? WHERE id = ?",
            [(ts, i) for i in doc_ids],
        )
        self._drop_fts(doc_ids)

    def _drop_fts(self, doc_ids: Sequence[int]) -> None:
        dropped = set(doc_ids)
        self._fts_pending = [row for row in self._fts_pending if row[0] not in dropped]
        self.conn.executemany("DELETE FROM documents_fts WHERE rowid = ?", [(i,) for i in doc_ids])
        if self.outline_ready():
            self.conn.executemany(
                "DELETE FROM outline_fts WHERE rowid = ?", [(i,) for i in doc_ids]
            )

    def inactivate_collections_except(self, names: Sequence[str]) -> int:
        """Soft-delete documents of collections no longer in the config."""
        marks = ",".join("?" * len(names)) or "''"
        ids = [
            r[0]
            for r in self.conn.execute(
                f"SELECT id FROM documents WHERE active = 1 AND collection NOT IN ({marks})",
                tuple(names),
            )
        ]
        if ids:
            with self.write():
                self.inactivate(ids)
        return len(ids)
