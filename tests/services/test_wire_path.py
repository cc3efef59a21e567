"""The CLI's lean read path (gno/services/wire.py) prints what the pydantic path prints.

Each command line runs twice through the real entry point on a real index: once as a user
gets it (search, get, status and the graph family's reads answer from the wire form, no
model built) and once with the lean path switched off (the generated models, as before session 8). stdout, stderr and the exit
code must be identical, and the first run must really have taken the lean path.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import gno.cli.runner as runner
import gno.services.wire as wire
from gno.cli.entry import run

NOTES = {
    "a.md": """
        ---
        title: Alpha notes
        tags: [project/x, draft]
        date: 2024-05-01
        ---
        # Alpha

        alpha beta gamma, the first line of alpha.
        A second paragraph mentions beta twice: beta.

        ```python
        alpha = "code"
        ```
    """,
    "b/deep.md": "# Beta deep\n\nbeta gamma delta " * 30 + "\n\n[[a]] and [a](../a.md)\n",
    "c.txt": "plain text with alpha and unicode: naïve café 東京 \x1b[31mred\x1b[0m\n",
    "d.md": "# Δ Greek\n\nΑλφα alpha übung\n" + "filler line\n" * 40 + "alpha at the end\n",
    # a mail export: record hits and documents carry the nested record object
    "mail.eml": (
        "From: Ada <ada@example.org>\nTo: Bob <bob@example.org>\nSubject: Alpha plan\n"
        "Date: Mon, 6 May 2024 10:00:00 +0000\nMessage-ID: <m1@example.org>\n\n"
        "The alpha plan, in a mail.\n"
    ),
    # more hits than the terminal's default limit (5): the schema default must hold
    **{f"e/{i}.md": f"# E{i}\n\nalpha {'beta ' * i}\n" for i in range(6)},
    # links, a typed edge and tags for the graph family; rewritten after the first sync
    # (the fixture) so that `changes` and `diff` show an update with structural deltas
    "f.md": "---\ntags: [project/y]\n---\n# Foxtrot\n\nSee [[a]] and [beta](b/deep.md).\n",
}
SECOND_F = (
    "---\ntags: [project/y, draft]\nrelations:\n  depends_on: [a.md]\n---\n"
    "# Foxtrot again\n\n## Part\n\nSee [[a]], [[nowhere]] and [delta](d.md).\n"
)
LINES = [
    ["search", "alpha"],
    ["search", "alpha", "--json"],
    ["search", "alpha", "--files"],
    ["search", "alpha", "--md"],
    ["search", "alpha", "--xml"],
    ["search", "alpha", "--csv"],
    ["search", "alpha", "--line-numbers", "--full", "-n", "2"],
    ["search", "beta gamma", "-n", "2", "--min-score", "0.5", "--json"],
    ["search", "beta", "--min-score", "1", "--files"],
    ["search", "alpha", "-c", "notes", "--json"],
    ["search", "nothing-matches-this", "--json"],
    ["search", "alpha", "-q"],
    ["--json", "search", "gamma delta"],
    ["get", "notes/a.md"],
    ["get", "notes/a.md", "--json"],
    ["get", "notes/a.md", "--md"],
    ["get", "notes/a.md:3", "-l", "2", "--line-numbers", "--json"],
    ["get", "notes/d.md", "--from", "40", "--json"],
    ["get", "gno://notes/c.txt"],
    ["get", "notes/b/deep.md", "--source", "--json"],
    ["get", "notes/missing.md"],
    ["search", "alpha", "-c", "nope"],
    ["search", "plan", "--json"],
    ["search", "plan"],
    ["status"],
    ["status", "--json"],
    ["status", "--md"],
    ["--json", "status"],
    # (`links --type` and `graph query --direction` are enums without a JSON type: the
    # lean path declines those inputs and the models run, so no line here uses them)
    ["links", "notes/f.md"],
    ["links", "notes/f.md", "--json"],
    ["links", "notes/f.md", "--md"],
    ["links", "list", "notes/f.md", "--json"],
    ["links", "notes/f.md", "--edge-type", "depends_on"],
    ["links", "notes/f.md", "--relation", "depends_on", "--json"],
    ["links", "notes/f.md", "--type", "wiki", "--edge-type", "depends_on"],
    ["links", "notes/missing.md"],
    ["backlinks", "notes/a.md"],
    ["backlinks", "notes/a.md", "--json"],
    ["backlinks", "notes/a.md", "--md"],
    ["backlinks", "notes/a.md", "--edge-type", "depends_on", "--json"],
    ["backlinks", "notes/a.md", "-c", "nope"],
    ["graph"],
    ["graph", "--json"],
    ["graph", "--dot"],
    ["graph", "--mermaid"],
    ["graph", "--include-isolated", "--limit", "3", "--edge-limit", "1", "--json"],
    ["graph", "-c", "nope"],
    ["graph", "query", "notes/f.md"],
    ["graph", "query", "notes/f.md", "--json"],
    ["graph", "query", "notes/a.md", "--max-depth", "1", "--edge-type", "depends_on", "--json"],
    ["graph", "query", "notes/f.md", "--direction", "sideways"],
    ["tags"],
    ["tags", "--json"],
    ["tags", "list", "--md"],
    ["tags", "--prefix", "project", "--json"],
    ["tags", "-c", "nope"],
    ["changes"],
    ["changes", "--json"],
    ["changes", "-n", "2", "-c", "notes", "--json"],
    ["changes", "--since", "not-a-time"],
    ["diff", "notes/f.md"],
    ["diff", "notes/f.md", "--json"],
    ["diff", "notes/a.md", "--change", "gno-change-id-v1.1", "--json"],
    ["diff", "notes/missing.md"],
    ["impact", "notes/a.md"],
    ["impact", "notes/a.md", "--json"],
    ["impact", "notes/a.md", "--max-depth", "0"],
    ["similar", "notes/a.md"],
    ["similar", "notes/a.md", "--json"],
    ["similar", "notes/a.md", "--md"],
    ["similar", "notes/a.md", "--threshold", "0", "-n", "2", "--cross-collection", "--json"],
    ["similar", "notes/b/deep.md"],
    ["similar", "notes/missing.md", "--json"],
    ["graph", "--include-similar", "--threshold", "0.5", "--json"],
    ["ls"],
    ["ls", "--json"],
    ["ls", "notes", "-n", "3", "--offset", "2", "--files"],
    ["ls", "gno://notes/e/", "--md"],
    ["ls", "nope"],
    ["multi-get", "notes/a.md,notes/c.txt"],
    ["multi-get", "notes/e/*.md", "--max-bytes", "12", "--json"],
    ["multi-get", "notes/a.md", "notes/missing.md", "--line-numbers", "--md"],
    ["multi-get", "notes/d.md", "--files"],
    ["multi-get", "notes/a.md", "--max-bytes", "0"],
]
# status says when it was made and how long its probe took: the two runs differ there only
WHEN = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z|\"latencyMs\": \d+")


VECTORS = {
    "notes/a.md": [1.0, 0.1, 0.0, 0.0],
    "notes/f.md": [0.9, 0.2, 0.0, 0.0],
    "notes/d.md": [0.7, 0.0, 0.7, 0.0],
    "notes/c.txt": [0.0, 0.0, 1.0, 0.0],
}


@pytest.fixture
def notes(make_app: Any, tmp_path: Path) -> Path:
    from tests.conftest import sync
    from tests.services.test_graph_engine import _seed_vectors

    app, root = make_app(NOTES)
    sync(app)
    (root / "f.md").write_text(SECOND_F)
    sync(app)
    _seed_vectors(app, VECTORS)  # for `similar` and the graph's similarity edges
    return root


def one(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, WHEN.sub("<time>", out), err


@pytest.mark.parametrize("argv", LINES, ids=[" ".join(a) for a in LINES])
def test_the_lean_path_prints_what_the_models_print(
    notes: Path, argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    taken: list[Any] = []
    real_answer = wire.answer

    def answer(op: Any, payload: dict[str, Any]) -> Any:
        taken.append(result := real_answer(op, payload))
        return result

    monkeypatch.setattr(wire, "answer", answer)
    lean = one(argv, capsys)
    if lean[0] == 0:  # an error answers before any payload: nothing to prove there
        assert taken and all(isinstance(t, wire.Wire) for t in taken), "took the model path"

    monkeypatch.setattr(runner, "lean_input", lambda op, fields: None)
    taken.clear()
    models = one(argv, capsys)
    assert not taken
    assert lean == models


def test_an_input_the_lean_path_is_unsure_of_gets_the_models_error(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = one(["search", "alpha", "-n", "0", "--json"], capsys)
    assert (code, out) == (1, "")
    assert '"VALIDATION"' in err and "limit" in err


def test_a_traced_read_records_models(
    notes: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    """With tracing on, the recorder still gets the input and result models."""
    from gno.services import trace_record

    seen: list[tuple[str, str]] = []

    def record(app: Any, op_id: str, inp: Any, result: Any, incoming: Any = None) -> str:
        seen.append((type(inp).__name__, type(result).__name__))
        return "t-1"

    monkeypatch.setattr(trace_record, "record_call", record)
    import gno.services.trace_surface as surface

    monkeypatch.setattr(surface, "_enabled", lambda raw: True)
    code, out, err = one(["search", "alpha", "--files"], capsys)
    assert code == 0 and "Trace: t-1" in err and "gno://notes/a.md" in out
    assert seen == [("SearchInput", "SearchResults")]


def test_a_record_hit_and_its_document_take_the_lean_path(
    notes: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    """The mail export's record object (nested, open) goes through the canonical form too."""
    import json

    taken: list[Any] = []
    real_answer = wire.answer
    monkeypatch.setattr(wire, "answer", lambda op, p: taken.append(real_answer(op, p)) or taken[-1])
    code, out, _ = one(["search", "plan", "--json"], capsys)
    hits = [h for h in json.loads(out)["results"] if "record" in h]
    assert code == 0 and hits, out
    code, out, _ = one(["get", hits[0]["uri"], "--json"], capsys)
    assert code == 0 and "record" in json.loads(out)
    assert len(taken) == 2 and all(isinstance(t, wire.Wire) for t in taken)
