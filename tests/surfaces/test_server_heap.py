"""Both servers take what start-up made out of the collector's sight before they serve
(gno.launch.settle_heap): a full collection then walks only what serving made."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from gno import launch


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    try:
        yield
    finally:
        gc.unfreeze()  # the rest of the test session collects as before


def test_the_stdio_server_starts_on_a_frozen_heap(make_app, monkeypatch, unfrozen) -> None:
    import gno.mcp.server

    app, _ = make_app({"a.md": "# A\n"})
    seen: list[int] = []
    monkeypatch.setenv("GNO_MCP_EARLY_INITIALIZE", "0")  # stdin belongs to pytest
    monkeypatch.setattr(gno.mcp.server, "main", lambda *a, **k: seen.append(gc.get_freeze_count()))
    assert gc.get_freeze_count() == 0
    launch.mcp_stdio(app, enable_write=False, tool_profile=None)
    assert len(seen) == 1 and seen[0] > 10_000  # the modules, the MCP SDK among them


def test_serve_starts_on_a_frozen_heap(make_app, monkeypatch, unfrozen) -> None:
    import gno.rest.serve

    app, _ = make_app({"a.md": "# A\n"})
    seen: list[int] = []

    def run_server(*args: Any, **kwargs: Any) -> None:
        seen.append(gc.get_freeze_count())

    monkeypatch.setattr(gno.rest.serve, "serve", run_server)
    assert gc.get_freeze_count() == 0
    launch.serve(app, "serve", launch.ServerFlags(), set(), lambda url: None)
    assert len(seen) == 1 and seen[0] > 10_000  # FastAPI, uvicorn, the MCP SDK
