"""Numbered schema migrations. Each step is one function; every pending step runs
inside one transaction and ``schema_meta.version`` records the last applied one.
Never edit a released step: add the next number."""

from __future__ import annotations

from collections.abc import Callable

import apsw

from gno.adapters.sqlite import graph_state, knn
from gno.adapters.sqlite.cursor import all_rows
from gno.adapters.sqlite.fts_schema import rebuild_fts, rebuild_outline, reindex_invisible

Migration = Callable[[apsw.Connection, dict[str, str]], None]
MIGRATIONS: list[tuple[int, Migration]] = []


def migration(version: int) -> Callable[[Migration], Migration]:
    def register(fn: Migration) -> Migration:
        MIGRATIONS.append((version, fn))
        return fn

    return register


@migration(1)
def m001_initial(conn: apsw.Connection, settings: dict[str, str]) -> None:
    tokenize = settings["fts_tokenize"]
    conn.execute(
        f"""
        CREATE TABLE collections (
            name TEXT PRIMARY KEY,
            path TEXT NOT NULL,
            pattern TEXT NOT NULL,
            include_json TEXT NOT NULL,
            exclude_json TEXT NOT NULL,
            update_cmd TEXT,
            language_hint TEXT,
            synced_at TEXT
        );
        CREATE TABLE contexts (
            scope_type TEXT NOT NULL,
            scope_key TEXT NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (scope_type, scope_key, text)
        );
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            collection TEXT NOT NULL,
            rel_path TEXT NOT NULL,
            source_hash TEXT,
            source_mime TEXT NOT NULL,
            source_ext TEXT NOT NULL,
            source_size INTEGER NOT NULL,
            source_mtime_ns INTEGER NOT NULL,
            source_inode INTEGER,
            docid TEXT,
            uri TEXT NOT NULL,
            title TEXT,
            mirror_hash TEXT,
            converter_id TEXT,
            converter_version TEXT,
            language_hint TEXT,
            content_type TEXT,
            content_type_source TEXT,
            categories_json TEXT,
            author TEXT,
            frontmatter_date TEXT,
            date_fields_json TEXT,
            active INTEGER NOT NULL DEFAULT 1,
            last_error_code TEXT,
            last_error_message TEXT,
            last_error_at TEXT,
            ingest_version INTEGER NOT NULL,
            indexed_at TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (collection, rel_path)
        );
        CREATE INDEX documents_docid ON documents (docid);
        CREATE INDEX documents_mirror ON documents (mirror_hash);
        CREATE INDEX documents_recent ON documents (active, source_mtime_ns);
        CREATE TABLE content (
            mirror_hash TEXT PRIMARY KEY,
            markdown TEXT NOT NULL,
            line_count INTEGER NOT NULL
        );
        CREATE TABLE content_chunks (
            mirror_hash TEXT NOT NULL REFERENCES content (mirror_hash) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            pos INTEGER NOT NULL,
            end_pos INTEGER NOT NULL,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            language TEXT,
            PRIMARY KEY (mirror_hash, seq)
        ) WITHOUT ROWID;
        CREATE VIRTUAL TABLE documents_fts USING fts5 (
            filepath, title, body,
            content = '', contentless_delete = 1,
            tokenize = '{tokenize}'
        );
        CREATE TABLE doc_tags (
            document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            tag TEXT NOT NULL COLLATE NOCASE,
            source TEXT NOT NULL,
            PRIMARY KEY (document_id, tag)
        ) WITHOUT ROWID;
        CREATE INDEX doc_tags_tag ON doc_tags (tag);
        CREATE TABLE doc_links (
            id INTEGER PRIMARY KEY,
            source_doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            link_type TEXT NOT NULL,
            target_ref TEXT NOT NULL,
            target_ref_norm TEXT NOT NULL,
            target_anchor TEXT,
            target_collection TEXT,
            link_text TEXT,
            start_line INTEGER NOT NULL,
            start_col INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            end_col INTEGER NOT NULL,
            source TEXT NOT NULL DEFAULT 'parsed',
            UNIQUE (source_doc_id, start_line, start_col, link_type, source)
        );
        CREATE INDEX doc_links_target ON doc_links (target_ref_norm);
        CREATE TABLE ingest_errors (
            id INTEGER PRIMARY KEY,
            collection TEXT NOT NULL,
            rel_path TEXT NOT NULL,
            occurred_at TEXT NOT NULL,
            code TEXT NOT NULL,
            message TEXT NOT NULL,
            details_json TEXT
        );
        CREATE INDEX ingest_errors_when ON ingest_errors (occurred_at);
        """
    )


