"""MCP tools whose operation has a payload function answer from its wire form, as REST
does (gno/mcp/tools.py ``_answer``), without building the output model. Each such tool
must give what the model path gave: the same text and the same structuredContent, key
order included."""

from __future__ import annotations

import json
from typing import Any

import pytest

import gno.services.wire as service_wire
from gno.mcp import tools as mcp_tools
from gno.mcp.tools import call, tools
from tests.conftest import sync

FILES = {
    "a.md": "---\ntags: [project/x]\ndate: 2024-05-01\n---\n# Alpha\n\nalpha beta. See [[b]].\n",
    "b.md": "---\nrelations:\n  depends_on: [a.md]\n---\n# Beta\n\n## Part\n\nbeta [a](a.md)\n",
    "c.md": "# Gamma\n\nalpha gamma\n",
}
CALLS: dict[str, dict[str, Any]] = {
    "gno_search": {"query": "alpha"},
    "gno_get": {"ref": "notes/a.md"},
    "gno_multi_get": {"refs": ["notes/a.md", "notes/b.md"]},
    "gno_links": {"ref": "notes/b.md"},
    "gno_backlinks": {"ref": "notes/a.md"},
    "gno_graph": {},
    "gno_graph_query": {"ref": "notes/a.md"},
    "gno_list_tags": {},
    "gno_changes": {"limit": 1000},
    "gno_diff": {"ref": "notes/a.md"},
    "gno_impact": {"ref": "notes/a.md"},
}


def _model_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Answer every tool through its handler's model, as before the lean path."""

    def handler_only(app: Any, op: Any, inp: Any) -> Any:
        from gno.services import handler

        return handler(op.id)(app, inp)

    monkeypatch.setattr(mcp_tools, "_answer", handler_only)


def test_every_payload_tool_answers_as_its_model_would(make_app, monkeypatch) -> None:
    app, root = make_app(FILES)
    sync(app)
    (root / "a.md").write_text("# Alpha again\n\n## New\n\nalpha. See [[c]].\n")
    sync(app)
    available = tools("full")
    payload_tools = {name for name, tool in available.items() if tool.op.payload is not None}
    assert payload_tools <= set(CALLS), payload_tools - set(CALLS)  # a new one gets a call here
    built: list[str] = []
    real_answer = service_wire.answer

    def counting(op: Any, payload: dict[str, Any]) -> Any:
        built.append(op.id)
        return real_answer(op, payload)

    monkeypatch.setattr(service_wire, "answer", counting)
    lean = {name: call(app, available[name], CALLS[name]) for name in sorted(payload_tools)}
    assert sorted(built) == sorted(available[n].op.id for n in payload_tools)  # all went lean
    monkeypatch.undo()
    _model_path(monkeypatch)
    for name in sorted(payload_tools):
        modelled = call(app, available[name], CALLS[name])
        got = lean[name]
        assert not got.is_error, (name, got.text)
        assert got.text == modelled.text, name
        assert json.dumps(got.structured) == json.dumps(modelled.structured), name
