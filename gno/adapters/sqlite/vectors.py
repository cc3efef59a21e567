"""Vectors of the store (mixed into SqliteStore): storage, embedding backlog, KNN.

``text_vectors`` is the source of truth, one float32 vector per (model, embedded
text hash), so identical texts are embedded and stored once; ``chunk_vectors`` says
which vector each chunk uses; each model's ``vec_<id>`` table holds two-bit codes for
KNN (``knn.py``: layout, search). sqlite-vec is loaded only by the commands that need
it, so ``gno search`` never pays for it.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import apsw

from gno.adapters.sqlite import knn
from gno.adapters.sqlite.cursor import all_rows, index_state, scalar
from gno.errors import IndexFileError, ValidationError
from gno.rows import BacklogRow, Neighbour, now_iso

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from gno.adapters.sqlite.knn_memory import VectorMatrix

MMAP_BYTES = 1 << 30


def vec_extension_path() -> str | None:
    """sqlite-vec's loadable library, found without importing the package (which imports numpy)."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(next(iter(spec.submodule_search_locations)), "vec0")


def _check_widths(blobs: Iterable[bytes], dims: int) -> None:
    """Every blob is a float32 vector of the model's width (else SQL fails half-way)."""
    for blob in blobs:
        if len(blob) != 4 * dims:
            raise ValidationError(
                f"A vector of {len(blob) // 4} dimensions for a model of {dims}: "
                "re-embed with the model the index was built with"
            )


