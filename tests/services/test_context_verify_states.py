"""Each per-evidence state of Capsule verify (engine.md §6.2), produced for real: a source
deleted, a stored mirror or chunk damaged in the SQLite file, a Capsule whose recorded
hashes or lines no longer match; and ranking moved by a new, better document."""

from __future__ import annotations

import copy
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gno_contracts.models.context_input import ContextInput

from gno.core.capsule import seal, sha256_text
from gno.services.context_build import compile_capsule
from gno.services.context_verify import verify_capsule
from tests.conftest import sync
from tests.services.test_context_capsule import FILES

GOAL = "latency policy threshold"
TARGET = "gno://notes/sampling.md"


@pytest.fixture
def built(make_app: Any) -> tuple[Any, Path, dict[str, Any]]:
    app, root = make_app(FILES)
    sync(app)
    capsule = compile_capsule(app, ContextInput(goal=GOAL, budgetTokens=12000, depthPolicy="fast"))
    assert TARGET in {e["uri"] for e in capsule["evidence"]}
    return app, root, capsule


def _item(receipt: dict[str, Any]) -> dict[str, Any]:
    return next(i for i in receipt["evidence"] if i["uri"] == TARGET)


def _others_unchanged(receipt: dict[str, Any]) -> bool:
    return all(i["contentStatus"] == "unchanged" for i in receipt["evidence"] if i["uri"] != TARGET)


def _sql(app: Any, statement: str, *args: Any) -> None:
    with sqlite3.connect(app.paths.db_path) as db:
        db.execute("PRAGMA foreign_keys = OFF")
        assert db.execute(statement, args).rowcount >= 1


def _reseal(capsule: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A copy of the Capsule with its target evidence changed, sealed again (valid id)."""
    forged = copy.deepcopy(capsule)
    change(next(e for e in forged["evidence"] if e["uri"] == TARGET))
    return seal(forged)[0]


def test_unchanged_first(built: Any) -> None:
    app, _, capsule = built
    receipt = verify_capsule(app, capsule)
    assert _item(receipt)["contentCode"] == "verified_unchanged"
    assert receipt["contentStatus"] == "unchanged" and receipt["rankingStatus"] == "unchanged"


def test_source_missing(built: Any) -> None:
    app, root, capsule = built
    (root / "sampling.md").unlink()
    sync(app)
    receipt = verify_capsule(app, capsule)
    item = _item(receipt)
    assert (item["contentStatus"], item["contentCode"]) == ("missing", "source_missing")
    assert receipt["contentStatus"] == "missing" and receipt["contentCode"] == "content_missing"
    assert item["rankingStatus"] == "unavailable" and _others_unchanged(receipt)


def test_mirror_missing_and_mirror_corrupt(built: Any) -> None:
    app, _, capsule = built
    mirror = next(e["mirrorHash"] for e in capsule["evidence"] if e["uri"] == TARGET)
    _sql(app, "UPDATE content SET markdown = markdown || 'tampered' WHERE mirror_hash = ?", mirror)
    assert _item(verify_capsule(app, capsule))["contentCode"] == "mirror_corrupt"
    _sql(app, "DELETE FROM content WHERE mirror_hash = ?", mirror)
    item = _item(verify_capsule(app, capsule))
    assert (item["contentStatus"], item["contentCode"]) == ("missing", "mirror_missing")


def test_chunk_missing_and_chunk_corrupt(built: Any) -> None:
    app, _, capsule = built
    ev = next(e for e in capsule["evidence"] if e["uri"] == TARGET)
    where = "WHERE mirror_hash = ? AND start_line = ? AND end_line = ?"
    key = (ev["mirrorHash"], ev["startLine"], ev["endLine"])
    _sql(app, f"UPDATE content_chunks SET end_pos = 1000000000 {where}", *key)
    assert _item(verify_capsule(app, capsule))["contentCode"] == "chunk_corrupt"
    _sql(app, f"UPDATE content_chunks SET start_line = start_line + 1000 {where}", *key)
    receipt = verify_capsule(app, capsule)
    assert _item(receipt)["contentCode"] == "chunk_missing" and _others_unchanged(receipt)


@pytest.mark.parametrize(
    ("field", "code"),
    [
        ("sourceHash", "source_stale"),
        ("mirrorHash", "mirror_stale"),
        ("passageHash", "passage_stale"),
    ],
)
def test_recorded_hash_no_longer_matches(built: Any, field: str, code: str) -> None:
    app, _, capsule = built
    forged = _reseal(capsule, lambda e: e.__setitem__(field, "0" * 64))
    receipt = verify_capsule(app, forged)
    item = _item(receipt)
    assert (item["contentStatus"], item["contentCode"]) == ("stale", code)
    assert receipt["contentCode"] == "content_stale" and receipt["rankingStatus"] == "unavailable"


def test_lines_without_a_stored_chunk_are_chunk_missing(built: Any) -> None:
    """Lines that hash right but are not a stored chunk's lines."""
    app, _, capsule = built
    store = app.store()
    ev = next(e for e in capsule["evidence"] if e["uri"] == TARGET)
    lines = store.content(ev["mirrorHash"]).split("\n")

    def shift(e: dict[str, Any]) -> None:
        e["endLine"] = e["startLine"]  # a sub-span of the chunk
        e["text"] = "\n".join(lines[e["startLine"] - 1 : e["endLine"]])
        e["passageHash"] = sha256_text(e["text"])

    if ev["endLine"] == ev["startLine"]:
        pytest.skip("the chunk is one line: no sub-span")
    item = _item(verify_capsule(app, _reseal(capsule, shift)))
    assert item["contentCode"] == "chunk_missing"


def test_a_better_new_document_reranks_and_drifts_the_index(built: Any) -> None:
    app, root, capsule = built
    (root / "zz-policy.md").write_text(
        "# Latency policy threshold\n\nLatency policy threshold latency policy threshold.\n"
    )
    sync(app)
    receipt = verify_capsule(app, capsule)
    assert receipt["contentStatus"] == "unchanged"
    assert receipt["rankingStatus"] == "reranked" and receipt["rankingCode"] == "ranking_changed"
    item = _item(receipt)
    assert item["rankingStatus"] == "reranked"
    assert item["currentRetrievalRank"] > next(
        e["retrievalRank"] for e in capsule["evidence"] if e["uri"] == TARGET
    )
    assert "index_changed" in receipt["fingerprintReasons"]


def test_text_that_is_not_its_passage_is_never_unchanged(built: Any) -> None:
    """A Capsule whose evidence text was rewritten (hashes and lines kept, the Capsule sealed
    again: its id is only a hash anyone can recompute) is passage_stale, and a compiled
    context leaves that text out: it was reported verified_unchanged and compiled in, so
    the rewritten words were presented as the indexed passage."""
    from gno_contracts.models.context_compiled_preview_input import (
        ContextCompiledPreviewInput,
    )

    from gno.services.context_compiled import preview

    app, _, capsule = built
    lie = "Tail sampling is forbidden by policy."
    forged = _reseal(capsule, lambda e: e.__setitem__("text", lie))
    item = _item(verify_capsule(app, forged))
    assert (item["contentStatus"], item["contentCode"]) == ("stale", "passage_stale")
    doc = preview(app, ContextCompiledPreviewInput(capsule=forged, budgetTokens=200_000))
    assert lie not in doc.markdown
