"""Retrieval traces in process (spec/traces.md): what is recorded and what never is,
the management operations, retention, replay, and bad input changing nothing.

Each test reads the real SQLite index the App opened; surfaces are tested in
contract-tests/test_trace_surfaces.py."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import apsw
import pytest
from gno_contracts.models.get_input import GetInput
from gno_contracts.models.retrieval_trace_delete_input import RetrievalTraceDeleteInput
from gno_contracts.models.retrieval_trace_export_input import RetrievalTraceExportInput
from gno_contracts.models.retrieval_trace_label_input import RetrievalTraceLabelInput
from gno_contracts.models.retrieval_trace_list_input import RetrievalTraceListInput
from gno_contracts.models.retrieval_trace_purge_input import RetrievalTracePurgeInput
from gno_contracts.models.retrieval_trace_replay_input import RetrievalTraceReplayInput
from gno_contracts.models.retrieval_trace_show_input import RetrievalTraceShowInput
from gno_contracts.models.search_input import SearchInput

from gno.adapters.sqlite.trace_db import trace_db_path
from gno.app import App
from gno.errors import ExportNotFoundError, TraceNotFoundError, ValidationError
from gno.paths import resolve_paths
from gno.services import handler
from gno.services import traces as svc
from gno.services.trace_record import record_call
from gno.services.trace_replay import trace_replay
from tests.conftest import sync

# Words that appear only inside document bodies: no trace table may ever hold them.
BODY_SENTINEL = "quetzalcoatlus"
FILES = {
    "alpha.md": f"# Alpha\n\nThe lighthouse keeper logs storms. {BODY_SENTINEL} wingspan.\n\nMore storms.\n",
    "beta.md": "# Beta\n\nLighthouse lenses and storms at sea.\n",
    "gamma.md": "# Gamma\n\nGardening notes, nothing about the sea.\n",
}
TRACE_TABLES = (
    "retrieval_traces",
    "retrieval_trace_runs",
    "retrieval_trace_events",
    "retrieval_trace_judgments",
    "retrieval_trace_exports",
    "retrieval_trace_export_traces",
)


def enable(app: App, **settings: Any) -> None:
    """Turn tracing on in index.yml the way a person would (the file, then a re-read)."""
    config = app.config
    config.raw["retrievalTraces"] = {"enabled": True, **settings}
    app.save_config(config)


def traced_search(app: App, query: str, **kwargs: Any) -> tuple[Any, str | None]:
    inp = SearchInput(query=query, **kwargs)
    result = handler("search")(app, inp)
    return result, record_call(app, "search", inp, result)


def traced_get(app: App, ref: str, trace_id: str | None = None, **kwargs: Any) -> str | None:
    inp = GetInput(ref=ref, traceId=trace_id, **kwargs) if trace_id else GetInput(ref=ref, **kwargs)
    result = handler("get")(app, inp)
    return record_call(app, "get", inp, result)


def rows(app: App) -> dict[str, list[tuple[Any, ...]]]:
    conn = apsw.Connection(str(trace_db_path(app.paths.db_path)), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return {t: list(conn.execute(f"SELECT * FROM {t}")) for t in TRACE_TABLES}
    finally:
        conn.close()


@pytest.fixture
def app(make_app: Any) -> App:
    built, _ = make_app(FILES)
    sync(built)
    return built


def test_off_by_default_records_nothing(app: App) -> None:
    _, trace_id = traced_search(app, "lighthouse")
    assert trace_id is None
    assert traced_get(app, "gno://notes/alpha.md", "trc_" + "0" * 32) is None  # ignored when off
    assert not trace_db_path(app.paths.db_path).exists()  # no trace work at all


def test_trace_writes_leave_the_index_generation_alone(app: App) -> None:
    """Traces live in their own file: recording one must not move the index's
    generation, which keys the edge projection and the REST result cache."""
    enable(app)
    store = app.store()
    before = store.generation()
    assert traced_search(app, "lighthouse")[1] is not None
    assert store.generation() == before


def test_search_records_ranks_and_never_bodies(app: App) -> None:
    enable(app, redactionMode="replay")
    result, trace_id = traced_search(app, "lighthouse storms", full=True)
    assert trace_id is not None and trace_id.startswith("trc_")
    assert BODY_SENTINEL in result.results[0].snippet  # the answer carried the body text
    shown = svc.trace_show(app, RetrievalTraceShowInput(traceId=trace_id)).model_dump(mode="json")
    assert shown["trace"]["queryText"] == "lighthouse storms"
    ranked = next(r for r in shown["runs"] if r["kind"] == "retrieval")["payload"]["ranked"]
    assert [(r["rank"], r["uri"]) for r in ranked] == [
        (i + 1, hit.uri) for i, hit in enumerate(result.results)
    ]
    assert traced_get(app, "gno://notes/alpha.md", trace_id, fromLine=3, lineCount=1) == trace_id
    opened = svc.trace_show(app, RetrievalTraceShowInput(traceId=trace_id)).events
    assert [e.kind.value for e in opened][-1] == "open"
    assert opened[-1].payload.evidence[0].startLine == 3
    # Not a byte of any body, snippet or title text anywhere in the trace tables.
    dump = repr(rows(app))
    for text in (BODY_SENTINEL, "wingspan", "lenses", "keeper logs"):
        assert text not in dump
    assert "lighthouse storms" in dump  # replay mode keeps the query itself


def test_metadata_mode_keeps_no_query_text(app: App) -> None:
    enable(app)  # redactionMode defaults to metadata
    _, trace_id = traced_search(app, "lighthouse storms", collection="notes")
    assert trace_id is not None
    trace = svc.trace_show(app, RetrievalTraceShowInput(traceId=trace_id)).trace
    assert trace.queryText is None and trace.queryShape.terms == 2
    assert trace.replayCapable is False
    dump = repr(rows(app))
    assert "lighthouse" not in dump and '"notes"' not in dump  # filter values not kept
    listed = svc.trace_list(app, RetrievalTraceListInput()).model_dump(mode="json")
    assert "queryText" not in listed["traces"][0]


def test_unknown_and_foreign_trace_ids_change_nothing(app: App, make_app: Any) -> None:
    enable(app)
    _, trace_id = traced_search(app, "lighthouse")
    assert trace_id is not None
    before = rows(app)
    for bad in ("trc_" + "f" * 32, "not-a-trace"):
        with pytest.raises(TraceNotFoundError) as found:
            traced_get(app, "gno://notes/alpha.md", bad)
        assert bad not in found.value.message
        with pytest.raises(TraceNotFoundError):
            svc.trace_show(app, RetrievalTraceShowInput(traceId=bad))
        with pytest.raises(TraceNotFoundError):
            svc.trace_delete(app, RetrievalTraceDeleteInput(traceId=bad))
        with pytest.raises(TraceNotFoundError):
            svc.trace_label(
                app, RetrievalTraceLabelInput(traceId=bad, label="relevant", targetRef="#00000000")
            )
        with pytest.raises(TraceNotFoundError):
            svc.trace_export(app, RetrievalTraceExportInput(traceIds=[trace_id, bad]))
    assert rows(app) == before
    # A trace id of another index: unknown here, and that index keeps it.
    other = App(resolve_paths(index="other"))
    try:
        sync(other)  # the shared index.yml names the same folder: its own index file
        _, foreign = traced_search(other, "lighthouse")
        assert foreign is not None
        with pytest.raises(TraceNotFoundError):
            svc.trace_show(app, RetrievalTraceShowInput(traceId=foreign))
        with pytest.raises(TraceNotFoundError):
            traced_get(app, "gno://notes/alpha.md", foreign)
        assert (
            svc.trace_show(other, RetrievalTraceShowInput(traceId=foreign)).trace.traceId == foreign
        )
    finally:
        other.close()
    assert rows(app) == before


def test_list_pages_by_cursor_and_refuses_bad_cursors(app: App) -> None:
    enable(app)
    ids = [traced_search(app, q)[1] for q in ("lighthouse", "storms", "sea", "gardening")]
    seen: list[str] = []
    cursor = None
    while True:
        page = svc.trace_list(app, RetrievalTraceListInput(limit=3, cursor=cursor))
        seen += [t.traceId for t in page.traces]
        cursor = page.nextCursor
        if cursor is None:
            break
    assert seen == list(reversed(ids))  # newest first, each once
    first = svc.trace_list(app, RetrievalTraceListInput(limit=1)).nextCursor
    assert first is not None
    for bad in ("x", first[:-1] + "z", first.replace("gno-trace-v1.", "gno-trace-v2."),
                "gno-trace-v1.00000000.1." + "trc_" + "0" * 32):  # fmt: skip
        with pytest.raises(ValidationError) as refused:
            svc.trace_list(app, RetrievalTraceListInput(cursor=bad))
        assert refused.value.message == "Invalid trace cursor"


def test_label_rules_and_idempotency(app: App) -> None:
    enable(app, redactionMode="replay")
    result, trace_id = traced_search(app, "lighthouse")
    assert trace_id is not None
    top = result.results[0]

    def label(**kw: Any) -> Any:
        return svc.trace_label(app, RetrievalTraceLabelInput(traceId=trace_id, **kw))

    first = label(label="relevant", targetRef=top.docid)
    assert first.result.value == "inserted" and first.judgment.target.docid == top.docid
    again = label(label="relevant", targetRef=top.docid)
    assert again.result.value == "duplicate"
    assert again.judgment.judgmentId == first.judgment.judgmentId
    before = rows(app)
    for bad in (
        {"label": "relevant", "targetRef": "gno://notes/gamma.md"},  # not recorded evidence
        {"label": "irrelevant", "targetRef": "notes/alpha.md"},  # not a docid or URI
        {"label": "relevant", "targetRef": top.docid, "targetKind": "span"},  # no lines
        {
            "label": "relevant",
            "targetRef": top.uri,
            "targetKind": "span",
            "startLine": 50,
            "endLine": 60,
        },
    ):
        with pytest.raises(ValidationError):
            label(**bad)
    assert rows(app) == before
    missing = label(label="missing_expected", targetRef="gno://notes/gamma.md")
    assert missing.judgment.target.uri == "gno://notes/gamma.md"


def test_export_is_deterministic_and_replay_compares_rankings(app: App) -> None:
    enable(app, redactionMode="replay")
    _, trace_id = traced_search(app, "storms")
    assert trace_id is not None
    with pytest.raises(ValidationError):  # qrels need judgments
        svc.trace_export(app, RetrievalTraceExportInput(traceIds=[trace_id], format="qrels"))
    svc.trace_label(
        app,
        RetrievalTraceLabelInput(
            traceId=trace_id, label="missing_expected", targetRef="gno://notes/gamma.md"
        ),
    )
    first = svc.trace_export(app, RetrievalTraceExportInput(traceIds=[trace_id], format="qrels"))
    second = svc.trace_export(app, RetrievalTraceExportInput(traceIds=[trace_id], format="qrels"))
    assert first.result.value == "inserted" and second.result.value == "duplicate"
    assert first.manifest.exportId == second.manifest.exportId
    assert first.artifact == second.artifact
    export_id = first.manifest.exportId
    before = trace_replay(app, RetrievalTraceReplayInput(exportId=export_id))
    assert before.verdict.value == "unchanged" and before.cases[0].qrels[0].candidateRank is None
    # Today's index changes: the expected document now talks about storms.
    gamma = Path(os.environ["GNO_DATA_DIR"]).parent / "src-notes" / "gamma.md"
    gamma.write_text("# Gamma\n\nStorms storms storms over the garden.\n", encoding="utf-8")
    sync(app)
    after = trace_replay(app, RetrievalTraceReplayInput(exportId=export_id))
    case = after.cases[0]
    assert after.verdict.value == "improved" and after.recommendation.value == "promote"
    assert case.qrels[0].baselineRank is None and case.qrels[0].candidateRank == 1
    assert case.metrics.candidate.mrr == 1.0 > case.metrics.baseline.mrr
    assert after.applied is False
    # A judgment added since the export: the manifest no longer matches.
    svc.trace_label(app, RetrievalTraceLabelInput(traceId=trace_id, label="relevant",
                                                  targetRef="gno://notes/alpha.md"))  # fmt: skip
    stale = trace_replay(app, RetrievalTraceReplayInput(exportId=export_id))
    assert stale.verdict.value == "unreplayable"
    assert stale.cases[0].reason.value == "manifest_hash_mismatch"
    with pytest.raises(ExportNotFoundError):
        trace_replay(app, RetrievalTraceReplayInput(exportId="exp_" + "0" * 32))


def test_retention_by_count_age_and_bytes(app: App) -> None:
    enable(app, retention={"maxTraces": 3})
    ids = [traced_search(app, q)[1] for q in ("lighthouse", "storms", "sea", "gardening", "beta")]
    kept = [t.traceId for t in svc.trace_list(app, RetrievalTraceListInput()).traces]
    assert kept == list(reversed(ids[-3:]))
    enable(app, retention={"maxBytes": 1})  # every trace is bigger: only the newest stays
    newest = traced_search(app, "alpha")[1]
    assert [t.traceId for t in svc.trace_list(app, RetrievalTraceListInput()).traces] == [newest]
    # Age: a trace past expiresAtMs is gone for every operation, then deleted on the next write.
    conn = apsw.Connection(str(trace_db_path(app.paths.db_path)))
    conn.execute("UPDATE retrieval_traces SET expires_at_ms = 1")
    conn.close()
    assert svc.trace_list(app, RetrievalTraceListInput()).traces == []
    with pytest.raises(TraceNotFoundError):
        svc.trace_show(app, RetrievalTraceShowInput(traceId=newest or ""))
    enable(app)
    traced_search(app, "sea")
    assert len(rows(app)["retrieval_traces"]) == 1


def test_record_limit_per_trace(app: App) -> None:
    enable(app, retention={"maxRecordsPerTrace": 4})
    _, trace_id = traced_search(app, "lighthouse")  # query, run, complete: 3 records
    assert traced_get(app, "gno://notes/alpha.md", trace_id) == trace_id
    from gno.errors import TraceFullError

    with pytest.raises(TraceFullError):
        traced_get(app, "gno://notes/beta.md", trace_id)
    assert len(rows(app)["retrieval_trace_events"]) == 3


def test_delete_and_purge_remove_everything(app: App) -> None:
    enable(app, redactionMode="replay")
    one = traced_search(app, "lighthouse")[1]
    two = traced_search(app, "storms")[1]
    assert one and two
    svc.trace_export(app, RetrievalTraceExportInput(traceIds=[one, two]))
    deleted = svc.trace_delete(app, RetrievalTraceDeleteInput(traceId=one))
    assert deleted.counts.traces == 1 and deleted.counts.runs == 1 and deleted.counts.exports == 1
    assert rows(app)["retrieval_trace_exports"] == []  # the export named the deleted trace
    purged = svc.trace_purge(app, RetrievalTracePurgeInput(confirm=True))
    assert purged.traces == 1 and purged.physicalCleanup.value in ("completed", "wal_busy")
    assert all(not found for found in rows(app).values())


def test_context_records_evidence_references_not_passages(app: App) -> None:
    from gno_contracts.models.context_input import ContextInput

    enable(app, redactionMode="replay")
    inp = ContextInput(goal="lighthouse storms", budgetTokens=12000, depthPolicy="fast")
    capsule = handler("context_build")(app, inp)
    texts = [e.text for e in capsule.evidence]
    assert texts and all(texts)  # the Capsule carries the passages themselves
    trace_id = record_call(app, "context_build", inp, capsule)
    assert trace_id is not None
    run = svc.trace_show(app, RetrievalTraceShowInput(traceId=trace_id)).runs[0]
    assert run.kind.value == "context" and run.payload.capsuleId == capsule.capsuleId
    assert [e.uri for e in run.payload.evidence] == [e.uri for e in capsule.evidence]
    assert run.payload.evidence[0].passageHash == capsule.evidence[0].passageHash
    dump = repr(rows(app))
    for text in texts:  # no passage, nor any line of one, is in the trace file
        for line in filter(None, (ln.strip() for ln in text.splitlines())):
            assert line not in dump
    assert "lenses" not in dump and BODY_SENTINEL not in dump


def test_a_traced_text_counts_fts5s_words() -> None:
    from gno.core.traces import text_shape

    # \w counted "ẹ" and "kọ", "q" and "x", and "snake_case" as one: FTS5 reads 1, 1 and 2.
    assert text_shape("ẹ́kọ́ q\u0301x snake_case") == {"characters": 20, "terms": 4}