class VectorStore:
    conn: apsw.Connection
    write: Callable[[], AbstractContextManager[None]]  # provided by SqliteStore
    _vec_loaded: bool | None
    _knn_checked = False
    # per model: the index state of its last exact scan, and its vectors once loaded
    _matrices: dict[int, tuple[tuple[int, int], VectorMatrix | None]] | None = None

    def load_vec(self) -> bool:
        """Load sqlite-vec into this connection once (False when it is not installed), and
        bring KNN tables of an older layout up to date (once per connection)."""
        if not self.load_vec_extension():
            return False
        if not self._knn_checked:
            self._knn_checked = True
            # Rescoring and exact scans read float vectors at random places: mapped pages
            # skip a read() and a copy each (exact scans about 2x faster at 100k vectors).
            self.conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            stale = all_rows(
                self.conn.execute(
                    "SELECT id, dims FROM embed_models WHERE knn_layout != ?", (knn.KNN_LAYOUT,)
                )
            )
            if stale:
                with self.write():
                    for model_id, dims in stale:
                        knn.rebuild(self.conn, model_id, dims)
        return True

    def load_vec_extension(self) -> bool:
        """Only load the library (migrations use it before the schema is current)."""
        if self._vec_loaded is None:
            path = vec_extension_path()
            try:
                if path is None:
                    raise apsw.Error("sqlite-vec is not installed")
                self.conn.enable_load_extension(True)
                self.conn.load_extension(path)
                self._vec_loaded = True
            except apsw.Error:
                self._vec_loaded = False
            finally:
                self.conn.enable_load_extension(False)
        return self._vec_loaded

    def embed_model(self, uri: str, fingerprint: str, dims: int) -> int:
        """The id of this (model, fingerprint), with its KNN table created on first use and
        cleared of codes whose chunks were deleted since (needs sqlite-vec loaded)."""
        row = self.conn.execute(
            "SELECT id FROM embed_models WHERE fingerprint = ?", (fingerprint,)
        ).fetchone()
        if row:
            model_id = int(row[0])
            if self.conn.execute(
                "SELECT 1 FROM knn_stale WHERE model_id = ? LIMIT 1", (model_id,)
            ).fetchone():
                with self.write():
                    knn.drop_stale(self.conn, model_id)
            return model_id
        with self.write():
            model_id = scalar(
                self.conn.execute(
                    "INSERT INTO embed_models (model_uri, fingerprint, dims, created_at, knn_layout) "
                    "VALUES (?, ?, ?, ?, ?) RETURNING id",
                    (uri, fingerprint, dims, now_iso(), knn.KNN_LAYOUT),
                )
            )
            knn.create(self.conn, model_id, dims)
        return int(model_id)

    def vector_count(self, model_id: int | None) -> int:
        """Chunk vectors of this model (kept by triggers: no scan)."""
        if model_id is None:
            return 0
        row = self.conn.execute(
            "SELECT vectors FROM embed_models WHERE id = ?", (model_id,)
        ).fetchone()
        return int(row[0]) if row else 0

    def latest_embed_model(self, uri: str) -> int | None:
        """The newest vector set made with this model URI (status never loads a model)."""
        row = self.conn.execute(
            "SELECT id FROM embed_models WHERE model_uri = ? ORDER BY id DESC LIMIT 1", (uri,)
        ).fetchone()
        return int(row[0]) if row else None

    def find_embed_model(self, fingerprint: str) -> int | None:
        row = self.conn.execute(
            "SELECT id FROM embed_models WHERE fingerprint = ?", (fingerprint,)
        ).fetchone()
        return int(row[0]) if row else None

    def embed_backlog(
        self, model_id: int, collection: str | None, after: tuple[str, int], limit: int
    ) -> list[BacklogRow]:
        """Chunks of active documents without a vector for this model, in (mirror_hash, seq) order."""
        scope = "AND collection = ?" if collection else ""
        params = (*((collection,) if collection else ()), *after, model_id, limit)
        return [
            tuple(row)
            for row in self.conn.execute(
                f"""
                SELECT c.mirror_hash, c.seq, c.pos, c.end_pos,
                    (SELECT d.title FROM documents d WHERE d.mirror_hash = c.mirror_hash AND d.active = 1
                     ORDER BY d.id LIMIT 1)
                FROM content_chunks c
                WHERE c.mirror_hash IN (SELECT mirror_hash FROM documents WHERE active = 1 {scope})
                    AND (c.mirror_hash, c.seq) > (?, ?)
                    AND NOT EXISTS (SELECT 1 FROM chunk_vectors v
                                    WHERE v.model_id = ? AND v.mirror_hash = c.mirror_hash AND v.seq = c.seq)
                ORDER BY c.mirror_hash, c.seq
                LIMIT ?
                """,
                params,
            )
        ]

    def embed_backlog_count(self, model_id: int, collection: str | None) -> int:
        scope = "AND collection = ?" if collection else ""
        return scalar(
            self.conn.execute(
                f"""
            SELECT count(*) FROM content_chunks c
            WHERE c.mirror_hash IN (SELECT mirror_hash FROM documents WHERE active = 1 {scope})
                AND NOT EXISTS (SELECT 1 FROM chunk_vectors v
                                WHERE v.model_id = ? AND v.mirror_hash = c.mirror_hash AND v.seq = c.seq)
            """,
                (*((collection,) if collection else ()), model_id),
            )
        )

    def pending_documents(
        self, model_id: int | None, collections: Sequence[str] | None = None
    ) -> int:
        """Active documents (of these collections, None: all) with at least one chunk
        lacking a vector for this model (every chunked document when there is no model yet)."""
        missing = (
            "NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.model_id = ? "
            "AND v.mirror_hash = c.mirror_hash AND v.seq = c.seq)"
            if model_id is not None
            else "1"
        )
        params: list[Any] = [model_id] if model_id is not None else []
        among = ""
        if collections is not None:
            among = "AND d.collection IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(list(collections)))
        return scalar(
            self.conn.execute(
                f"""
            SELECT count(*) FROM documents d
            WHERE d.active = 1 AND d.mirror_hash IS NOT NULL {among} AND EXISTS (
                SELECT 1 FROM content_chunks c WHERE c.mirror_hash = d.mirror_hash AND {missing})
            """,
                params,
            )
        )

    def chunk_vector_blobs(self, model_id: int, chunks: Sequence[tuple[str, int]]) -> list[bytes]:
        """The whole-chunk (window 0) vectors of these chunks that have one, in order."""
        out = []
        for mirror_hash, seq in chunks:
            row = self.conn.execute(
                "SELECT tv.embedding FROM chunk_vectors cv JOIN text_vectors tv ON tv.id = cv.vector_id "
                "WHERE cv.model_id = ? AND cv.mirror_hash = ? AND cv.seq = ? AND cv.win = 0",
                (model_id, mirror_hash, seq),
            ).fetchone()
            if row:
                out.append(bytes(row[0]))
        return out

    def window_vector_blobs(
        self, model_id: int, mirror_hash: str, seq: int
    ) -> list[tuple[int, bytes]]:
        """Every window's vector of one chunk for this model, as (window, vector), in window
        order (``query diagnose`` shows which window a chunk was scored by)."""
        rows = self.conn.execute(
            "SELECT cv.win, tv.embedding FROM chunk_vectors cv JOIN text_vectors tv "
            "ON tv.id = cv.vector_id WHERE cv.model_id = ? AND cv.mirror_hash = ? AND cv.seq = ? "
            "ORDER BY cv.win",
            (model_id, mirror_hash, seq),
        )
        return [(int(win), bytes(blob)) for win, blob in rows]

    def seed_text_vectors(self, model_id: int, source_id: int) -> int:
        """Copy another vector set's text vectors (same model, same width, another recipe)
        into this one, so texts both recipes share are not embedded again. Call inside a
        write transaction. Returns how many were copied."""
        self.conn.execute(
            "INSERT OR IGNORE INTO text_vectors (model_id, text_hash, embedding) "
            "SELECT ?, text_hash, embedding FROM text_vectors WHERE model_id = ?",
            (model_id, source_id),
        )
        return self.conn.changes()

    def known_text_hashes(self, model_id: int, text_hashes: Sequence[str]) -> set[str]:
        marks = ",".join("?" * len(text_hashes))
        rows = self.conn.execute(
            f"SELECT text_hash FROM text_vectors WHERE model_id = ? AND text_hash IN ({marks})",
            (model_id, *text_hashes),
        )
        return {r[0] for r in rows}

    def save_embeddings(
        self,
        model_id: int,
        new_vectors: dict[str, bytes],
        chunks: Sequence[tuple[str, int, str] | tuple[str, int, str, int]],
    ) -> None:
        """Store new text vectors and point chunks (mirror_hash, seq, text_hash[, window])
        at them, KNN codes included; every text hash must be stored already or be in
        ``new_vectors``. Window 0 (the default) is the whole chunk; a chunk longer than the
        model reads has more (gno.core.windows). Call inside a write transaction, with
        sqlite-vec loaded. Bulk statements only."""
        dims = self._dims(model_id)
        _check_widths(new_vectors.values(), dims)
        knn.drop_stale(self.conn, model_id)
        self.conn.executemany(
            "INSERT OR IGNORE INTO text_vectors (model_id, text_hash, embedding) VALUES (?, ?, ?)",
            [(model_id, h, blob) for h, blob in new_vectors.items()],
        )
        # AUTOINCREMENT: the new chunk vectors are exactly those above the current maximum.
        before = scalar(self.conn.execute("SELECT coalesce(max(id), 0) FROM chunk_vectors"))
        ts = now_iso()
        self.conn.executemany(
            "INSERT INTO chunk_vectors (model_id, mirror_hash, seq, win, vector_id, embedded_at) "
            "VALUES (?1, ?2, ?3, ?6, "
            "(SELECT id FROM text_vectors WHERE model_id = ?1 AND text_hash = ?4), ?5)",
            [
                (model_id, row[0], row[1], row[2], ts, row[3] if len(row) > 3 else 0)
                for row in chunks
            ],
        )
        knn.index_chunks(self.conn, model_id, dims, after_id=before)

    def clear_vectors(self, model_id: int, collection: str | None = None) -> int:
        """Forget chunk vectors (all, or those of one collection's mirrors) and their codes;
        text vectors stay for reuse. Needs sqlite-vec loaded."""
        with self.write():
            if collection:
                self.conn.execute(
                    "DELETE FROM chunk_vectors WHERE model_id = ? AND mirror_hash IN "
                    "(SELECT mirror_hash FROM documents WHERE collection = ?)",
                    (model_id, collection),
                )
                removed = self.conn.changes()
                knn.drop_stale(self.conn, model_id)
            else:
                self.conn.execute("DELETE FROM chunk_vectors WHERE model_id = ?", (model_id,))
                removed = self.conn.changes()
                knn.rebuild(
                    self.conn, model_id, self._dims(model_id)
                )  # empty: cheaper than deletes
        return removed

    def clear_collection_vectors(self, model_id: int, collection: str) -> tuple[int, int]:
        """Forget this model's vectors of one collection's chunks, except text that active
        documents of another collection also use. Returns (removed, kept because shared).
        Needs sqlite-vec loaded."""
        mine = "SELECT mirror_hash FROM documents WHERE collection = :c AND mirror_hash IS NOT NULL"
        shared = (
            "SELECT mirror_hash FROM documents WHERE collection != :c AND active = 1 "
            "AND mirror_hash IS NOT NULL"
        )
        args = {"m": model_id, "c": collection}
        with self.write():
            kept = scalar(
                self.conn.execute(
                    f"SELECT count(*) FROM chunk_vectors WHERE model_id = :m "
                    f"AND mirror_hash IN ({mine}) AND mirror_hash IN ({shared})",
                    args,
                )
            )
            self.conn.execute(
                f"DELETE FROM chunk_vectors WHERE model_id = :m "
                f"AND mirror_hash IN ({mine}) AND mirror_hash NOT IN ({shared})",
                args,
            )
            removed = self.conn.changes()
            knn.drop_stale(self.conn, model_id)
        return removed, kept

    def repair_knn(self, rebuild: bool) -> list[tuple[str, int, int, int]]:
        """Bring every vector set's KNN table in line with its stored vectors (``rebuild``:
        drop and refill it), all in one transaction; per set (model URI, codes added,
        codes removed, codes now). Needs sqlite-vec loaded."""
        done, uri = [], ""
        sets = "SELECT id, model_uri, dims FROM embed_models ORDER BY id"
        try:
            with self.write():
                for model_id, uri, dims in all_rows(self.conn.execute(sets)):
                    if type(dims) is not int or dims <= 0:  # a damaged record, no rebuild fixes
                        why = apsw.SQLError(f"its recorded width is {dims!r}")
                        raise IndexFileError(knn.repair_error(uri, why, rebuild=True))
                    if rebuild:
                        knn.rebuild(self.conn, model_id, dims)
                        added = removed = 0
                    else:
                        added, removed = knn.sync(self.conn, model_id, dims)
                    done.append((uri, added, removed, knn.vector_rows(self.conn, model_id)))
        except apsw.SQLError as exc:  # nothing changed: one transaction
            raise IndexFileError(knn.repair_error(uri, exc, rebuild)) from exc
        return done

    def embed_model_uris(self) -> dict[int, str]:
        return dict(all_rows(self.conn.execute("SELECT id, model_uri FROM embed_models")))

    def knn(
        self,
        model_id: int,
        queries: Sequence[bytes],
        k: int,
        where: str = "",
        params: Sequence[Any] = (),
    ) -> list[list[Neighbour]]:
        """For each query vector, its k nearest chunks of active documents as (mirror_hash,
        seq, cosine distance), nearest first, ties by chunk key. ``where`` (an ``AND …``
        condition on ``documents`` with positional ``params``) restricts the candidates
        before k applies: small allowed sets are scanned exactly, larger ones searched with
        growing budgets (``knn.KnnSearch``)."""
        dims = self._dims(model_id)
        _check_widths(queries, dims)
        total = self.vector_count(model_id)
        search = knn.KnnSearch(
            self.conn,
            model_id,
            dims,
            total,
            where,
            params,
            memory=lambda: self._vectors_in_memory(model_id, dims, total),
        )
        return [search.search(query, k) for query in queries]

    def _vectors_in_memory(self, model_id: int, dims: int, total: int) -> VectorMatrix | None:
        """The model's vectors in memory from the second search that scans them exactly in
        one index state (a resident process), else None (``knn_memory`` says why)."""
        from gno.adapters.sqlite import knn_memory

        if not knn_memory.fits(total, dims):
            return None
        if self._matrices is None:
            self._matrices = {}
        state = index_state(self.conn)
        kept = self._matrices.get(model_id)
        if kept is None or kept[0] != state:
            self._matrices[model_id] = (state, None)  # the first scan: SQL
            return None
        if kept[1] is None:
            kept = self._matrices[model_id] = (
                state,
                knn_memory.VectorMatrix.load(self.conn, model_id, dims),
            )
        return kept[1]

    def _dims(self, model_id: int) -> int:
        return int(
            scalar(self.conn.execute("SELECT dims FROM embed_models WHERE id = ?", (model_id,)))
        )

    def embedded_chunks(self, model_id: int | None) -> dict[str, int]:
        """Per collection: chunks of active documents that have a vector for this model."""
        if model_id is None:
            return {}
        rows = self.conn.execute(
            "SELECT d.collection, count(*) FROM (SELECT DISTINCT collection, mirror_hash FROM documents "
            "WHERE active = 1 AND mirror_hash IS NOT NULL) d JOIN chunk_vectors v "
            "ON v.mirror_hash = d.mirror_hash AND v.model_id = ? AND v.win = 0 "
            "GROUP BY d.collection",
            (model_id,),
        )
        return dict(all_rows(rows))

    def chunk_embeddings(
        self, model_id: int, mirror_hash: str, first_only: bool = False
    ) -> list[bytes]:
        """Every stored chunk vector of one mirror for this model, in chunk order
        (``first_only``: the seq 0 chunk's, if embedded)."""
        first = "AND cv.seq = 0" if first_only else ""
        return [
            row[0]
            for row in self.conn.execute(
                "SELECT tv.embedding FROM chunk_vectors cv JOIN text_vectors tv ON tv.id = cv.vector_id "
                f"WHERE cv.model_id = ? AND cv.mirror_hash = ? {first} ORDER BY cv.seq",
                (model_id, mirror_hash),
            )
        ]
