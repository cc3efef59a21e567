"""Text formats of the search family, rendered from a real search result (the output
model, as the CLI renders it)."""

import csv
import io
import json
import xml.etree.ElementTree as ET

import pytest
from gno_contracts.models.ls import DocumentList
from gno_contracts.models.multi_get import MultiGetResult

from gno.render import View
from gno.render.documents import documents, listing
from gno.render.search import text as render_text
from tests.conftest import search, sync


@pytest.fixture
def payload(make_app):
    app, _ = make_app(
        {
            "a.md": '# Alpha "quoted" & <tagged>\n\nsampling one\n',
            "b.md": "# Beta\n\nsampling two\n",
        }
    )
    sync(app)
    return search(app, "sampling", limit=5)


def test_files_lines(payload):
    lines = render_text(payload, View("files")).splitlines()
    assert len(lines) == 2
    for line, hit in zip(lines, payload.results, strict=True):
        docid, score, uri = line.split(",")
        assert (docid, uri) == (hit.docid, hit.uri) and score == f"{hit.score:.4f}"


def test_csv_is_parseable_with_quoted_fields(payload):
    rows = list(csv.reader(io.StringIO(render_text(payload, View("csv")))))
    assert rows[0] == ["docid", "score", "uri", "title", "relPath"]
    titles = {row[3] for row in rows[1:]}
    assert 'Alpha "quoted" & <tagged>' in titles
    assert render_text(payload, View("csv")).splitlines()[1].startswith('"#')


def test_xml_is_well_formed_and_escaped(payload):
    root = ET.fromstring(render_text(payload, View("xml")))
    assert root.tag == "searchResults"
    meta = root.find("meta")
    assert (
        meta.get("query") == "sampling" and meta.get("mode") == "bm25" and meta.get("total") == "2"
    )
    titles = [r.findtext("title") for r in root.findall("result")]
    assert 'Alpha "quoted" & <tagged>' in titles


def test_markdown_and_terminal(payload):
    md = render_text(payload, View("md"))
    assert (
        md.startswith('# Search Results for "sampling"') and md.count("\n## ") == 2 and "```" in md
    )
    text = render_text(payload, View())
    assert text.splitlines()[0].startswith("[#") and text.endswith(
        '2 result(s) for "sampling" (bm25)'
    )
    empty = payload.model_copy(update={"results": []})
    assert render_text(empty, View()) == "No results found."


def test_ls_and_multi_get_renderers():
    source = {"relPath": "a.md", "mime": "text/markdown", "ext": ".md"}
    docs = DocumentList.model_validate(
        {
            "documents": [
                {"docid": "#abcdef12", "uri": "gno://n/a.md", "title": "A", "source": source}
            ],
            "meta": {"total": 1, "returned": 1, "offset": 0},
        }
    )
    assert listing(docs, View("files")).out == "#abcdef12,gno://n/a.md"
    assert (listing(docs, View()).out or "").endswith("1 of 1 document(s)")
    multi = {
        "documents": [
            {
                "docid": "#abcdef12",
                "uri": "gno://n/a.md",
                "content": "x",
                "totalLines": 1,
                "truncated": True,
                "source": source,
            }
        ],
        "skipped": [{"ref": "n/zz.md", "reason": "not_found"}],
        "meta": {"requested": 2, "returned": 1, "skipped": 1},
    }
    shown = documents(MultiGetResult.model_validate(multi), View()).out or ""
    assert "=== gno://n/a.md ===" in shown and "(truncated)" in shown
    assert "n/zz.md: not_found" in shown


def test_graph_prints_its_json_with_control_characters_escaped(make_app):
    """`gno graph` prints JSON by default (as GNO): the same data as `--json`. A title with a
    C1 character (U+0085, kept in the index) lost it: the text went out through the
    terminal filter unescaped, which strips what a terminal would interpret."""
    from gno_contracts.models.graph_input import GraphInput

    from gno.render.graph import graph as render_graph
    from gno.render.style import terminal_safe
    from gno.services.graph_report import graph

    app, _ = make_app({"a.md": "# Next\u0085Line\n\n[[b]]\n", "b.md": "# B\n\n[[a]]\n"})
    sync(app)
    result = graph(app, GraphInput())
    shown = terminal_safe(render_graph(result, View()).out)  # what the terminal receives
    assert json.loads(shown) == result.model_dump(mode="json", exclude_unset=True)
    assert "Next\u0085Line" in {n["title"] for n in json.loads(shown)["nodes"]}


def test_trace_export_prints_its_artifact_with_control_characters_escaped(make_app):
    """`gno trace export` prints the artifact as JSON: a replay trace keeps its query text,
    and a C1 character in it (U+0085) went out raw, for the terminal filter to strip."""
    from gno_contracts.models.retrieval_trace_export_input import RetrievalTraceExportInput
    from gno_contracts.models.search_input import SearchInput

    from gno.render.style import terminal_safe
    from gno.render.traces import exported
    from gno.services import handler
    from gno.services.trace_record import record_call
    from gno.services.traces import trace_export

    app, _ = make_app({"a.md": "# Storms\n\nstorms at sea\n"})
    sync(app)
    app.config.raw["retrievalTraces"] = {"enabled": True, "redactionMode": "replay"}
    app.save_config(app.config)
    inp = SearchInput(query="storms \u0085 sea")
    trace_id = record_call(app, "search", inp, handler("search")(app, inp))
    result = trace_export(app, RetrievalTraceExportInput(traceIds=[trace_id]))
    shown = terminal_safe(exported(result, View()).out)  # what the terminal receives
    artifact = json.loads(shown.split("\n", 1)[1])
    assert artifact == result.model_dump(mode="json", exclude_unset=True)["artifact"]
    assert artifact["traces"][0]["trace"]["queryText"] == "storms \u0085 sea"
