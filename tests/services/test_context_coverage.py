"""Capsule coverage on a real index (engine.md §6.1): a facet nothing matches is a
``facet_not_found`` gap, a facet the budget could not afford is ``global_budget_exhausted``
with ``truncated``, an identical passage in a second file is a ``duplicate`` omission, and
the warnings and omission counts say so consistently."""

from __future__ import annotations

from typing import Any

import pytest
from gno_contracts.models.context_input import ContextInput

from gno.services.context_build import compile_capsule
from tests.conftest import sync

SAME = "# Tail sampling\n\nTail sampling keeps slow traces in the collector.\n"
FILES = {
    "a.md": SAME,
    "copy.md": SAME,
    "b.md": "# Head\n\nHead sampling decides early.\n",
    "long.md": "# Exporters\n\n"
    + "\n\n".join(f"Exporters paragraph {i} send telemetry to backends." for i in range(60))
    + "\n",
}


@pytest.fixture
def app(make_app: Any) -> Any:
    app, _ = make_app(FILES)
    sync(app)
    return app


def _build(app: Any, goal: str, budget: int) -> dict[str, Any]:
    capsule = compile_capsule(app, ContextInput(goal=goal, budgetTokens=budget, depthPolicy="fast"))
    omissions = capsule["omissions"]
    assert omissions["total"] == sum(omissions["reasonCounts"].values())
    assert len(omissions["items"]) <= min(20, omissions["total"])
    listed_all = len(omissions["items"]) == omissions["total"]
    codes = {w["code"] for w in capsule["warnings"]}
    assert ("omissions_truncated" in codes) == (not listed_all)
    assert ("incomplete_coverage" in codes) == (not capsule["coverage"]["complete"])
    assert capsule["budget"]["usedBytes"] <= budget
    return capsule


def test_unmatched_facet_is_a_gap_and_a_copy_is_a_duplicate(app: Any) -> None:
    capsule = _build(app, "tail head exporters zebraword", 12000)
    assert capsule["coverage"]["gaps"] == [{"facet": "zebraword", "code": "facet_not_found"}]
    assert capsule["coverage"]["complete"] is False and capsule["truncated"] is False
    uris = {e["uri"] for e in capsule["evidence"]}
    assert len(uris & {"gno://notes/a.md", "gno://notes/copy.md"}) == 1
    assert capsule["omissions"]["reasonCounts"]["duplicate"] == 1


def test_a_facet_the_budget_cannot_afford(app: Any) -> None:
    capsule = _build(app, "tail head exporters", 5000)
    assert capsule["truncated"] is True
    assert {"facet": "exporters", "code": "global_budget_exhausted"} in capsule["coverage"]["gaps"]
    assert capsule["omissions"]["reasonCounts"]["global_budget"] >= 1
    assert "gno://notes/long.md" not in {e["uri"] for e in capsule["evidence"]}


def test_full_coverage_has_no_gap(app: Any) -> None:
    capsule = _build(app, "tail head", 12000)
    assert capsule["coverage"]["gaps"] == [] and capsule["coverage"]["complete"] is True
    covered = {c["facet"] for c in capsule["coverage"]["coveredFacets"]}
    assert covered == {"tail", "head"}
