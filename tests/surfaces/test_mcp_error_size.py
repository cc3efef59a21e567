"""An MCP error names the problem without echoing the argument: a 200 KB value that breaks
the schema must not come back whole (twice: text and structuredContent), past the 1 MiB an
MCP client reads in one server-sent event."""

from __future__ import annotations

import json

from gno.app import App
from gno.mcp.tools import MAX_ERROR_MESSAGE, call, tools
from tests.conftest import sync


def test_a_huge_invalid_argument_is_not_echoed(make_app) -> None:  # type: ignore[no-untyped-def]
    app: App
    app, _ = make_app({"a.md": "# A\n"})
    sync(app)
    tool = tools("full", enable_write=True)["gno_capture"]
    for args in (
        {"collection": "notes", "content": "hi", "path": "x" * 200_000},
        {"collection": "notes", "content": "hi", "title": "😀" * 50_000},
    ):
        out = call(app, tool, args)
        assert out.is_error and out.structured["error"] == "VALIDATION"
        assert len(out.structured["message"]) <= MAX_ERROR_MESSAGE + 1
        assert len(out.text) + len(json.dumps(out.structured)) < 10_000