@migration(2)
def m002_vectors(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """Vectors are keyed by the embedded text's hash and model: re-chunking or moving
    a file re-embeds only text that changed, and identical chunks are embedded once.
    Each model's KNN index (a sqlite-vec table) is created on first use."""
    conn.execute(
        """
        CREATE TABLE embed_models (
            id INTEGER PRIMARY KEY,
            model_uri TEXT NOT NULL,
            fingerprint TEXT NOT NULL UNIQUE,
            dims INTEGER NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE text_vectors (
            model_id INTEGER NOT NULL REFERENCES embed_models (id) ON DELETE CASCADE,
            text_hash TEXT NOT NULL,
            embedding BLOB NOT NULL,
            PRIMARY KEY (model_id, text_hash)
        ) WITHOUT ROWID;
        CREATE TABLE chunk_vectors (
            id INTEGER PRIMARY KEY,
            model_id INTEGER NOT NULL REFERENCES embed_models (id) ON DELETE CASCADE,
            mirror_hash TEXT NOT NULL,
            seq INTEGER NOT NULL,
            text_hash TEXT NOT NULL,
            embedded_at TEXT NOT NULL,
            UNIQUE (model_id, mirror_hash, seq),
            FOREIGN KEY (mirror_hash, seq) REFERENCES content_chunks (mirror_hash, seq) ON DELETE CASCADE
        );
        CREATE INDEX chunk_vectors_chunk ON chunk_vectors (mirror_hash, seq);
        """
    )


@migration(3)
def m003_knn_codes(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """KNN over two-bit codes in 8 shards with exact rescoring (gno.core.knn_plan).

    ``text_vectors`` becomes a rowid table (rows of ~1.6 KB overflowed WITHOUT ROWID pages:
    3× the size and slow rescoring, bench/README.md) still unique per (model, text hash);
    ``chunk_vectors`` points at it by ``vector_id`` and its ids are AUTOINCREMENT, so the
    KNN rowid of a deleted chunk is never reused. Triggers keep ``embed_models.vectors``
    (chunk vectors per model, for the search planner) and ``knn_stale`` (codes to delete)
    in step, also when chunks cascade away without sqlite-vec loaded. Existing KNN tables
    are rebuilt here when sqlite-vec is loaded, else on its first load (``knn_layout``)."""
    conn.execute(
        """
        ALTER TABLE embed_models ADD COLUMN knn_layout INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE embed_models ADD COLUMN vectors INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE text_vectors_m3 (
            id INTEGER PRIMARY KEY,
            model_id INTEGER NOT NULL REFERENCES embed_models (id) ON DELETE CASCADE,
            text_hash TEXT NOT NULL,
            embedding BLOB NOT NULL,
            UNIQUE (model_id, text_hash)
        );
        INSERT INTO text_vectors_m3 (model_id, text_hash, embedding)
            SELECT model_id, text_hash, embedding FROM text_vectors;
        CREATE TABLE chunk_vectors_m3 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            model_id INTEGER NOT NULL REFERENCES embed_models (id) ON DELETE CASCADE,
            mirror_hash TEXT NOT NULL,
            seq INTEGER NOT NULL,
            vector_id INTEGER NOT NULL,
            embedded_at TEXT NOT NULL,
            UNIQUE (model_id, mirror_hash, seq),
            FOREIGN KEY (mirror_hash, seq) REFERENCES content_chunks (mirror_hash, seq) ON DELETE CASCADE
        );
        INSERT INTO chunk_vectors_m3 (id, model_id, mirror_hash, seq, vector_id, embedded_at)
            SELECT cv.id, cv.model_id, cv.mirror_hash, cv.seq, tv.id, cv.embedded_at
            FROM chunk_vectors cv JOIN text_vectors_m3 tv
                ON tv.model_id = cv.model_id AND tv.text_hash = cv.text_hash;
        DROP TABLE chunk_vectors;
        DROP TABLE text_vectors;
        ALTER TABLE text_vectors_m3 RENAME TO text_vectors;
        ALTER TABLE chunk_vectors_m3 RENAME TO chunk_vectors;
        CREATE INDEX chunk_vectors_chunk ON chunk_vectors (mirror_hash, seq);
        CREATE TABLE knn_stale (
            chunk_id INTEGER PRIMARY KEY,
            model_id INTEGER NOT NULL
        );
        CREATE TRIGGER chunk_vectors_added AFTER INSERT ON chunk_vectors BEGIN
            UPDATE embed_models SET vectors = vectors + 1 WHERE id = NEW.model_id;
        END;
        CREATE TRIGGER chunk_vectors_removed AFTER DELETE ON chunk_vectors BEGIN
            UPDATE embed_models SET vectors = vectors - 1 WHERE id = OLD.model_id;
            INSERT OR IGNORE INTO knn_stale (chunk_id, model_id) VALUES (OLD.id, OLD.model_id);
        END;
        UPDATE embed_models
            SET vectors = (SELECT count(*) FROM chunk_vectors cv WHERE cv.model_id = embed_models.id);
        """
    )
    if conn.execute("SELECT 1 FROM pragma_module_list WHERE name = 'vec0'").fetchone():
        for model_id, dims in all_rows(conn.execute("SELECT id, dims FROM embed_models")):
            knn.rebuild(conn, model_id, dims)


@migration(4)
def m004_expansion_cache(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """Answers of the expand model, so a repeated query costs no generation. ``key`` is
    SHA-256 of (prompt version, model, query, language, intent); ``id`` grows with each
    write, so the oldest entries are the ones pruned."""
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS expansion_cache (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            model_uri TEXT NOT NULL,
            answer_json TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        """
    )


@migration(5)
def m005_journal_and_relations(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """The knowledge delta journal (engine.md §8.1, spec/graph.md) and frontmatter relations.

    ``document_changes`` holds one row per lifecycle event, metadata only: the
    snapshots and the bounded structure delta as compact JSON, never a body; the path is
    found by ``path_key`` (a 63-bit hash of collection and path: an 8-byte index entry
    instead of the path, the journal costs less than 5 % of the index). ``sequence`` is
    AUTOINCREMENT so a pruned number is never reused (cursors stay monotonic);
    ``document_change_journal_state`` keeps the last sequence, the retention floor (every
    sequence at or below it was pruned) and the retained counters that retention checks.
    ``doc_relations`` keeps a document's ``relations:`` frontmatter as written; like
    links, they are resolved when read."""
    conn.execute(
        """
        CREATE TABLE document_changes (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            observed_ms INTEGER NOT NULL,
            kind TEXT NOT NULL,
            collection TEXT NOT NULL,
            path_key INTEGER NOT NULL,
            previous_key INTEGER,
            entry_json TEXT NOT NULL,
            bytes INTEGER NOT NULL
        );
        CREATE INDEX document_changes_path ON document_changes (path_key);
        CREATE TABLE document_change_journal_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            last_sequence INTEGER NOT NULL,
            retention_floor INTEGER NOT NULL,
            retained_entries INTEGER NOT NULL,
            retained_bytes INTEGER NOT NULL
        );
        INSERT INTO document_change_journal_state VALUES (1, 0, 0, 0, 0);
        CREATE TABLE doc_relations (
            source_doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            edge_type TEXT NOT NULL,
            target_ref TEXT NOT NULL,
            PRIMARY KEY (source_doc_id, edge_type, target_ref)
        ) WITHOUT ROWID;
        """
    )


@migration(6)
def m006_chunk_windows(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """A chunk may have several vectors per model: one per embedding window (``win``, 0 for
    the whole chunk; gno.core.windows). ``chunk_vectors`` is rebuilt with ``win`` in its
    unique key, ids (the KNN rowids) and the AUTOINCREMENT high-water mark kept, so no KNN
    code changes meaning and the triggers are recreated as they were."""
    conn.execute(
        """
        CREATE TABLE chunk_vectors_m6 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            model_id INTEGER NOT NULL REFERENCES embed_models (id) ON DELETE CASCADE,
            mirror_hash TEXT NOT NULL,
            seq INTEGER NOT NULL,
            win INTEGER NOT NULL DEFAULT 0,
            vector_id INTEGER NOT NULL,
            embedded_at TEXT NOT NULL,
            UNIQUE (model_id, mirror_hash, seq, win),
            FOREIGN KEY (mirror_hash, seq) REFERENCES content_chunks (mirror_hash, seq) ON DELETE CASCADE
        );
        INSERT INTO chunk_vectors_m6 (id, model_id, mirror_hash, seq, win, vector_id, embedded_at)
            SELECT id, model_id, mirror_hash, seq, 0, vector_id, embedded_at FROM chunk_vectors;
        DELETE FROM sqlite_sequence WHERE name = 'chunk_vectors_m6';
        INSERT INTO sqlite_sequence (name, seq)
            SELECT 'chunk_vectors_m6', seq FROM sqlite_sequence WHERE name = 'chunk_vectors';
        DROP TABLE chunk_vectors;
        ALTER TABLE chunk_vectors_m6 RENAME TO chunk_vectors;
        CREATE INDEX chunk_vectors_chunk ON chunk_vectors (mirror_hash, seq);
        CREATE TRIGGER chunk_vectors_added AFTER INSERT ON chunk_vectors BEGIN
            UPDATE embed_models SET vectors = vectors + 1 WHERE id = NEW.model_id;
        END;
        CREATE TRIGGER chunk_vectors_removed AFTER DELETE ON chunk_vectors BEGIN
            UPDATE embed_models SET vectors = vectors - 1 WHERE id = OLD.model_id;
            INSERT OR IGNORE INTO knn_stale (chunk_id, model_id) VALUES (OLD.id, OLD.model_id);
        END;
        """
    )


@migration(7)
def m007_write_requests(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """Receipts of writes sent with a ``requestId`` (capture, remember, document save and
    create): a replay answers the stored receipt instead of writing again, and
    ``GET /api/requests/{id}`` reports it. Newest 10,000 kept (spec/writes.md)."""
    conn.execute(
        """
        CREATE TABLE write_requests (
            request_id TEXT PRIMARY KEY,
            operation TEXT NOT NULL,
            receipt_json TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX write_requests_created ON write_requests (created_at);
        """
    )


@migration(8)
def m008_records(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """The record lane (spec/records.md): ``record_containers`` keeps each export
    container's stat, hash, adapter fingerprint and last import outcome (stat-first
    re-sync, and which records a vanished container leaves); ``doc_records`` keeps the
    provenance object of each record's virtual document. ``documents`` gains the
    frontmatter ``type`` and the fingerprint of the content-type rules that classified the
    document (a rules change re-ingests exactly those, spec/records.md), and the typed
    frontmatter metadata (``metadata_json``, GET /api/metadata)."""
    conn.execute(
        """
        CREATE TABLE record_containers (
            collection TEXT NOT NULL,
            rel_path TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            inode INTEGER,
            source_hash TEXT,
            fingerprint TEXT NOT NULL,
            ingest_version INTEGER NOT NULL,
            complete INTEGER NOT NULL,
            records INTEGER NOT NULL,
            error_code TEXT,
            error_message TEXT,
            imported_at TEXT NOT NULL,
            PRIMARY KEY (collection, rel_path)
        ) WITHOUT ROWID;
        CREATE TABLE doc_records (
            document_id INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
            container_path TEXT NOT NULL,
            record_json TEXT NOT NULL
        );
        ALTER TABLE documents ADD COLUMN frontmatter_type TEXT;
        ALTER TABLE documents ADD COLUMN content_rules_fp TEXT;
        ALTER TABLE documents ADD COLUMN metadata_json TEXT;
        """
    )


@migration(9)
def m009_egress(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """Collection egress policies (spec/egress.md): each collection's policy and revision
    (no row: ``local_only``, ``legacy_default``, 0) and the index's policy epoch. Receipts
    live in a file of their own (``gno/adapters/sqlite/egress.py`` says why)."""
    conn.execute(
        """
        CREATE TABLE egress_policies (
            collection TEXT PRIMARY KEY,
            policy TEXT NOT NULL CHECK (policy IN ('local_only', 'lan', 'remote')),
            revision INTEGER NOT NULL CHECK (revision >= 0),
            source TEXT NOT NULL,
            updated_at TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE egress_epoch (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            epoch INTEGER NOT NULL
        );
        INSERT INTO egress_epoch (id, epoch) VALUES (1, 0);
        """
    )


@migration(10)
def m010_fts_prefix_indexes(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """``documents_fts`` made again with FTS5 prefix indexes, refilled (``fts_schema``)."""
    rebuild_fts(conn, settings["fts_tokenize"])


@migration(11)
def m011_graph_state(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """``graph_state``: the token the graph answer cache is keyed by, drawn again by its
    triggers on every change the graph reads answer from (``graph_state.py`` says which)."""
    graph_state.create_graph_state(conn)


@migration(12)
def m012_outline_fts(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """``outline_fts``: titles, descriptions, headings, paths (``fts_schema.rebuild_outline``)."""
    rebuild_outline(conn, settings["fts_tokenize"])


@migration(13)
def m013_detected_chunk_languages(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """Chunk languages as detected; a collection's hint is applied on read (``chunk_languages``)."""
    from gno.adapters.sqlite.chunk_languages import redetect_hinted

    redetect_hinted(conn)


@migration(14)
def m014_invisible_characters(conn: apsw.Connection, settings: dict[str, str]) -> None:
    """Full-text rows of documents with invisible characters, indexed again without them."""
    reindex_invisible(conn)
