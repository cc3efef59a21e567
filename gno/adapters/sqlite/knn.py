"""The KNN index of one embedding model: two-bit codes in a sharded sqlite-vec table.

``vec_<model id>`` is ``vec0(shard integer partition key, embedding bit[2 × padded dims])``
with rowid = ``chunk_vectors.id`` and shard = rowid % SHARDS (``gno.core.knn_plan`` says why).
It is derived data: rebuilt from ``chunk_vectors`` + ``text_vectors`` whenever its layout
version (``embed_models.knn_layout``) is not ``KNN_LAYOUT``. Codes are computed in SQL by
sqlite-vec itself, so writes stay bulk statements and no numpy is needed.

Rescoring reads exact vectors through ``chunk_vectors.vector_id`` → ``text_vectors.id``: two
integer-key lookups per candidate, 1 ms more than a float table keyed by the chunk id for 200
candidates at 100k (measured), without storing each vector twice.

Deleted chunk vectors (sync and cleanup cascade from ``content_chunks``, which must work
without sqlite-vec loaded) are logged in ``knn_stale`` by a trigger and removed from the vec
table by the next write that has sqlite-vec (``drop_stale``); chunk ids are AUTOINCREMENT, so
a stale code can never be mistaken for a newer chunk, and searches join it away meanwhile.
"""

from __future__ import annotations

import heapq
import json
from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import apsw

from gno.adapters.sqlite.cursor import scalar
from gno.core.knn_plan import (
    SHARDS,
    code_dims,
    code_edge,
    exact_limit,
    keep_coarse,
    next_shard_k,
    shard_k,
)
from gno.rows import Neighbour

if TYPE_CHECKING:
    from gno.adapters.sqlite.knn_memory import VectorMatrix

KNN_LAYOUT = 1  # bump when the vec table changes shape; stale tables are rebuilt on load


# A zero vector has no direction: vec_distance_cosine returns NULL. It ranks as orthogonal.
DISTANCE = "coalesce(vec_distance_cosine(tv.embedding, ?), 1.0)"


def table(model_id: int) -> str:
    return f"vec_{int(model_id)}"


def code_params(dims: int) -> dict[str, Any]:
    """The constant vectors -e and +e (padded) for ``code_sql``."""
    width, edge = code_dims(dims), code_edge(dims)
    return {
        "lo": array("f", [-edge] * width).tobytes(),
        "hi": array("f", [edge] * width).tobytes(),
    }


def code_sql(vector: str, dims: int) -> str:
    """SQL turning a float32 blob expression into its two-bit code: bit i is x_i > -e, bit
    w + i is x_i > +e (w = padded width), on the unit vector, so unnormalized embedders work
    too. Hamming distance between codes is the L1 distance between 3-level quantizations.

    Never put this behind ORDER BY in an INSERT: SQLite's sorter drops sqlite-vec's subtype
    and vec0 then rejects the blob as a float vector."""
    unit = f"vec_normalize({vector})"
    pad = 4 * (code_dims(dims) - dims)
    if pad:  # `||` joins blobs as text; CAST gives the bytes back
        unit = f"CAST({unit} || zeroblob({pad}) AS BLOB)"
    return (
        f"vec_bit(CAST(vec_quantize_binary(vec_sub({unit}, :lo)) "
        f"|| vec_quantize_binary(vec_sub({unit}, :hi)) AS BLOB))"
    )


def create(conn: apsw.Connection, model_id: int, dims: int) -> None:
    conn.execute(
        f"CREATE VIRTUAL TABLE {table(model_id)} USING vec0("
        f"shard integer partition key, embedding bit[{2 * code_dims(dims)}])"
    )


def index_chunks(conn: apsw.Connection, model_id: int, dims: int, after_id: int = 0) -> None:
    """Add codes for this model's chunk vectors with id > after_id, in one statement."""
    conn.execute(
        f"INSERT INTO {table(model_id)} (rowid, shard, embedding) "
        f"SELECT cv.id, cv.id % {SHARDS}, {code_sql('tv.embedding', dims)} "
        f"FROM chunk_vectors cv JOIN text_vectors tv ON tv.id = cv.vector_id "
        f"WHERE cv.model_id = :model AND cv.id > :after",
        {"model": model_id, "after": after_id, **code_params(dims)},
    )


def rebuild(conn: apsw.Connection, model_id: int, dims: int) -> None:
    """Drop and refill the model's vec table from the exact vectors (idempotent)."""
    conn.execute(f"DROP TABLE IF EXISTS {table(model_id)}")
    create(conn, model_id, dims)
    index_chunks(conn, model_id, dims)
    conn.execute("DELETE FROM knn_stale WHERE model_id = ?", (model_id,))
    conn.execute("UPDATE embed_models SET knn_layout = ? WHERE id = ?", (KNN_LAYOUT, model_id))


