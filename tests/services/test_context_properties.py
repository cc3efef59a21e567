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


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
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
        kind = data.draw(st.sampled_from(["append", "prepend", "rewrite", "delete"]))
        target = root / edited
        if kind == "delete":
            target.unlink()
        else:
            body = {
                "append": f"# {edited}\n\n{files[edited]} {extra} edited\n",
                "prepend": f"{extra} first\n# {edited}\n\n{files[edited]}\n",
                "rewrite": f"# {edited}\n\n{extra} {extra} rewritten\n",
            }[kind]
            target.write_text(body, encoding="utf-8")
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


BUDGET_FILES = {
    f"n{i}.md": f"# Note {i}\n\n"
    + "\n\n".join(
        " ".join(WORDS[(i + j * k) % len(WORDS)] for k in range(20 + (i * j) % 60))
        for j in range(2 + i % 9)
    )
    for i in range(16)
}


def test_used_bytes_and_tokens_never_exceed_the_budget(make_app: object) -> None:
    """Whatever the token budget, byte budget and safety margins: a Capsule is either
    refused (invalid_budget) or its canonical JSON is exactly usedBytes = usedTokens bytes,
    within budgetTokens − safetyMarginTokens and budgetBytes − safetyMarginBytes."""
    app, _root = make_app(BUDGET_FILES)  # type: ignore[operator]
    sync(app)

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        goal=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
        tokens=st.integers(min_value=1, max_value=6_000) | st.integers(4_000, 40_000),
        budget_bytes=st.none() | st.integers(min_value=1, max_value=160_000),
        margin_t=st.none() | st.integers(min_value=0, max_value=3_000),
        margin_b=st.none() | st.integers(min_value=0, max_value=3_000),
        depth=st.sampled_from(["fast", "balanced"]),
    )
    def compile_within(
        goal: str,
        tokens: int,
        budget_bytes: int | None,
        margin_t: int | None,
        margin_b: int | None,
        depth: str,
    ) -> None:
        fields = {"goal": goal, "budgetTokens": tokens, "depthPolicy": depth}
        fields |= {"budgetBytes": budget_bytes} if budget_bytes is not None else {}
        fields |= {"safetyMarginTokens": margin_t} if margin_t is not None else {}
        fields |= {"safetyMarginBytes": margin_b} if margin_b is not None else {}
        try:
            capsule = compile_capsule(app, ContextInput.model_validate(fields))
        except InvalidBudgetError:
            return
        budget = capsule["budget"]
        text = canonical_json(capsule)
        assert utf8_len(text) == budget["usedBytes"] == budget["usedTokens"]
        allowed_bytes = (budget_bytes if budget_bytes is not None else 4 * tokens) - (margin_b or 0)
        assert budget["usedTokens"] <= tokens - (margin_t or 0)
        assert budget["usedBytes"] <= allowed_bytes
        assert (budget["requestedTokens"], budget["requestedBytes"]) == (
            tokens,
            budget_bytes if budget_bytes is not None else 4 * tokens,
        )
        assert capsule["evidence"]  # a Capsule that is not refused holds evidence
        assert json.loads(text) == capsule and canonical_json(json.loads(text)) == text

    compile_within()
