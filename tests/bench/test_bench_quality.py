"""bench/quality.py: its metrics, the subset it indexes, and the dev set's shape (no timing)."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def quality():
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("quality")
    finally:
        sys.path.remove(str(BENCH))


def test_mrr_and_the_language_of_a_page(quality) -> None:
    labels = {"a.md": 3, "b.md": 1}
    assert quality.mrr(["x.md", "b.md", "a.md"], labels) == 0.5
    assert quality.mrr(["x.md"], labels) == 0.0
    assert quality.path_language("website/ja/docs/a.md") == "ja"
    assert quality.path_language("specification/trace/sdk.md") == "en"
    assert quality.percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.95) == 5.0
    assert quality.word_overlap("keep slow requests", "We keep every request that is slow") == 1.0


def test_ndcg_is_one_for_the_ideal_order_and_zero_without_hits(quality) -> None:
    labels = {"a.md": 2, "b.md": 1}
    assert quality.ndcg(["a.md", "b.md", "x.md"], labels) == pytest.approx(1.0)
    assert quality.ndcg(["x.md", "y.md"], labels) == 0.0
    assert quality.ndcg([], labels) == 0.0
    swapped = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
    assert quality.ndcg(["b.md", "a.md"], labels) == pytest.approx(swapped)


def test_a_document_counts_once_and_only_inside_the_cut_off(quality) -> None:
    labels = {"a.md": 2, "b.md": 2}
    assert quality.ndcg(["a.md", "a.md", "b.md"], labels) == pytest.approx(1.0)
    assert quality.recall(["a.md", "a.md"], labels) == 0.5
    late = [f"x{i}.md" for i in range(10)] + ["a.md", "b.md"]
    assert quality.ndcg(late, labels) == 0.0
    assert quality.recall(late, labels) == 0.0
    assert quality.recall(["b.md", "x.md", "a.md"], labels) == 1.0


def test_the_subset_holds_labels_and_translations_and_is_seeded(quality) -> None:
    q = quality.DevQuery("q1", "keyword", "en", "x", {"website/en/docs/a.md": 2})
    paths = ["website/en/docs/a.md", "website/ja/docs/a.md", "website/ja/docs/b.md"]
    paths += [f"spec/{i}.md" for i in range(50)]
    subset = quality.choose_subset(paths, [q], 10, seed=1)
    assert len(subset) == 10
    assert {"website/en/docs/a.md", "website/ja/docs/a.md"} <= set(subset)
    assert subset == quality.choose_subset(paths, [q], 10, seed=1)
    assert subset != quality.choose_subset(paths, [q], 10, seed=2)
    with pytest.raises(SystemExit):
        quality.choose_subset(
            paths, [quality.DevQuery("q2", "keyword", "en", "x", {"no.md": 2})], 10, 1
        )


def test_the_dev_set_has_the_documented_shape(quality) -> None:
    queries = quality.load_devset()
    assert len(queries) >= 150
    assert len({q.id for q in queries}) == len(queries)
    assert {q.kind for q in queries} == set(quality.KINDS)
    for kind in quality.KINDS:
        of_kind = [q for q in queries if q.kind == kind]
        assert len(of_kind) >= 30, kind
        halves = [q.half for q in of_kind]
        assert (
            set(halves) == {"tune", "test"}
            and abs(halves.count("tune") - halves.count("test")) <= 1
        )
    assert len({q.lang for q in queries if q.kind == "non-english"} & {"ja", "zh"}) == 2
    for q in queries:
        assert q.query.strip()
        assert 1 <= len(q.relevant) <= 4, q.id
        assert set(q.relevant.values()) <= {1, 2, 3} and 3 in q.relevant.values(), q.id
        for path in q.relevant:
            assert not path.startswith("/") and ".." not in path.split("/"), path
            if quality.CORPUS.is_dir():
                assert (quality.CORPUS / path).is_file(), path
