"""Hypothesis properties of Capsule compile: deterministic whatever the indexing order,
never over budget, canonical JSON round-trips."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.context_input import ContextInput
from gno_contracts.models.init_input import InitInput
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gno.app import App
from gno.core.capsule import canonical_json, utf8_len
from gno.errors import InvalidBudgetError, NoEvidenceError
from gno.paths import resolve_paths
from gno.services.collections import collection_add, init
from gno.services.context_build import compile_capsule
from tests.conftest import sync

WORDS = ["tail", "sampling", "latency", "policy", "collector", "trace", "span", "metric"]
docs = st.dictionaries(
    st.sampled_from([f"d{i}.md" for i in range(8)]),
    st.lists(st.sampled_from(WORDS), min_size=3, max_size=40).map(" ".join),
    min_size=1,
    max_size=6,
)


def _compile(files: dict[str, str], order: list[str], goal: str, budget: int) -> str | None:
    """Index ``files`` adding them in ``order`` (one sync each), then compile."""
    # The same folder for both runs: its path is part of the config fingerprint.
    base = Path(tempfile.gettempdir()) / f"gno-capsule-property-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir()
    saved = {k: os.environ.get(k) for k in ("GNO_CONFIG_DIR", "GNO_DATA_DIR", "GNO_CACHE_DIR")}
    try:
        for name, sub in (("GNO_CONFIG_DIR", "c"), ("GNO_DATA_DIR", "d"), ("GNO_CACHE_DIR", "k")):
            os.environ[name] = str(base / sub)
        root = base / "src"
        root.mkdir()
        app = App(resolve_paths())
        init(app, InitInput())
        collection_add(app, CollectionAddInput(path=str(root), name="notes"))
        for rel in order:
            (root / rel).write_text(f"# {rel}\n\n{files[rel]}\n", encoding="utf-8")
            os.utime(root / rel, (1_700_000_000, 1_700_000_000))
            sync(app)
        try:
            capsule = compile_capsule(
                app, ContextInput(goal=goal, budgetTokens=budget, depthPolicy="fast")
            )
        except (NoEvidenceError, InvalidBudgetError):
            return None
        finally:
            app.close()
        text = canonical_json(capsule)
        assert utf8_len(text) == capsule["budget"]["usedBytes"] <= budget
        assert json.loads(text) == capsule and canonical_json(json.loads(text)) == text
        return text
    finally:
        for k, v in saved.items():
            if v is not None:
                os.environ[k] = v
        shutil.rmtree(base, ignore_errors=True)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    files=docs,
    goal=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
    budget=st.integers(min_value=3000, max_value=9000),
    seed=st.randoms(use_true_random=False),
)
def test_compile_is_deterministic_whatever_the_indexing_order(
    files: dict[str, str], goal: str, budget: int, seed: object
) -> None:
    order = sorted(files)
    shuffled = list(order)
    seed.shuffle(shuffled)  # type: ignore[attr-defined]
    first = _compile(files, order, goal, budget)
    second = _compile(files, shuffled, goal, budget)
    assert first == second  # byte-identical canonical JSON, hence the same capsuleId


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(files=docs, goal=st.sampled_from(WORDS), pick=st.integers(min_value=0), data=st.data())
def test_verify_after_a_single_file_edit_flags_exactly_that_file(
    files: dict[str, str], goal: str, pick: int, data: st.DataObject
) -> None:
    from gno.services.context_verify import verify_capsule

    base = Path(tempfile.gettempdir()) / f"gno-capsule-edit-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir()
    saved = {k: os.environ.get(k) for k in ("GNO_CONFIG_DIR", "GNO_DATA_DIR", "GNO_CACHE_DIR")}
    try:
        for name, sub in (("GNO_CONFIG_DIR", "c"), ("GNO_DATA_DIR", "d"), ("GNO_CACHE_DIR", "k")):
            os.environ[name] = str(base / sub)
        root = base / "src"
        root.mkdir()
        for rel, text in files.items():
            (root / rel).write_text(f"# {rel}\n\n{text}\n", encoding="utf-8")
        app = App(resolve_paths())
        init(app, InitInput())
        collection_add(app, CollectionAddInput(path=str(root), name="notes"))
        sync(app)
        try:
            capsule = compile_capsule(
                app, ContextInput(goal=goal, budgetTokens=20000, depthPolicy="fast")
            )
        except NoEvidenceError:
            app.close()
            return
        edited = sorted(files)[pick % len(files)]
        extra = data.draw(st.sampled_from(WORDS))
        (root / edited).write_text(
            f"# {edited}\n\n{files[edited]} {extra} edited\n", encoding="utf-8"
        )
        sync(app)
        receipt = verify_capsule(app, capsule)
        app.close()
        flagged = {e["uri"] for e in receipt["evidence"] if e["contentStatus"] != "unchanged"}
        cited = {e["uri"] for e in capsule["evidence"]}
        expected = {f"gno://notes/{edited}"} & cited
        assert flagged == expected
    finally:
        for k, v in saved.items():
            if v is not None:
                os.environ[k] = v
        shutil.rmtree(base, ignore_errors=True)
