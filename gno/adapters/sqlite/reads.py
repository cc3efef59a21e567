"""Document reads of the store (mixed into SqliteStore): search candidates, documents, counts."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import apsw

from gno.adapters.sqlite.cursor import all_rows, scalar
from gno.errors import ValidationError
from gno.rows import DOC_COLUMNS, DocRow, doc_row, iso_from_ns

BM25_WEIGHTS = "1.5, 4.0, 1.0"  # filepath, title, body (GNO's weights)


ID_BATCH = 10_000  # ids per IN (...) list


class DocumentReads:
    conn: apsw.Connection

    def fts_candidates(self, match: str, limit: int) -> list[tuple[int, float]]:
        try:
            return [
                (r[0], r[1])
                for r in self.conn.execute(
                    f"SELECT rowid, bm25(documents_fts, {BM25_WEIGHTS}) AS score FROM documents_fts "
                    "WHERE documents_fts MATCH ? ORDER BY score LIMIT ?",
                    (match, limit),
                )
            ]
        except apsw.SQLError as exc:
            raise ValidationError(f"Invalid search syntax: {exc}") from exc

    def outline_candidates(self, match: str, limit: int) -> list[tuple[int, float]]:
        """(document id, bm25) of ``outline_fts`` (titles, descriptions, headings, paths)."""
        try:
            return [
                (r[0], r[1])
                for r in self.conn.execute(
                    "SELECT rowid, bm25(outline_fts) AS score FROM outline_fts "
                    "WHERE outline_fts MATCH ? ORDER BY score LIMIT ?",
                    (match, limit),
                )
            ]
        except apsw.SQLError as exc:
            raise ValidationError(f"Invalid search syntax: {exc}") from exc

    def fts_document_frequency(self, words: Sequence[str]) -> dict[str, int]:
        """How many indexed documents contain each plain word (body, title or path)."""
        out = {}
        for word in words:
            out[word] = int(
                scalar(
                    self.conn.execute(
                        "SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?",
                        ('"' + word.replace('"', '""') + '"',),
                    )
                )
            )
        return out

    def active_document_count(self) -> int:
        return int(scalar(self.conn.execute("SELECT count(*) FROM documents WHERE active = 1")))

    def documents_by_ids(
        self, ids: Sequence[int], where: str = "", params: Sequence[Any] = ()
    ) -> dict[int, DocRow]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        # NOT INDEXED keeps the planner on primary-key lookups: without statistics it would
        # rather scan documents_recent (active, …) or a collection's rows.
        sql = f"SELECT {DOC_COLUMNS} FROM documents NOT INDEXED WHERE id IN ({marks}) AND active = 1 {where}"
        return {row[0]: doc_row(row) for row in self.conn.execute(sql, (*ids, *params))}

    def ids_passing(
        self, ids: Sequence[int], where: str = "", params: Sequence[Any] = ()
    ) -> set[int]:
        """Which of these document ids are active and pass ``where`` (ids only: cheaper
        than loading rows for a whole candidate window)."""
        passing: set[int] = set()
        for start in range(0, len(ids), ID_BATCH):  # SQLite allows 32766 variables
            batch = ids[start : start + ID_BATCH]
            marks = ",".join("?" * len(batch))
            sql = (
                f"SELECT id FROM documents NOT INDEXED WHERE id IN ({marks}) AND active = 1 {where}"
            )
            passing.update(row[0] for row in self.conn.execute(sql, (*batch, *params)))
        return passing

    def documents_with_mirrors(
        self, mirror_hashes: Sequence[str], where: str = "", params: Sequence[Any] = ()
    ) -> list[DocRow]:
        """Active documents whose mirror is one of these (documents sharing a mirror all come back)."""
        if not mirror_hashes:
            return []
        marks = ",".join("?" * len(mirror_hashes))
        # +active: look the mirrors up by documents_mirror, not every active row by active
        sql = f"SELECT {DOC_COLUMNS} FROM documents WHERE mirror_hash IN ({marks}) AND +active = 1 {where}"
        return [doc_row(row) for row in self.conn.execute(sql, (*mirror_hashes, *params))]

    def documents_by_docid(self, docid: str, *, inactive: bool = False) -> list[DocRow]:
        """Active documents whose docid starts with ``docid``; with ``inactive``, the
        inactive ones too, after the active (what ``diff`` names: a removed file's document
        stays in the index and the journal, as ``document_by_path`` finds it)."""
        where = "" if inactive else " AND active = 1"
        rows = self.conn.execute(
            f"SELECT {DOC_COLUMNS} FROM documents WHERE docid LIKE ?{where} "
            "ORDER BY active DESC, collection, rel_path",
            (docid + "%",),
        )
        return [doc_row(r) for r in rows]

    def document_by_path(self, collection: str, rel_path: str) -> DocRow | None:
        row = self.conn.execute(
            f"SELECT {DOC_COLUMNS} FROM documents WHERE collection = ? AND rel_path = ?",
            (collection, rel_path),
        ).fetchone()
        return doc_row(row) if row else None

    def list_documents(
        self,
        collection: str | None,
        prefix: str | None,
        limit: int,
        offset: int,
        *,
        tags_all: Sequence[str] = (),
        tags_any: Sequence[str] = (),
        order: tuple[str | None, bool] = (None, False),
        condition: tuple[str, Sequence[Any]] = ("", ()),
    ) -> tuple[list[DocRow], int]:
        """A page of active documents with a mirror. ``order`` = (field, descending):
        field None sorts by URI, ``modified`` by the source mtime, any other name by that
        frontmatter date (documents without it last); ties by URI."""
        where = "active = 1 AND mirror_hash IS NOT NULL"
        params: list[Any] = []
        if collection:
            where += " AND collection = ?"
            params.append(collection)
        if prefix:
            where += " AND substr(rel_path, 1, ?) = ?"
            params += [len(prefix), prefix]
        for tag in tags_all:
            where += " AND id IN (SELECT document_id FROM doc_tags WHERE tag = ?)"
            params.append(tag)
        if tags_any:
            marks = ",".join("?" * len(tags_any))
            where += f" AND id IN (SELECT document_id FROM doc_tags WHERE tag IN ({marks}))"
            params += list(tags_any)
        if condition[0]:  # the typed metadata filter (core/metadata_filter)
            where += f" AND {condition[0]}"
            params += list(condition[1])
        total = scalar(self.conn.execute(f"SELECT count(*) FROM documents WHERE {where}", params))
        field, descending = order
        direction = "DESC" if descending else "ASC"
        order_params: list[Any] = []
        if field is None:
            order_by = "uri"
        elif field == "modified":
            order_by = f"source_mtime_ns {direction}, uri"
        else:
            key = "json_extract(date_fields_json, ?)"
            order_by = f"{key} IS NULL, {key} {direction}, uri"
            order_params = [f'$."{field}"', f'$."{field}"']
        rows = self.conn.execute(
            f"SELECT {DOC_COLUMNS} FROM documents WHERE {where} ORDER BY {order_by} LIMIT ? OFFSET ?",
            (*params, *order_params, limit, offset),
        )
        return [doc_row(r) for r in rows], total

    def date_field_names(self, collection: str | None) -> list[str]:
        """Frontmatter date keys carried by active documents (of one collection), sorted."""
        where, params = "d.active = 1 AND d.date_fields_json IS NOT NULL", []
        if collection:
            where += " AND d.collection = ?"
            params.append(collection)
        rows = self.conn.execute(
            f"SELECT DISTINCT j.key FROM documents d, json_each(d.date_fields_json) j "
            f"WHERE {where} ORDER BY j.key",
            params,
        )
        return [r[0] for r in rows]

    def active_paths(self, collection: str) -> list[DocRow]:
        rows = self.conn.execute(
            f"SELECT {DOC_COLUMNS} FROM documents WHERE collection = ? AND active = 1 ORDER BY rel_path",
            (collection,),
        )
        return [doc_row(r) for r in rows]

    def document_paths(self, collection: str) -> list[tuple[int, str]]:
        """(id, rel_path) of every row of the collection: inactive ones and records too."""
        rows = self.conn.execute(
            "SELECT id, rel_path FROM documents WHERE collection = ?", (collection,)
        )
        return [(r[0], r[1]) for r in rows]

    def first_converted(self, collection: str, limit: int) -> list[DocRow]:
        rows = self.conn.execute(
            f"SELECT {DOC_COLUMNS} FROM documents WHERE collection = ? AND active = 1 "
            "AND coalesce(mirror_hash, '') != '' ORDER BY rel_path LIMIT ?",
            (collection, limit),
        )
        return [doc_row(r) for r in rows]

    def contents(self, mirror_hashes: Sequence[str]) -> dict[str, str]:
        marks = ",".join("?" * len(mirror_hashes))
        rows = self.conn.execute(
            f"SELECT mirror_hash, markdown FROM content WHERE mirror_hash IN ({marks})",
            tuple(mirror_hashes),
        )
        return dict(rows)

    def chunk_spans(
        self, mirror_hashes: Sequence[str]
    ) -> dict[str, list[tuple[int, int, int, str | None]]]:
        """Per mirror: (seq, start line, end line, language) of each chunk, in order."""
        marks = ",".join("?" * len(mirror_hashes))
        out: dict[str, list[tuple[int, int, int, str | None]]] = {}
        for mirror_hash, seq, start_line, end_line, language in self.conn.execute(
            f"SELECT mirror_hash, seq, start_line, end_line, language FROM content_chunks "
            f"WHERE mirror_hash IN ({marks}) ORDER BY mirror_hash, seq",
            tuple(mirror_hashes),
        ):
            out.setdefault(mirror_hash, []).append((seq, start_line, end_line, language))
        return out

    def content(self, mirror_hash: str) -> str | None:
        row = self.conn.execute(
            "SELECT markdown FROM content WHERE mirror_hash = ?", (mirror_hash,)
        ).fetchone()
        return row[0] if row else None

    def chunks(self, mirror_hash: str) -> list[tuple[int, int, int, int, int, str | None]]:
        return [
            tuple(r)
            for r in self.conn.execute(
                "SELECT seq, pos, end_pos, start_line, end_line, language FROM content_chunks WHERE mirror_hash = ? ORDER BY seq",
                (mirror_hash,),
            )
        ]

    def tags_for(self, doc_ids: Sequence[int]) -> dict[int, list[str]]:
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        out: dict[int, list[str]] = {}
        for doc_id, tag in self.conn.execute(
            f"SELECT document_id, tag FROM doc_tags WHERE document_id IN ({marks}) ORDER BY tag",
            tuple(doc_ids),
        ):
            out.setdefault(doc_id, []).append(tag)
        return out

    def recent_documents(self, limit: int) -> list[DocRow]:
        rows = self.conn.execute(
            f"SELECT {DOC_COLUMNS} FROM documents WHERE active = 1 AND mirror_hash IS NOT NULL "
            "ORDER BY source_mtime_ns DESC, id DESC LIMIT ?",
            (limit,),
        )
        return [doc_row(r) for r in rows]

    def collection_counts(self) -> dict[str, tuple[int, int]]:
        """Per collection: (active documents, chunks of their mirrors)."""
        docs = dict(
            all_rows(
                self.conn.execute(
                    "SELECT collection, count(*) FROM documents WHERE active = 1 AND mirror_hash IS NOT NULL "
                    "GROUP BY collection"
                )
            )
        )
        chunks = dict(
            all_rows(
                self.conn.execute(
                    "SELECT d.collection, count(*) FROM (SELECT DISTINCT collection, mirror_hash FROM documents "
                    "WHERE active = 1 AND mirror_hash IS NOT NULL) d JOIN content_chunks c ON c.mirror_hash = d.mirror_hash "
                    "GROUP BY d.collection"
                )
            )
        )
        return {name: (docs.get(name, 0), chunks.get(name, 0)) for name in set(docs) | set(chunks)}

    def document_breakdown(self) -> dict[str, tuple[int, int, int]]:
        """Per collection: (documents, active documents, active documents whose last sync failed)."""
        rows = self.conn.execute(
            "SELECT collection, count(*), coalesce(sum(active), 0), "
            "coalesce(sum(active = 1 AND last_error_code IS NOT NULL), 0) FROM documents GROUP BY collection"
        )
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def totals(self) -> dict[str, Any]:
        one = lambda sql, *p: scalar(self.conn.execute(sql, p))  # noqa: E731
        return {
            "documents": one(
                "SELECT count(*) FROM documents WHERE active = 1 AND mirror_hash IS NOT NULL"
            ),
            "chunks": one(
                "SELECT count(*) FROM content_chunks WHERE mirror_hash IN "
                "(SELECT mirror_hash FROM documents WHERE active = 1)"
            ),
            "errors_24h": one(
                "SELECT count(*) FROM ingest_errors WHERE occurred_at >= ?",
                iso_from_ns(time.time_ns() - 86_400 * 10**9),
            ),
            "last_updated": one("SELECT max(updated_at) FROM documents"),
            "collections": one("SELECT count(*) FROM collections"),
        }

    def identity_rows(self) -> list[tuple[str, str, str]]:
        """(uri, source hash, mirror hash) of every active document, by URI: what the
        Context Capsule's index fingerprint is computed over (indexing order plays no part)."""
        return [
            (uri, source or "", mirror or "")
            for uri, source, mirror in self.conn.execute(
                "SELECT uri, source_hash, mirror_hash FROM documents WHERE active = 1 ORDER BY uri"
            )
        ]
