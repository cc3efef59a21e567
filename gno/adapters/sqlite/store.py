"""The SQLite store (apsw): one file per index, WAL, numbered migrations.

Write paths run in ``BEGIN IMMEDIATE`` transactions so a sync is applied in
whole batches or not at all. apsw errors are mapped to gno errors here, at the
adapter edge; nothing above this module sees an apsw exception.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import apsw

from gno.adapters.sqlite.migrations import MIGRATIONS
from gno.core.fts import TOKENIZER, index_text
from gno.core.identity import docid_for
from gno.errors import GnoError, LockedError, NotInitializedError, ValidationError

if TYPE_CHECKING:
    from gno.core.document import Analysis

# Bump when ingestion changes what it stores: every document is then re-read once.
INGEST_VERSION = 1

BM25_WEIGHTS = "1.5, 4.0, 1.0"  # filepath, title, body (GNO's weights)
BUSY_TIMEOUT_MS = 5000  # override with GNO_BUSY_TIMEOUT_MS
TOKENIZE_BY_NAME = {"porter": TOKENIZER, "unicode61": "unicode61 remove_diacritics 2"}


def now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def iso_from_ns(ns: int) -> str:
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns / 1e9))
        + f".{(ns // 1_000_000) % 1000:03d}Z"
    )


@dataclass(frozen=True, slots=True)
class SourceFile:
    """Identity and stat of one source file, as a sync saw it."""

    collection: str
    rel_path: str
    uri: str
    source_hash: str | None
    mime: str
    ext: str
    size: int
    mtime_ns: int
    inode: int | None

    def values(self) -> tuple[Any, ...]:
        """Leading columns of a documents row, in table order (collection .. uri)."""
        docid = docid_for(self.source_hash) if self.source_hash else None
        return (
            self.collection,
            self.rel_path,
            self.source_hash,
            self.mime,
            self.ext,
            self.size,
            self.mtime_ns,
            self.inode,
            docid,
            self.uri,
        )


@dataclass(frozen=True, slots=True)
class DocState:
    """What sync needs to decide whether a file changed, without reading it."""

    id: int
    size: int
    mtime_ns: int
    inode: int | None
    source_hash: str | None
    mirror_hash: str | None
    active: bool
    ingest_version: int
    error_code: str | None


@dataclass(frozen=True, slots=True)
class DocRow:
    id: int
    collection: str
    rel_path: str
    docid: str
    uri: str
    title: str | None
    mirror_hash: str | None
    source_hash: str | None
    mime: str
    ext: str
    size: int
    mtime_ns: int
    converter_id: str | None
    converter_version: str | None
    content_type: str | None
    categories: list[str]
    author: str | None
    frontmatter_date: str | None
    active: bool
    error_code: str | None


_DOC_COLUMNS = (
    "id, collection, rel_path, docid, uri, title, mirror_hash, source_hash, source_mime, source_ext, "
    "source_size, source_mtime_ns, converter_id, converter_version, content_type, categories_json, "
    "author, frontmatter_date, active, last_error_code"
)


def _doc_row(row: Sequence[Any]) -> DocRow:
    values = list(row)
    values[15] = json.loads(values[15]) if values[15] else []
    values[18] = bool(values[18])
    return DocRow(*values)


class SqliteStore:
    def __init__(self, conn: apsw.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        # FTS rows written inside a transaction go in together just before COMMIT: FTS5
        # flushes its pending terms at every statement savepoint, so interleaving them
        # with other writes turns one segment into thousands.
        self._fts_pending: list[tuple[int, str, str, str]] = []

    # -- lifecycle -----------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, *, create: bool = False, tokenizer: str = "porter") -> SqliteStore:
        if not create and not path.exists():
            raise NotInitializedError("GNO not initialized. Run: gno init")
        flags = apsw.SQLITE_OPEN_READWRITE | (apsw.SQLITE_OPEN_CREATE if create else 0)
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = apsw.Connection(str(path), flags=flags)
            conn.set_busy_timeout(int(os.environ.get("GNO_BUSY_TIMEOUT_MS", BUSY_TIMEOUT_MS)))
            conn.execute("PRAGMA foreign_keys = ON")
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(
                "PRAGMA cache_size = -65536"
            )  # 64 MiB: bulk syncs otherwise re-read index pages
        except apsw.BusyError as exc:
            raise LockedError(f"The index {path} is locked by another process") from exc
        except apsw.Error as exc:
            raise GnoError(f"Cannot open index {path}: {exc}") from exc
        store = cls(conn, path)
        store.migrate(tokenizer)
        return store

    def close(self) -> None:
        self.conn.close()

    def schema_version(self) -> int:
        exists = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'schema_meta'"
        ).fetchone()
        if not exists:
            return 0
        row = self.conn.execute("SELECT value FROM schema_meta WHERE key = 'version'").fetchone()
        return int(row[0]) if row else 0

    def migrate(self, tokenizer: str = "porter") -> None:
        current = self.schema_version()
        pending = [(v, fn) for v, fn in sorted(MIGRATIONS) if v > current]
        if not pending:
            return
        with self.write():
            if current == 0:
                self.conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL)"
                )
                self.set_meta("fts_tokenizer", TOKENIZE_BY_NAME[tokenizer])
                self.set_meta("created_at", now_iso())
            settings = {
                "fts_tokenize": self.get_meta("fts_tokenizer") or TOKENIZE_BY_NAME[tokenizer]
            }
            for version, step in pending:
                step(self.conn, settings)
                self.set_meta("version", str(version))

    @contextmanager
    def write(self) -> Iterator[None]:
        """One write transaction; rolled back on any exception, Ctrl-C included."""
        if not self.conn.get_autocommit():  # nested: join the outer transaction
            yield
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except apsw.BusyError as exc:
            raise LockedError(
                "The index is locked by another writer (is a `gno update` or `gno serve` running?)"
            ) from exc
        try:
            yield
            self._flush_fts()
        except BaseException:
            self._fts_pending.clear()
            self.conn.execute("ROLLBACK")
            raise
        try:
            self.conn.execute("COMMIT")
        except apsw.BusyError as exc:
            self.conn.execute("ROLLBACK")
            raise LockedError("The index is locked by another reader or writer; try again") from exc

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM schema_meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO schema_meta (key, value, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            (key, value, now_iso()),
        )

    # -- config mirror -------------------------------------------------------------

    def replace_config(
        self,
        collections: Iterable[dict[str, Any]],
        contexts: Iterable[tuple[str, str, str]],
        stamp: str,
    ) -> None:
        with self.write():
            existing = {
                row[0]: row[1]
                for row in self.conn.execute("SELECT name, synced_at FROM collections")
            }
            self.conn.execute("DELETE FROM collections")
            self.conn.executemany(
                "INSERT INTO collections (name, path, pattern, include_json, exclude_json, update_cmd, language_hint, synced_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        c["name"],
                        c["path"],
                        c["pattern"],
                        json.dumps(c["include"]),
                        json.dumps(c["exclude"]),
                        c.get("updateCmd"),
                        c.get("languageHint"),
                        existing.get(c["name"]),
                    )
                    for c in collections
                ],
            )
            self.conn.execute("DELETE FROM contexts")
            self.conn.executemany("INSERT OR IGNORE INTO contexts VALUES (?, ?, ?)", list(contexts))
            self.set_meta("config_stamp", stamp)

    def collections(self) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT name, path, pattern, include_json, exclude_json, update_cmd, language_hint, synced_at "
            "FROM collections ORDER BY name"
        )
        return [
            {
                "name": r[0],
                "path": r[1],
                "pattern": r[2],
                "include": json.loads(r[3]),
                "exclude": json.loads(r[4]),
                "updateCmd": r[5],
                "languageHint": r[6],
                "syncedAt": r[7],
            }
            for r in rows
        ]

    def contexts(self) -> list[tuple[str, str, str]]:
        return [
            tuple(r) for r in self.conn.execute("SELECT scope_type, scope_key, text FROM contexts")
        ]

    def rename_collection_rows(self, old: str, new: str, uris: Sequence[tuple[int, str]]) -> None:
        with self.write():
            self.conn.execute(
                "UPDATE documents SET collection = ? WHERE collection = ?", (new, old)
            )
            self.conn.executemany(
                "UPDATE documents SET uri = ? WHERE id = ?", [(u, i) for i, u in uris]
            )
            self.conn.execute(
                "UPDATE ingest_errors SET collection = ? WHERE collection = ?", (new, old)
            )

    def mark_synced(self, collection: str) -> None:
        self.conn.execute(
            "UPDATE collections SET synced_at = ? WHERE name = ?", (now_iso(), collection)
        )

    # -- sync ------------------------------------------------------------------------

    def doc_states(self, collection: str) -> dict[str, DocState]:
        rows = self.conn.execute(
            "SELECT rel_path, id, source_size, source_mtime_ns, source_inode, source_hash, mirror_hash, active, "
            "ingest_version, last_error_code FROM documents WHERE collection = ?",
            (collection,),
        )
        return {
            r[0]: DocState(r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8], r[9]) for r in rows
        }

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
        doc_id = self.conn.execute(
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
        ).fetchone()[0]
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
        return doc_id

    def _replace_fts(
        self, doc_id: int, rel_path: str, title: str | None, body: str, prepared: bool = False
    ) -> None:
        """(Re)index one document at commit; ``prepared``: title/body already went through index_text."""
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

    def save_failure(self, src: SourceFile, code: str, message: str) -> None:
        """Record an ingest error; a document that failed has no searchable content."""
        ts = now_iso()
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
        ).fetchone()
        self._drop_fts([row[0]])
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
        self.conn.execute(
            "UPDATE documents SET active = 1, updated_at = ? WHERE id = ?", (now_iso(), doc_id)
        )
        if row:
            self._replace_fts(doc_id, row[0], row[1], row[2])

    def inactivate(self, doc_ids: Sequence[int]) -> None:
        ts = now_iso()
        self.conn.executemany(
            "UPDATE documents SET active = 0, updated_at = ? WHERE id = ?",
            [(ts, i) for i in doc_ids],
        )
        self._drop_fts(doc_ids)

    def _drop_fts(self, doc_ids: Sequence[int]) -> None:
        dropped = set(doc_ids)
        self._fts_pending = [row for row in self._fts_pending if row[0] not in dropped]
        self.conn.executemany("DELETE FROM documents_fts WHERE rowid = ?", [(i,) for i in doc_ids])

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

    # -- reads -----------------------------------------------------------------------

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

    def documents_by_ids(
        self, ids: Sequence[int], where: str = "", params: Sequence[Any] = ()
    ) -> dict[int, DocRow]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        sql = f"SELECT {_DOC_COLUMNS} FROM documents WHERE id IN ({marks}) AND active = 1 {where}"
        return {row[0]: _doc_row(row) for row in self.conn.execute(sql, (*ids, *params))}

    def documents_by_docid(self, docid: str) -> list[DocRow]:
        rows = self.conn.execute(
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE docid LIKE ? AND active = 1 ORDER BY collection, rel_path",
            (docid + "%",),
        )
        return [_doc_row(r) for r in rows]

    def document_by_path(self, collection: str, rel_path: str) -> DocRow | None:
        row = self.conn.execute(
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE collection = ? AND rel_path = ?",
            (collection, rel_path),
        ).fetchone()
        return _doc_row(row) if row else None

    def list_documents(
        self, collection: str | None, prefix: str | None, limit: int, offset: int
    ) -> tuple[list[DocRow], int]:
        where, params = "active = 1 AND mirror_hash IS NOT NULL", []
        if collection:
            where += " AND collection = ?"
            params.append(collection)
        if prefix:
            where += " AND substr(rel_path, 1, ?) = ?"
            params += [len(prefix), prefix]
        total = self.conn.execute(
            f"SELECT count(*) FROM documents WHERE {where}", params
        ).fetchone()[0]
        rows = self.conn.execute(
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE {where} ORDER BY uri LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [_doc_row(r) for r in rows], total

    def active_paths(self, collection: str) -> list[DocRow]:
        rows = self.conn.execute(
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE collection = ? AND active = 1 ORDER BY rel_path",
            (collection,),
        )
        return [_doc_row(r) for r in rows]

    def contents(self, mirror_hashes: Sequence[str]) -> dict[str, str]:
        marks = ",".join("?" * len(mirror_hashes))
        rows = self.conn.execute(
            f"SELECT mirror_hash, markdown FROM content WHERE mirror_hash IN ({marks})",
            tuple(mirror_hashes),
        )
        return dict(rows)

    def chunk_languages(
        self, mirror_hashes: Sequence[str]
    ) -> dict[str, list[tuple[int, str | None]]]:
        """Per mirror: (start line, language) of each chunk, in order."""
        marks = ",".join("?" * len(mirror_hashes))
        out: dict[str, list[tuple[int, str | None]]] = {}
        for mirror_hash, start_line, language in self.conn.execute(
            f"SELECT mirror_hash, start_line, language FROM content_chunks WHERE mirror_hash IN ({marks}) "
            "ORDER BY mirror_hash, seq",
            tuple(mirror_hashes),
        ):
            out.setdefault(mirror_hash, []).append((start_line, language))
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
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE active = 1 AND mirror_hash IS NOT NULL "
            "ORDER BY source_mtime_ns DESC, id DESC LIMIT ?",
            (limit,),
        )
        return [_doc_row(r) for r in rows]

    def collection_counts(self) -> dict[str, tuple[int, int]]:
        """Per collection: (active documents, chunks of their mirrors)."""
        docs = dict(
            self.conn.execute(
                "SELECT collection, count(*) FROM documents WHERE active = 1 AND mirror_hash IS NOT NULL "
                "GROUP BY collection"
            ).fetchall()
        )
        chunks = dict(
            self.conn.execute(
                "SELECT d.collection, count(*) FROM (SELECT DISTINCT collection, mirror_hash FROM documents "
                "WHERE active = 1 AND mirror_hash IS NOT NULL) d JOIN content_chunks c ON c.mirror_hash = d.mirror_hash "
                "GROUP BY d.collection"
            ).fetchall()
        )
        return {name: (docs.get(name, 0), chunks.get(name, 0)) for name in set(docs) | set(chunks)}

    def totals(self) -> dict[str, Any]:
        one = lambda sql, *p: self.conn.execute(sql, p).fetchone()[0]  # noqa: E731
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

    # -- maintenance ------------------------------------------------------------------

    def cleanup(self) -> dict[str, int]:
        """Delete what no active document references: inactive docs, orphan mirrors, old errors."""
        with self.write():
            counts = {}
            inactive = [
                r[0] for r in self.conn.execute("SELECT id FROM documents WHERE active = 0")
            ]
            counts["deletedTags"] = self.conn.execute(
                "SELECT count(*) FROM doc_tags WHERE document_id IN (SELECT id FROM documents WHERE active = 0)"
            ).fetchone()[0]
            counts["deletedLinks"] = self.conn.execute(
                "SELECT count(*) FROM doc_links WHERE source_doc_id IN (SELECT id FROM documents WHERE active = 0)"
            ).fetchone()[0]
            self.conn.executemany(
                "DELETE FROM documents_fts WHERE rowid = ?", [(i,) for i in inactive]
            )
            self.conn.execute("DELETE FROM documents WHERE active = 0")
            counts["deletedDocuments"] = len(inactive)
            orphan = "SELECT mirror_hash FROM content WHERE mirror_hash NOT IN (SELECT mirror_hash FROM documents WHERE mirror_hash IS NOT NULL)"
            counts["deletedChunks"] = self.conn.execute(
                f"SELECT count(*) FROM content_chunks WHERE mirror_hash IN ({orphan})"
            ).fetchone()[0]
            counts["deletedContent"] = self.conn.execute(
                f"SELECT count(*) FROM ({orphan})"
            ).fetchone()[0]
            self.conn.execute(f"DELETE FROM content WHERE mirror_hash IN ({orphan})")
            cutoff = iso_from_ns(time.time_ns() - 30 * 86_400 * 10**9)
            counts["deletedErrors"] = self.conn.execute(
                "SELECT count(*) FROM ingest_errors WHERE occurred_at < ?", (cutoff,)
            ).fetchone()[0]
            self.conn.execute("DELETE FROM ingest_errors WHERE occurred_at < ?", (cutoff,))
        return counts

    def integrity_ok(self) -> bool:
        return self.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
