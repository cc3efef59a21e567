from hypothesis import given
from hypothesis import strategies as st

from gno.core.knn_plan import (
    CODE_MIN_DIMS,
    MAX_SHARD_K,
    SHARDS,
    coarse_cost,
    code_dims,
    code_edge,
    exact_cost,
    exact_limit,
    keep_coarse,
    next_shard_k,
    prefer_exact,
    shard_k,
)

totals = st.integers(min_value=1, max_value=2_000_000)
ks = st.integers(min_value=1, max_value=20_000)


@given(st.integers(min_value=1, max_value=8192))
def test_codes_pad_to_whole_bytes_and_edges_shrink_with_width(dims):
    width = code_dims(dims)
    assert width % 8 == 0 and dims <= width < dims + 8
    assert code_edge(dims) >= code_edge(dims + 1) > 0


@given(ks)
def test_each_shard_returns_more_than_k(k):
    assert shard_k(k) > k and shard_k(k) >= 25


@given(totals, ks, st.data())
def test_exact_limit_splits_allowed_sizes_where_prefer_exact_flips(total, k, data):
    """prefer_exact is monotone in the allowed count: exact up to exact_limit, coarse above."""
    limit = exact_limit(total, k, 384)
    assert 0 <= limit <= total
    allowed = data.draw(st.integers(min_value=1, max_value=total))
    assert prefer_exact(total, allowed, k) == (allowed <= limit)


@given(totals, ks)
def test_tables_whose_shards_hold_fewer_codes_than_asked_are_scanned_exactly(total, k):
    if total <= SHARDS * shard_k(k):
        assert exact_limit(total, k, 384) == total


@given(totals, ks, st.integers(min_value=1, max_value=CODE_MIN_DIMS - 1))
def test_narrow_models_are_always_scanned_exactly(total, k, dims):
    assert exact_limit(total, k, dims) == total


def test_crossovers_match_the_measured_ones():
    """bench/README.md: an exact scan beats the codes below ~1,200 vectors (top-10), and at
    100k a filter keeping fewer than ~1/5 of the rows is cheaper to scan exactly."""
    assert 700 <= exact_limit(1_000, 10, 384) <= 1_000
    assert exact_limit(2_000, 10, 384) < 2_000
    assert 10_000 <= exact_limit(100_000, 10, 384) <= 25_000


def test_a_deep_query_over_a_corpus_sized_table_is_scanned_exactly():
    """`query` asks for 400 chunks: over the corpus index's 7,524 vectors the coarse round
    rescored 3,320 candidates and took 38 ms against 27 ms for the exact scan (bench/README.md,
    "Query latency, session 12"); a top-100 there still takes the codes (12 against 22 ms)."""
    assert exact_limit(7_524, 400, 384) == 7_524
    assert exact_limit(7_524, 100, 384) < 7_524


@given(st.integers(min_value=1, max_value=10_000), st.integers(min_value=0, max_value=10_000))
def test_budgets_grow_at_least_twofold(current, found):
    target = current * SHARDS
    assert next_shard_k(current, min(found, target - 1), target) >= 2 * current


@given(totals, totals, st.integers(min_value=1, max_value=100_000))
def test_growth_stops_at_sqlite_vec_limit_and_when_exact_is_cheaper(total, allowed, next_k):
    if keep_coarse(total, allowed, next_k):
        assert next_k <= MAX_SHARD_K
        assert coarse_cost(total, next_k) < exact_cost(allowed)
