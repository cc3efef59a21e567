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
from array import array
from collections.abc import Sequence
from typing import Any

import apsw

from gno.core.knn_plan import (
    SHARDS,
    code_dims,
    code_edge,
    exact_limit,
    next_shard_k,
    shard_k,
)

KNN_LAYOUT = 1  # bump when the vec table changes shape; stale tables are rebuilt on load

# A neighbour: (mirror_hash, seq, cosine distance)
Neighbour = tuple[str, int, float]

# A zero vector has no direction: vec_distance_cosine returns NULL. It ranks as orthogonal.
DISTANCE = "coalesce(vec_distance_cosine(tv.embedding, :q), 1.0)"
# `+d.active`: without the unary plus SQLite probes documents_recent (active, mtime) and
# scans every active document per chunk instead of using documents_mirror.
ACTIVE = "EXISTS (SELECT 1 FROM documents d WHERE d.mirror_hash = cv.mirror_hash AND +d.active = 1)"
ALLOWED = "cv.mirror_hash IN temp.knn_allowed"


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
    dims + i is x_i > +e, on the unit vector (so unnormalized embedders work too). Hamming
    distance between codes is then the L1 distance between 3-level quantizations.

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
    """Nearest chunks of one model for one or more query vectors, optionally restricted to
    the chunks of active documents matching a ``documents`` condition (owner filters).

    Invariant: every neighbour belongs to an active document (and, with a filter, passes it);
    results are ordered by (distance, mirror_hash, seq). Exact scans return min(k, allowed)
    neighbours; coarse searches widen their shard budgets until they have as many allowed
    candidates as an unfiltered search would, or every code was seen."""

    def __init__(self, conn: apsw.Connection, model_id: int, dims: int, total: int) -> None:
        self.conn, self.model_id, self.dims, self.total = conn, model_id, dims, total
        self.params = code_params(dims)
        self.filtered = False
        self.source, self.condition, self.allowed = "chunk_vectors cv", f"cv.model_id = :model AND {ACTIVE}", ACTIVE  # fmt: skip

    def restrict(self, where: str, params: Sequence[Any]) -> None:
        """Only chunks of active documents matching ``where`` (an ``AND …`` condition on
        ``documents``, as ``Filters.sql()`` gives) are candidates: the allowed mirrors go to
        a temp table once, for all the searches that follow."""
        self.conn.execute(
            "CREATE TEMP TABLE IF NOT EXISTS knn_allowed (mirror_hash TEXT PRIMARY KEY) WITHOUT ROWID;"
            "DELETE FROM temp.knn_allowed"
        )
        self.conn.execute(
            "INSERT OR IGNORE INTO temp.knn_allowed SELECT mirror_hash FROM documents "
            f"WHERE active = 1 AND mirror_hash IS NOT NULL {where}",
            tuple(params),
        )
        self.filtered = True
        self.source = (
            "temp.knn_allowed a JOIN chunk_vectors cv "
            "ON cv.model_id = :model AND cv.mirror_hash = a.mirror_hash"
        )
        self.condition, self.allowed = "1", ALLOWED

    def release(self) -> None:
        if self.filtered:
            self.conn.execute("DELETE FROM temp.knn_allowed")

    def search(self, query: bytes, k: int) -> list[Neighbour]:
        if k <= 0 or self.total <= 0:
            return []
        limit = exact_limit(self.total, k, self.dims)
        # Unfiltered, (nearly) every chunk is allowed: only the table size decides.
        if limit >= self.total or (self.filtered and self._allowed_at_most(limit)):
            return self._exact(query, k)
        return self._coarse(query, k)

    def _allowed_at_most(self, limit: int) -> bool:
        """Whether at most ``limit`` chunks are allowed, counting no further than that."""
        count = self.conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {self.source} WHERE {self.condition} LIMIT :limit)",
            {"model": self.model_id, "limit": limit + 1},
        ).fetchone()[0]
        return count <= limit

    def _exact(self, query: bytes, k: int) -> list[Neighbour]:
        rows = self.conn.execute(
            f"SELECT cv.mirror_hash, cv.seq, {DISTANCE} AS distance FROM {self.source} "
            f"JOIN text_vectors tv ON tv.id = cv.vector_id WHERE {self.condition} "
            "ORDER BY distance, cv.mirror_hash, cv.seq LIMIT :k",
            {"model": self.model_id, "q": query, "k": k},
        )
        return [(r[0], r[1], float(r[2])) for r in rows]

    def _coarse(self, query: bytes, k: int) -> list[Neighbour]:
        """Codes first, exact distances for the allowed candidates; when a filter leaves too
        few of them, widen every shard's budget until it does or the codes run out."""
        code = self.conn.execute(
            f"SELECT CAST({code_sql(':q', self.dims)} AS BLOB)", {"q": query, **self.params}
        ).fetchone()[0]
        per_shard = shard_k(k)
        target = SHARDS * per_shard  # as many allowed candidates as an unfiltered search sees
        while True:
            seen, allowed = self._coarse_round(code, query, per_shard)
            if len(allowed) >= target or all(n < per_shard for n in seen):
                return heapq.nsmallest(k, allowed, key=lambda n: (n[2], n[0], n[1]))
            per_shard = next_shard_k(per_shard, len(allowed), target)

    def _coarse_round(
        self, code: bytes, query: bytes, per_shard: int
    ) -> tuple[list[int], list[Neighbour]]:
        """Candidates seen per shard, and the allowed ones with exact distances. The float
        vector is read (a scalar subquery) only for allowed candidates."""
        shards = " UNION ALL ".join(
            f"SELECT rowid FROM {table(self.model_id)} "
            f"WHERE embedding MATCH vec_bit(:code) AND k = :ks AND shard = {s}"
            for s in range(SHARDS)
        )
        distance = (
            "coalesce(vec_distance_cosine("
            "(SELECT embedding FROM text_vectors WHERE id = cv.vector_id), :q), 1.0)"
        )
        # A stale code (chunk vector deleted, code not yet) finds no chunk_vectors row; it
        # still counts for its shard, which is what "shard exhausted" compares against.
        rows = self.conn.execute(
            f"SELECT c.rowid % {SHARDS}, cv.mirror_hash, cv.seq, "
            f"CASE WHEN cv.id IS NOT NULL AND {self.allowed} THEN {distance} END "
            f"FROM ({shards}) c LEFT JOIN chunk_vectors cv ON cv.id = c.rowid",
            {"code": code, "ks": per_shard, "q": query},
        ).fetchall()
        seen = [0] * SHARDS
        for row in rows:
            seen[row[0]] += 1
        return seen, [(r[1], r[2], float(r[3])) for r in rows if r[3] is not None]
