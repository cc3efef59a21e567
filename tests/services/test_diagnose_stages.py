"""`query diagnose` shows every model-free retrieval stage (query-diagnose@1.4
`meta.retrieval.stages`): shape weights, the bare query text, embedding windows, the
language weights, feedback terms, vector feedback, the language preference and the halved
top-rank bonus — each with its values and the target's place in what it did, and as `skipped` (reason `disabled`) once
switched off in index.yml. Real indexes; the vector stages on a tiny random BERT written by
the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import sync

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
pytest.importorskip("gguf", reason="gguf is needed to write the tiny test model")

from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.query_diagnose_input import QueryDiagnoseInput

from gno.render.search import diagnose as render_diagnose
from gno.services.diagnose import diagnose
from gno.services.embed import embed
from tests.services.test_retrieval_stages import FEEDBACK, LONG, TRANSLATED, set_retrieval
from tests.tiny_gguf import write_tiny_bert

ORDER = [
    "shape",
    "queryText",
    "windows",
    "languageWeights",
    "outline",
    "feedback",
    "vectorFeedback",
    "language",
    "topBonus",
]


def stages(app, query: str, target: str) -> dict[str, dict]:
    result = diagnose(app, QueryDiagnoseInput(query=query, target=target))
    assert result.target.status.value == "diagnosed"
    listed = result.meta.retrieval.stages
    assert [s.id.value for s in listed] == ORDER  # every stage, in pipeline order
    return {s.id.value: s.model_dump(mode="json", exclude_unset=True) for s in listed}


def test_bm25_stages_show_their_values_and_skip_when_switched_off(make_app):
    app, _ = make_app(FEEDBACK | TRANSLATED)
    sync(app)
    set_retrieval(app, feedback=True)
    on = stages(app, "sampling decisions", "gno://notes/target.md")
    assert on["shape"] == {"id": "shape", "status": "active", "reason": None,
                           "message": "keyword: bm25 weight 2.0, vector weight 2.0"}  # fmt: skip
    feedback = on["feedback"]
    assert feedback["status"] == "active" and feedback["message"].startswith("terms: policies")
    assert isinstance(feedback["targetRank"], int)  # the page came in through the feedback list
    assert on["topBonus"]["status"] == "active" and "×0.5" in on["topBonus"]["message"]
    assert on["language"]["status"] == "active" and on["language"]["message"].startswith("en")
    for sid in ("queryText", "windows", "vectorFeedback"):  # no vectors in this index
        assert (on[sid]["status"], on[sid]["reason"]) == ("skipped", "no vectors"
                                                          if sid != "vectorFeedback" else "disabled")  # fmt: skip
    moved = stages(app, "collector", "gno://notes/site/en/docs/retry.md")["language"]
    assert (moved["status"], moved["targetMove"]) == ("active", "promoted")
    receipt = diagnose(
        app, QueryDiagnoseInput(query="sampling decisions", target="gno://notes/target.md")
    ).meta.retrieval
    # embedding windows are off by default (gno/retrieval_config.py)
    assert (receipt.topBonusFactor, receipt.windowsConfigured, receipt.queryText) == (0.5, 1, None)

    set_retrieval(app, feedback=False, shapeWeights=False, languagePreference=False,
                  halfTopBonus=False, embedWindows=False, outlineLeg=False)  # fmt: skip
    off = stages(app, "sampling decisions", "gno://notes/target.md")
    for sid in ("shape", "outline", "feedback", "language", "topBonus"):
        assert (off[sid]["status"], off[sid]["reason"]) == ("skipped", "disabled"), sid
    assert off["feedback"]["targetRank"] is None and "targetMove" not in off["language"]
    receipt = diagnose(
        app, QueryDiagnoseInput(query="sampling decisions", target="gno://notes/target.md")
    ).meta.retrieval
    assert (receipt.topBonusFactor, receipt.windowsConfigured) == (1.0, 1)
    ident = stages(app, "OTEL_TRACES_SAMPLER", "gno://notes/target.md")
    assert ident["shape"]["reason"] == "disabled"
    set_retrieval(app, feedback=True)
    ident = stages(app, "OTEL_TRACES_SAMPLER", "gno://notes/target.md")
    assert (ident["feedback"]["status"], ident["feedback"]["reason"]) == (
        "skipped",
        "identifier query",
    )


@pytest.fixture(scope="module")
def minilm(tmp_path_factory) -> Path:  # the name makes plainQueryText apply
    return write_tiny_bert(tmp_path_factory.mktemp("models") / "tiny-MiniLM-L6.gguf")


def test_vector_stages_windows_query_text_and_vector_feedback(make_app, minilm, monkeypatch):
    monkeypatch.setenv("GNO_EMBED_MODEL", f"file:{minilm}")
    app, _ = make_app({"long.md": f"# Long\n\n{LONG}\n", "short.md": "# Short\n\nthe trace\n"})
    sync(app)
    set_retrieval(app, embedWindows=False)
    embed(app, EmbedInput())  # the one-vector set only
    target = "gno://notes/long.md"
    set_retrieval(app, embedWindows=True, maxWindows=3)
    waiting = stages(app, "trace sample", target)["windows"]
    assert (waiting["status"], waiting["reason"]) == (
        "skipped",
        "no windowed vectors yet (gno embed)",
    )
    embed(app, EmbedInput())  # now the windowed set
    set_retrieval(app, embedWindows=True, maxWindows=3, vectorFeedback=True)
    result = diagnose(app, QueryDiagnoseInput(query="trace sample", target=target))
    receipt = result.meta.retrieval
    assert (receipt.windows, receipt.windowsConfigured, receipt.queryText.value) == (3, 3, "bare")
    got = {s.id.value: s for s in receipt.stages}
    windows = got["windows"]
    assert windows.status.value == "active" and windows.message.startswith("up to 3 windows")
    seqs = {w.seq for w in windows.targetWindows}
    assert [w.window for w in windows.targetWindows] == [0, 1, 2] and len(seqs) == 1
    assert seqs == {result.chunk.seq}  # the windows of the chunk diagnose reports
    assert all(0.0 <= w.distance <= 2.0 for w in windows.targetWindows)
    assert got["queryText"].status.value == "active"
    vf = got["vectorFeedback"]
    assert vf.status.value == "active" and vf.message.startswith("query vector moved")
    assert vf.targetRank is not None and vf.targetRank >= 1
    text = render_diagnose(result)  # the terminal text names each stage
    for sid in ORDER:
        assert f"\n  {sid}" in text
    assert "target scored by window" in text

    set_retrieval(app, embedWindows=False, plainQueryText=False, vectorFeedback=False)
    off = stages(app, "trace sample", target)
    for sid in ("windows", "queryText", "vectorFeedback"):
        assert (off[sid]["status"], off[sid]["reason"]) == ("skipped", "disabled"), sid
    assert "targetWindows" not in off["windows"] and off["vectorFeedback"]["targetRank"] is None