def sync(conn: apsw.Connection, model_id: int, dims: int) -> tuple[int, int]:
    """Make the model's vec table hold a code for exactly its chunk vectors: codes of chunk
    vectors it lacks are added, codes of no chunk vector (orphans) deleted. A missing table
    is made and filled. Returns (added, removed). Call inside a write transaction."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE name = ?", (table(model_id),)
    ).fetchone()
    if not exists:
        rebuild(conn, model_id, dims)
        return vector_rows(conn, model_id), 0
    want = {
        r[0] for r in conn.execute("SELECT id FROM chunk_vectors WHERE model_id = ?", (model_id,))
    }
    have = {r[0] for r in conn.execute(f"SELECT rowid FROM {table(model_id)}")}
    orphans, missing = have - want, want - have
    if orphans:
        conn.executemany(f"DELETE FROM {table(model_id)} WHERE rowid = ?", [(i,) for i in orphans])
    if missing:
        conn.execute(
            f"INSERT INTO {table(model_id)} (rowid, shard, embedding) "
            f"SELECT cv.id, cv.id % {SHARDS}, {code_sql('tv.embedding', dims)} "
            f"FROM chunk_vectors cv JOIN text_vectors tv ON tv.id = cv.vector_id "
            f"WHERE cv.id IN (SELECT value FROM json_each(:ids))",
            {"ids": json.dumps(sorted(missing)), **code_params(dims)},
        )
    conn.execute("DELETE FROM knn_stale WHERE model_id = ?", (model_id,))
    return len(missing), len(orphans)


def repair_error(uri: str, exc: Exception, rebuild: bool) -> str:
    """Why `gno vec sync|rebuild` changed nothing, and what helps. A rebuild reads only the
    stored vectors, so when it fails they (or their set's record) do not fit their set, and
    advising another rebuild would send the user round in circles."""
    if not rebuild:
        return (
            f"The vector index of {uri} cannot be repaired ({exc}); nothing was changed and the "
            "stored vectors are intact: `gno vec rebuild` recreates it"
        )
    return (
        f"The vector index of {uri} cannot be rebuilt ({exc}); nothing was changed. Its stored "
        "vectors do not fit their vector set, so the index file is damaged: `gno reset "
        "--confirm --keep-config`, then `gno update` and `gno embed`, make it again"
    )


def vector_rows(conn: apsw.Connection, model_id: int) -> int:
    """Codes in the model's vec table."""
    return int(scalar(conn.execute(f"SELECT count(*) FROM {table(model_id)}")))


def drop_stale(conn: apsw.Connection, model_id: int) -> None:
    """Remove codes of deleted chunk vectors (point deletes: vec0 scans the whole table for
    ``rowid IN (...)``, which costs more unless most rows go, and then callers rebuild)."""
    stale = [
        (r[0],)
        for r in conn.execute("SELECT chunk_id FROM knn_stale WHERE model_id = ?", (model_id,))
    ]
    if stale:
        conn.executemany(f"DELETE FROM {table(model_id)} WHERE rowid = ?", stale)
        conn.execute("DELETE FROM knn_stale WHERE model_id = ?", (model_id,))


class KnnSearch:
    """Nearest chunks of one model for one or more query vectors, restricted to chunks of
    active documents, and to those matching an owner-filter condition when one is given.

    Plan per query (costs in ``gno.core.knn_plan``): small or narrow tables are scanned
    exactly. Otherwise a coarse round (codes, then the filter and exact distances for the
    candidates only) answers unfiltered and non-selective searches at unfiltered cost. When
    it finds too few allowed candidates, the allowed share is estimated from document counts
    and the allowed chunks are scanned exactly if that is cheaper than widening the shard
    budgets, which happens otherwise until the codes hold enough allowed candidates.

    Invariant: every neighbour belongs to an active document that passes the filter; results
    are ordered by (distance, mirror_hash, seq); there are min(k, allowed) of them whenever
    the allowed chunks are found (always for exact scans and exhausted codes).
    """

    def __init__(
        self,
        conn: apsw.Connection,
        model_id: int,
        dims: int,
        total: int,
        where: str = "",
        params: Sequence[Any] = (),
        memory: Callable[[], VectorMatrix | None] | None = None,
    ) -> None:
        """``where`` is an ``AND …`` condition on ``documents`` (``Filters.sql()``) with
        positional ``params``; it is evaluated inside ``FROM documents`` subqueries, where
        its unqualified columns resolve to ``documents``. Named bindings cannot mix with
        its ``?`` marks, so every statement here binds positionally. ``memory`` gives the
        model's vectors in memory when the store keeps them (``knn_memory``); asked once,
        on the first exact scan."""
        self.conn, self.model_id, self.dims, self.total = conn, model_id, dims, total
        self.code_params = code_params(dims)
        self.where, self.params = where, tuple(params)
        self._allowed: int | None = None
        self._memory = memory
        self._matrix: VectorMatrix | None = None

    def search(self, query: bytes, k: int) -> list[Neighbour]:
        if k <= 0 or self.total <= 0:
            return []
        if exact_limit(self.total, k, self.dims) >= self.total:
            return self._exact(query, k)
        return self._coarse(query, k)

    def _coarse(self, query: bytes, k: int) -> list[Neighbour]:
        code = scalar(
            self.conn.execute(
                f"SELECT CAST({code_sql(':q', self.dims)} AS BLOB)",
                {"q": query, **self.code_params},
            )
        )
        per_shard = shard_k(k)
        target = SHARDS * per_shard  # as many allowed candidates as an unfiltered search sees
        while True:
            seen, allowed = self._coarse_round(code, query, per_shard)
            if len(allowed) >= target or all(n < per_shard for n in seen):
                return heapq.nsmallest(k, allowed, key=_order)
            per_shard = next_shard_k(per_shard, len(allowed), target)
            rows = self._allowed_rows()
            if rows <= exact_limit(self.total, k, self.dims) or not keep_coarse(
                self.total, rows, per_shard
            ):
                return self._exact(query, k)

    def _allowed_rows(self) -> int:
        """Estimated allowed chunks: the allowed share of active documents times all chunk
        vectors (counting documents is far cheaper than mapping them to chunks)."""
        if self._allowed is None:
            count = "SELECT count(*) FROM documents WHERE active = 1 AND mirror_hash IS NOT NULL"
            allowed = scalar(self.conn.execute(f"{count} {self.where}", self.params))
            every = scalar(self.conn.execute(count)) if self.where else allowed
            self._allowed = round(self.total * allowed / every) if every else 0
        return self._allowed

    def _exact(self, query: bytes, k: int) -> list[Neighbour]:
        """Every allowed chunk by exact distance, driven from the allowed documents (or the
        best of them by the vectors in memory, rescored here: the same answer)."""
        if self._memory is not None:  # asked once per search (several query vectors share it)
            self._matrix, self._memory = self._memory(), None
        if self._matrix is not None:
            from gno.adapters.sqlite.knn_memory import candidates

            ids = candidates(self._matrix, self.conn, query, k, self.where, self.params)
            return heapq.nsmallest(k, self._rescored(ids, query), key=_order)
        rows = self.conn.execute(
            f"SELECT cv.mirror_hash, cv.seq, {DISTANCE} AS distance FROM chunk_vectors cv "
            "JOIN text_vectors tv ON tv.id = cv.vector_id "
            "WHERE cv.model_id = ? AND cv.mirror_hash IN (SELECT mirror_hash FROM documents "
            f"WHERE +active = 1 AND mirror_hash IS NOT NULL {self.where}) "
            "ORDER BY distance, cv.mirror_hash, cv.seq LIMIT ?",
            (query, self.model_id, *self.params, k),
        )
        return [(r[0], r[1], float(r[2])) for r in rows]

    def _coarse_round(
        self, code: bytes, query: bytes, per_shard: int
    ) -> tuple[list[int], list[Neighbour]]:
        """Candidates seen per shard, and the allowed ones with exact distances (the filter
        and the float vectors are read for candidates only)."""
        shards = " UNION ALL ".join(
            f"SELECT rowid FROM {table(self.model_id)} "
            f"WHERE embedding MATCH vec_bit(?1) AND k = ?2 AND shard = {s}"
            for s in range(SHARDS)
        )
        ids = [r[0] for r in self.conn.execute(shards, (code, per_shard))]
        seen = [0] * SHARDS
        for chunk_id in ids:  # shard = id % SHARDS by construction
            seen[chunk_id % SHARDS] += 1
        return seen, self._rescored(ids, query)

    def _rescored(self, ids: list[int], query: bytes) -> list[Neighbour]:
        """These chunk vectors with their exact distances, those of allowed documents only."""
        if not ids:
            return []
        # Ids come from the index itself (integers), so they go into the SQL as literals.
        # A stale code (its chunk vector deleted, the code not yet) finds no row here.
        # `+documents.active`: otherwise SQLite probes documents_recent (active, mtime) and
        # reads every active document per candidate instead of using documents_mirror.
        rows = self.conn.execute(
            f"SELECT cv.mirror_hash, cv.seq, {DISTANCE} FROM chunk_vectors cv "
            "JOIN text_vectors tv ON tv.id = cv.vector_id "
            f"WHERE cv.id IN ({','.join(map(str, ids))}) AND EXISTS (SELECT 1 FROM documents "
            "WHERE documents.mirror_hash = cv.mirror_hash AND +documents.active = 1 "
            f"{self.where})",
            (query, *self.params),
        )
        return [(r[0], r[1], float(r[2])) for r in rows]


def _order(n: Neighbour) -> tuple[float, str, int]:
    """Nearest first, ties by chunk key: the exact scan's ORDER BY."""
    return n[2], n[0], n[1]
