import pytest
from hypothesis import given
from hypothesis import strategies as st

from gno.core.fusion import NEAR_BONUS, RRF_K, TOP_BONUS, RankedList, normalize, rrf

keys = st.lists(st.sampled_from([f"m{i}:0" for i in range(12)]), max_size=10, unique=True)
lists = st.lists(
    st.tuples(st.sampled_from(["bm25", "vector", "bm25_variant", "hyde"]), keys), max_size=5
)


def test_weights_and_bonus():
    fused = {
        f.key: f for f in rrf([RankedList("bm25", ["a", "b"]), RankedList("vector", ["b", "c"])])
    }
    assert fused["a"].score == pytest.approx(2.0 / (RRF_K + 1) + TOP_BONUS)
    assert fused["b"].score == pytest.approx(2.0 / (RRF_K + 2) + 2.0 / (RRF_K + 1) + TOP_BONUS)
    assert fused["c"].score == pytest.approx(2.0 / (RRF_K + 2) + NEAR_BONUS)
    assert (fused["b"].bm25_rank, fused["b"].vector_rank) == (2, 1)
    top = rrf([RankedList("bm25", ["a", "b"]), RankedList("vector", ["b", "c"])])[0]
    assert top.key == "b"


def test_half_top_bonus_lets_two_lists_beat_one_first_place():
    # halfTopBonus: a document 2nd in both lists overtakes one that is 1st in one list only
    # and absent from the other once the rank-1 bonus is halved.
    lists = [RankedList("bm25", ["solo", "both"]), RankedList("vector", ["x", "both"])]
    full = {f.key: f.score for f in rrf(lists)}
    half = {f.key: f.score for f in rrf(lists, bonus=0.5)}
    assert full["solo"] == pytest.approx(2.0 / (RRF_K + 1) + TOP_BONUS)
    assert half["solo"] == pytest.approx(2.0 / (RRF_K + 1) + TOP_BONUS / 2)
    assert half["both"] == pytest.approx(4.0 / (RRF_K + 2) + NEAR_BONUS / 2)
    assert rrf(lists)[0].key != "both"
    assert rrf(lists, bonus=0.5)[0].key == "both"


@given(lists)
def test_fusion_is_deterministic_and_order_independent(raw):
    ranked = [RankedList(kind, tuple(ks)) for kind, ks in raw]
    forward = [(f.key, round(f.score, 9)) for f in rrf(ranked)]
    assert forward == [(f.key, round(f.score, 9)) for f in rrf(list(reversed(ranked)))]
    assert forward == [(f.key, round(f.score, 9)) for f in rrf(ranked)]
    scores = [s for _, s in forward]
    assert scores == sorted(scores, reverse=True)


@given(st.lists(st.floats(min_value=-1e6, max_value=1e6), max_size=20))
def test_normalize_bounds(values):
    out = normalize(values)
    assert len(out) == len(values) and all(0.0 <= v <= 1.0 for v in out)
    if values and max(values) - min(values) >= 1e-9:
        assert max(out) == 1.0 and min(out) == 0.0


def test_blend_schedule():
    from gno.core.fusion import blend

    fused = [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.0]
    rerank = [0.0] * 11 + [None]
    out = blend(fused, rerank)
    assert out[0] == pytest.approx(0.75) and out[3] == pytest.approx(0.6 * 0.7)
    assert out[10] == pytest.approx(0.4 * 0.05) and out[11] == 0.0
    assert blend([0.5], [1.0]) == [pytest.approx(0.625)]
