"""Speed work may not change results (issue 13, "Rules"): the same queries return the same
documents, in the same order, with the same scores and snippet lines, on a fixed corpus.

The corpus is generated from a seed (tests/services/pinned_corpus.py) and the answers are
committed in tests/fixtures/pinned_results.json. A change that is meant to move results
rewrites that file on purpose, and the diff shows what moved:

    GNO_PIN_RESULTS=write .venv/bin/pytest tests/services/test_search_pinned.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from gno_contracts.models.query_input import QueryInput
from gno_contracts.models.search_input import SearchInput

from gno.services.query import query
from gno.services.search import search
from tests.conftest import sync
from tests.services.pinned_corpus import QUERIES, corpus

PINNED = Path(__file__).resolve().parents[1] / "fixtures" / "pinned_results.json"


def _answers(app: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for text in QUERIES:
        found = search(app, SearchInput(query=text, limit=10))
        hybrid = query(app, QueryInput(query=text, limit=10))
        out[text] = {
            "search": [
                [r.uri, round(r.score, 4), r.snippetRange.startLine, r.snippetRange.endLine]
                for r in found.results
            ],
            "searchRelaxed": bool(found.meta.relaxed),
            "query": [[r.uri, round(r.score, 4)] for r in hybrid.results],
        }
    return out


def _readable(answers: dict[str, Any]) -> str:
    """The JSON with one hit per line, so a diff of the file names the hits that moved."""
    lines = ["{"]
    for n, (text, modes) in enumerate(answers.items()):
        lines.append(f"  {json.dumps(text, ensure_ascii=False)}: {{")
        for m, (mode, value) in enumerate(modes.items()):
            end = "," if m < len(modes) - 1 else ""
            if isinstance(value, list) and value:
                hits = ",\n".join(f"      {json.dumps(hit, ensure_ascii=False)}" for hit in value)
                lines.append(f'    "{mode}": [\n{hits}\n    ]{end}')
            else:
                lines.append(f'    "{mode}": {json.dumps(value)}{end}')
        lines.append("  }" + ("," if n < len(answers) - 1 else ""))
    return "\n".join([*lines, "}"]) + "\n"


@pytest.fixture
def answers(make_app):
    app, _ = make_app(corpus(), name="pinned")
    sync(app)
    return _answers(app)


def test_the_pinned_queries_answer_exactly_as_committed(answers) -> None:
    if os.environ.get("GNO_PIN_RESULTS") == "write":
        PINNED.write_text(_readable(answers), encoding="utf-8")
        pytest.skip(f"rewrote {PINNED.name}")
    pinned = json.loads(PINNED.read_text(encoding="utf-8"))
    assert list(answers) == list(pinned), "the query list changed: rewrite the pinned file"
    moved = {q: {"now": answers[q], "pinned": pinned[q]} for q in pinned if answers[q] != pinned[q]}
    assert not moved, json.dumps(moved, indent=1, ensure_ascii=False)[:4000]


def test_the_pinned_corpus_exercises_what_it_should(answers) -> None:
    """The pins are only worth something if the queries rank several documents, hit the
    fallback once and find the other languages."""
    assert sum(len(a["search"]) >= 5 for a in answers.values()) >= 12
    relaxed = {q for q, a in answers.items() if a["searchRelaxed"]}
    assert "zebra sampling" in relaxed and "tail sampling processor" not in relaxed
    assert answers["sample_setting"]["search"], "an identifier from a code fence is found"
    assert answers["muestreo de trazas"]["search"][0][0].startswith("gno://pinned/es/")
    assert answers["サンプリング"]["search"][0][0].startswith("gno://pinned/ja/")
    twins = [hit[0] for hit in answers["tail sampling processor"]["search"][:2]]
    assert set(twins) == {"gno://pinned/twins/first.md", "gno://pinned/twins/second.md"}
