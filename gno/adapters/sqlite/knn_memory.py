"""Exact KNN from memory, for a process that searches one index state more than once.

An exact scan in SQL reads every float vector of the model for each query: over the
corpus index's 7,524 MiniLM vectors that took 20-27 ms, most of a `query` (bench/README.md,
"Query latency, session 12"). A resident process (server, MCP, SDK) that scans the same
index state a second time loads the model's vectors once into a normalized float32
matrix (~11 MB there) and ranks a query by one matrix product. The best candidates, with
a margin and every near tie, are then rescored in SQL with the scan's own distance, so
the answer is the scan's: the same neighbours, distances and order
(tests/adapters/test_knn_memory.py). A one-shot command never loads it: one scan costs
less than the load.

numpy is imported here only, on that second scan; `gno vsearch` and `gno query` start
without it (llama.cpp's embedder imports it anyway when it runs locally).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import apsw

if TYPE_CHECKING:
    import numpy as np

MAX_BYTES = 64 << 20  # a model with more vectors is scanned in SQL (or searched by codes)
MARGIN = 64  # candidates rescored beyond k
# numpy's float32 cosine and sqlite-vec's differ by ~1e-7; every candidate this close to
# the cut is rescored, so a tie or a rounding difference cannot drop a true neighbour.
TOLERANCE = 1e-4


def fits(total: int, dims: int) -> bool:
    return 0 < total * dims * 4 <= MAX_BYTES


class VectorMatrix:
    """One model's chunk vectors: their chunk ids, mirrors (as codes) and unit rows."""

    def __init__(self, ids: np.ndarray, codes: np.ndarray, mirrors: list[str], rows: np.ndarray):
        self.ids, self.codes, self.mirrors, self.rows = ids, codes, mirrors, rows
        self.active: np.ndarray | None = None  # rows of active documents, read on first use

    @classmethod
    def load(cls, conn: apsw.Connection, model_id: int, dims: int) -> VectorMatrix:
        import numpy as np

        ids: list[int] = []
        codes: list[int] = []
        blobs: list[bytes] = []
        mirrors: dict[str, int] = {}
        for chunk_id, mirror, blob in conn.execute(
            "SELECT cv.id, cv.mirror_hash, tv.embedding FROM chunk_vectors cv "
            "JOIN text_vectors tv ON tv.id = cv.vector_id WHERE cv.model_id = ?",
            (model_id,),
        ):
            ids.append(chunk_id)
            codes.append(mirrors.setdefault(mirror, len(mirrors)))
            blobs.append(blob)
        rows = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), dims).copy()
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        # a zero vector has no direction: its row stays zero (cosine 0, distance 1, as in SQL)
        np.divide(rows, norms, out=rows, where=norms > 0)
        return cls(
            np.array(ids, dtype=np.int64), np.array(codes, dtype=np.int64), list(mirrors), rows
        )

    def rows_of(self, allowed: set[str]) -> np.ndarray:
        """The mask of rows whose mirror is one of ``allowed``."""
        import numpy as np

        mask = np.fromiter((m in allowed for m in self.mirrors), bool, len(self.mirrors))
        return mask[self.codes]

    def candidates(self, query: bytes, k: int, keep: np.ndarray) -> list[int]:
        """Chunk ids of the rows ``keep`` allows whose cosine to ``query`` is within
        TOLERANCE of the (k + MARGIN)-th best: a superset of the exact top k."""
        import numpy as np

        count = int(keep.sum())
        if count == 0 or k <= 0:
            return []
        vector = np.frombuffer(query, dtype=np.float32)
        norm = float(np.linalg.norm(vector))
        # einsum's own loop, not matmul: OpenBLAS's worker threads burnt more CPU than the
        # whole search saved (query CPU p50 72 ms against 30 with them held to one thread)
        sims = np.einsum("ij,j->i", self.rows, vector / norm if norm > 0 else vector)
        sims[~keep] = -np.inf
        cut = min(count, k + MARGIN)
        best = np.argpartition(-sims, cut - 1)[:cut]
        floor = float(sims[best].min()) - TOLERANCE
        return list(map(int, self.ids[sims >= floor]))


def _allowed_mirrors(conn: apsw.Connection, where: str, params: tuple[Any, ...]) -> set[str]:
    return {
        str(row[0])
        for row in conn.execute(
            "SELECT DISTINCT mirror_hash FROM documents "
            f"WHERE +active = 1 AND mirror_hash IS NOT NULL {where}",
            params,
        )
    }


def candidates(
    matrix: VectorMatrix,
    conn: apsw.Connection,
    query: bytes,
    k: int,
    where: str,
    params: tuple[Any, ...],
) -> list[int]:
    """``matrix.candidates`` among the documents ``where`` allows. Without a filter the rows
    of active documents are read once: they cannot change while the matrix is current, and
    reading them took 5 ms a search."""
    if where:
        return matrix.candidates(query, k, matrix.rows_of(_allowed_mirrors(conn, where, params)))
    if matrix.active is None:
        matrix.active = matrix.rows_of(_allowed_mirrors(conn, "", ()))
    return matrix.candidates(query, k, matrix.active)
