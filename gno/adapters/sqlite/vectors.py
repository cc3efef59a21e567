"""Vectors of the store (mixed into SqliteStore): storage, embedding backlog, KNN.

``text_vectors`` is the source of truth, one float32 vector per (model, embedded
text hash); ``chunk_vectors`` says which vector each chunk uses; each model gets a
sqlite-vec ``vec0`` table (rowid = ``chunk_vectors.id``) for KNN. sqlite-vec is
loaded only by the commands that need it, so ``gno search`` never pays for it.
"""

from __future__ import annotations

import importlib.util
import os
from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import apsw

from gno.adapters.sqlite.rows import now_iso

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

# A chunk waiting for a vector: (mirror_hash, seq, pos, end, title of a document using it)
BacklogRow = tuple[str, int, int, int, str | None]


def vec_extension_path() -> str | None:
    """sqlite-vec's loadable library, found without importing the package (which imports numpy)."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(next(iter(spec.submodule_search_locations)), "vec0")


def pack(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


def unpack(blob: bytes) -> list[float]:
    return array("f", blob).tolist()


class VectorStore:
    conn: apsw.Connection
    write: Callable[[], AbstractContextManager[None]]  # provided by SqliteStore
    _vec_loaded: bool | None

    def load_vec(self) -> bool:
        """Load sqlite-vec into this connection once; False when it is not installed."""
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
        """The id of this (model, fingerprint), with its KNN table, created on first use."""
        row = self.conn.execute(
            "SELECT id FROM embed_models WHERE fingerprint = ?", (fingerprint,)
        ).fetchone()
        if row:
            return int(row[0])
        with self.write():
            model_id = self.conn.execute(
                "INSERT INTO embed_models (model_uri, fingerprint, dims, created_at) VALUES (?, ?, ?, ?) RETURNING id",
                (uri, fingerprint, dims, now_iso()),
            ).fetchone()[0]
            self.conn.execute(
                f"CREATE VIRTUAL TABLE vec_{model_id} USING vec0(embedding float[{dims}] distance_metric=cosine)"
            )
        return int(model_id)

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
        return self.conn.execute(
            f"""
            SELECT count(*) FROM content_chunks c
            WHERE c.mirror_hash IN (SELECT mirror_hash FROM documents WHERE active = 1 {scope})
                AND NOT EXISTS (SELECT 1 FROM chunk_vectors v
                                WHERE v.model_id = ? AND v.mirror_hash = c.mirror_hash AND v.seq = c.seq)
            """,
            (*((collection,) if collection else ()), model_id),
        ).fetchone()[0]

    def known_text_hashes(self, model_id: int, text_hashes: Sequence[str]) -> set[str]:
        marks = ",".join("?" * len(text_hashes))
        rows = self.conn.execute(
            f"SELECT text_hash FROM text_vectors WHERE model_id = ? AND text_hash IN ({marks})",
            (model_id, *text_hashes),
        )
        return {r[0] for r in rows}

    def save_embeddings(
        self, model_id: int, new_vectors: dict[str, bytes], chunks: Sequence[tuple[str, int, str]]
    ) -> None:
        """Store new text vectors and point chunks (mirror_hash, seq, text_hash) at them, KNN included."""
        ts = now_iso()
        self.conn.executemany(
            "INSERT OR IGNORE INTO text_vectors (model_id, text_hash, embedding) VALUES (?, ?, ?)",
            [(model_id, h, blob) for h, blob in new_vectors.items()],
        )
        ids = [
            self.conn.execute(
                "INSERT INTO chunk_vectors (model_id, mirror_hash, seq, text_hash, embedded_at) "
                "VALUES (?, ?, ?, ?, ?) RETURNING id",
                (model_id, mirror_hash, seq, text_hash, ts),
            ).fetchone()[0]
            for mirror_hash, seq, text_hash in chunks
        ]
        marks = ",".join("?" * len(ids))
        self.conn.execute(
            f"INSERT INTO vec_{model_id} (rowid, embedding) SELECT cv.id, tv.embedding FROM chunk_vectors cv "
            f"JOIN text_vectors tv ON tv.model_id = cv.model_id AND tv.text_hash = cv.text_hash "
            f"WHERE cv.id IN ({marks})",
            tuple(ids),
        )

    def clear_vectors(self, model_id: int, collection: str | None = None) -> int:
        """Forget chunk vectors (all, or those of one collection's mirrors); text vectors stay for reuse."""
        scope = (
            "AND mirror_hash IN (SELECT mirror_hash FROM documents WHERE collection = ?)"
            if collection
            else ""
        )
        params = (model_id, *((collection,) if collection else ()))
        with self.write():
            ids = [
                r[0]
                for r in self.conn.execute(
                    f"SELECT id FROM chunk_vectors WHERE model_id = ? {scope}", params
                )
            ]
            self.conn.executemany(
                f"DELETE FROM vec_{model_id} WHERE rowid = ?", [(i,) for i in ids]
            )
            self.conn.executemany("DELETE FROM chunk_vectors WHERE id = ?", [(i,) for i in ids])
        return len(ids)

    def knn(self, model_id: int, query: bytes, k: int) -> list[tuple[str, int, float]]:
        """Nearest chunks (mirror_hash, seq, cosine distance), nearest first, ties by chunk key."""
        rows = self.conn.execute(
            f"SELECT cv.mirror_hash, cv.seq, knn.distance FROM "
            f"(SELECT rowid, distance FROM vec_{model_id} WHERE embedding MATCH ? AND k = ?) knn "
            f"JOIN chunk_vectors cv ON cv.id = knn.rowid ORDER BY knn.distance, cv.mirror_hash, cv.seq",
            (query, k),
        )
        return [(r[0], r[1], float(r[2])) for r in rows]

    def embedded_chunks(self, model_id: int | None) -> dict[str, int]:
        """Per collection: chunks of active documents that have a vector for this model."""
        if model_id is None:
            return {}
        rows = self.conn.execute(
            "SELECT d.collection, count(*) FROM (SELECT DISTINCT collection, mirror_hash FROM documents "
            "WHERE active = 1 AND mirror_hash IS NOT NULL) d JOIN chunk_vectors v "
            "ON v.mirror_hash = d.mirror_hash AND v.model_id = ? GROUP BY d.collection",
            (model_id,),
        )
        return dict(rows.fetchall())
