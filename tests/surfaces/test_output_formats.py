"""Text formats of the search family, rendered from a real search payload."""

import csv
import io
import xml.etree.ElementTree as ET

import pytest

from gno.cli.output import dump, render_documents, render_multi_get, render_search
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
    return dump(search(app, "sampling", limit=5))


def test_files_lines(payload):
    lines = render_search(payload, "files").splitlines()
    assert len(lines) == 2
    for line, hit in zip(lines, payload["results"], strict=True):
        docid, score, uri = line.split(",")
        assert (docid, uri) == (hit["docid"], hit["uri"]) and score == f"{hit['score']:.4f}"


def test_csv_is_parseable_with_quoted_fields(payload):
    rows = list(csv.reader(io.StringIO(render_search(payload, "csv"))))
    assert rows[0] == ["docid", "score", "uri", "title", "relPath"]
    titles = {row[3] for row in rows[1:]}
    assert 'Alpha "quoted" & <tagged>' in titles
    assert render_search(payload, "csv").splitlines()[1].startswith('"#')


def test_xml_is_well_formed_and_escaped(payload):
    root = ET.fromstring(render_search(payload, "xml"))
    assert root.tag == "searchResults"
    meta = root.find("meta")
    assert (
        meta.get("query") == "sampling" and meta.get("mode") == "bm25" and meta.get("total") == "2"
    )
    titles = [r.findtext("title") for r in root.findall("result")]
    assert 'Alpha "quoted" & <tagged>' in titles


def test_markdown_and_terminal(payload):
    md = render_search(payload, "md")
    assert (
        md.startswith('# Search Results for "sampling"') and md.count("\n## ") == 2 and "```" in md
    )
    text = render_search(payload, None)
    assert text.splitlines()[0].startswith("[#") and text.endswith(
        '2 result(s) for "sampling" (bm25)'
    )
    empty = dict(payload, results=[])
    assert render_search(empty, None) == "No results found."


def test_ls_and_multi_get_renderers():
    docs = {
        "documents": [{"docid": "#abcdef12", "uri": "gno://n/a.md", "title": "A"}],
        "meta": {"total": 1, "returned": 1, "offset": 0},
    }
    assert render_documents(docs, "files") == "#abcdef12,gno://n/a.md"
    assert render_documents(docs, None).endswith("1 of 1 document(s)")
    multi = {
        "documents": [
            {
                "docid": "#abcdef12",
                "uri": "gno://n/a.md",
                "content": "x",
                "totalLines": 1,
                "truncated": True,
            }
        ],
        "skipped": [{"ref": "n/zz.md", "reason": "not_found"}],
    }
    text = render_multi_get(multi, None)
    assert "=== gno://n/a.md ===" in text and "(truncated)" in text and "n/zz.md: not_found" in text
