"""The SDK passes the typed metadata ``filter`` through both transports (in-process and a
real server on 127.0.0.1): the same hits, and a bad predicate is the same ValidationError
naming its field path."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gno import Gno
from gno.app import App
from gno.errors import ValidationError
from gno.paths import resolve_paths
from tests.conftest import sync
from tests.live_server import live_server

FILES = {
    "a.md": "---\nstatus: approved\npriority: 3\n---\n# A\n\nrollout alpha\n",
    "b.md": "---\nstatus: draft\npriority: 1\n---\n# B\n\nrollout beta\n",
}


@pytest.fixture
def served(make_app: Any) -> Iterator[str]:
    from gno.rest.app import ServeOptions, create_app

    app, _ = make_app(FILES)
    sync(app)
    api = create_app(
        App(resolve_paths()), options=ServeOptions(mcp=None, watch=False, web_ui=False)
    )
    with live_server(api) as (url, _server):
        yield url


def test_filter_on_both_transports(served: str) -> None:
    wanted = {"op": "gte", "key": "priority", "value": 2}
    with Gno() as local, Gno(url=served) as remote:
        for client in (local, remote):
            hits = client.search(query="rollout", filter=wanted)
            assert [h.source.relPath for h in hits.results] == ["a.md"]
            listed = client.ls(
                scope="notes", filter={"op": "eq", "key": "status", "value": "draft"}
            )
            assert [d.source.relPath for d in listed.documents] == ["b.md"]
            with pytest.raises(ValidationError, match=r"filter\.value"):
                client.search(query="rollout", filter={"op": "gt", "key": "priority", "value": "x"})
