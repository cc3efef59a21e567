"""How a KNN query runs over the two-bit codes: shard budgets, thresholds, exact or coarse.

Every model's vectors are indexed twice: exact float32 vectors (for rescoring and exact
scans) and a two-bit code per dimension (x > -e, x > +e with e = 0.4 σ of a unit vector's
coordinate) in a sqlite-vec table split into ``SHARDS`` partitions (shard = chunk id % SHARDS).
A coarse query asks every shard for its ``k_s`` nearest codes by Hamming distance and rescores
the union exactly. Below a size where scanning the exact vectors is cheaper, the scan is exact.

The cost model is fitted to measurements on a 2-vCPU VM (sqlite-vec 0.1.9, 384 dims,
bench/knn.py and bench/README.md): only the crossover points matter, not absolute times.
Pure: no I/O.
"""

from __future__ import annotations

import math

SHARDS = 8
EDGE_SIGMAS = 0.4  # beat 0.6 σ and 0.8 σ in bench/knn.py's sweep
MIN_SHARD_K = 25  # 8 × 25 candidates: recall@10 0.99 at 100k (bench/README.md)
SHARD_K_MARGIN = 15  # k_s = k + 15 kept recall@k ≥ 0.99 for k = 10…160 at 100k
MAX_SHARD_K = 4096  # sqlite-vec 0.1.9 refuses a larger k
# Below 64 dimensions two bits each rank too coarsely (recall@10 0.85 at 10k × 30-d with
# these budgets, 0.995 at 64-d); such small models are cheap to scan exactly instead.
CODE_MIN_DIMS = 64

# Cost model, microseconds, fitted on the VM above (bench/README.md, "In gno's store"): codes
# cost 2.2–2.4 ms from 1,000 to 4,000 vectors and 17 ms at 100k; an exact scan 1.9 ms at 1,000
# and 3.9 ms at 2,000, so the crossover lies near 1,200 vectors for a top-10.
COARSE_FIXED_US = 1800.0  # SHARDS vec0 queries
# Each candidate is rescored like a row of the exact scan (its float vector through two key
# lookups, one cosine). Negligible for a top-10 (200 candidates), but `query` asks for 400
# chunks: 3,320 candidates of 7,524 vectors cost more than scanning all of them (38 against
# 27 ms on the corpus index, bench/README.md "Query latency, session 12").
RESCORE_ROW_US = 2.0
COARSE_ROW_US = 0.085  # Hamming distance per stored code (k_s = 1 in 8 shards: 11 ms at 100k)
COARSE_ROW_K_US = 0.0025  # vec0 0.1.9 selects top-k by rescanning: per code, per unit of k_s
EXACT_ROW_US = 2.0  # vec_distance_cosine on one float32 blob, joins included


def code_edge(dims: int) -> float:
    """The quantization threshold e: 0.4 σ of one coordinate of a random unit vector."""
    return EDGE_SIGMAS / math.sqrt(dims)


def code_dims(dims: int) -> int:
    """Dimensions after zero padding to a multiple of 8 (sqlite-vec's bit quantizer needs it).
    A padded coordinate is 0, so it yields the same two bits in every code: no distance."""
    return -(-dims // 8) * 8


def shard_k(k: int) -> int:
    """Candidates per shard for a top-k over unfiltered codes."""
    return max(MIN_SHARD_K, k + SHARD_K_MARGIN)


def coarse_cost(total: int, shard_k_: int) -> float:
    candidates = SHARDS * min(shard_k_, -(-total // SHARDS))  # a shard returns what it holds
    return (
        COARSE_FIXED_US
        + total * (COARSE_ROW_US + COARSE_ROW_K_US * shard_k_)
        + RESCORE_ROW_US * candidates
    )


def exact_cost(allowed: int) -> float:
    return EXACT_ROW_US * allowed


def prefer_exact(total: int, allowed: int, k: int) -> bool:
    """Exact scan of the ``allowed`` vectors, or coarse search over all ``total`` codes?

    A coarse pass over a filter keeping a fraction f of the rows needs about k_s / f
    candidates per shard to see k_s allowed ones, so selective filters make it dearer.
    When the shards would hand back everything anyway, the exact scan is the same work.
    """
    if allowed <= 0 or total <= 0:
        return True
    needed = math.ceil(shard_k(k) * total / allowed)
    if needed * SHARDS >= total or needed > MAX_SHARD_K:
        return True
    return exact_cost(allowed) <= coarse_cost(total, needed)


def exact_limit(total: int, k: int, dims: int) -> int:
    """The largest allowed-set size for which ``prefer_exact`` holds (it is monotone in it):
    a count bounded by this + 1 is all a caller needs to decide. Narrow models: all."""
    if dims < CODE_MIN_DIMS or prefer_exact(total, total, k):
        return total
    low, high = 0, total  # prefer_exact(low) holds, prefer_exact(high) does not
    while high - low > 1:
        middle = (low + high) // 2
        if prefer_exact(total, middle, k):
            low = middle
        else:
            high = middle
    return low


def keep_coarse(total: int, allowed: int, next_shard_k_: int) -> bool:
    """After a coarse round fell short (the filter's rows lie far from the query), is one
    more round with a wider budget still cheaper than scanning the allowed rows exactly?"""
    return next_shard_k_ <= MAX_SHARD_K and coarse_cost(total, next_shard_k_) < exact_cost(allowed)


def next_shard_k(shard_k_: int, found: int, target: int) -> int:
    """The next per-shard budget when ``found`` allowed candidates fell short of ``target``:
    scaled by the allowed share seen so far (with a margin), at least doubled."""
    if found <= 0:
        return shard_k_ * 4
    return max(shard_k_ * 2, math.ceil(shard_k_ * target / found * 1.25))
