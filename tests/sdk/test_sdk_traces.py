"""Retrieval traces through the SDK (spec/traces.md): with tracing on, a traced read through
the local transport (in-process) or the remote one (``POST /api/op/<id>`` of a real server on
127.0.0.1, which answers the trace id in ``X-GNO-Trace-ID``) records a trace, and the client
says its id in ``last_trace_id``; a ``get`` given that id appends the opened document to it;
a read that is not traced, or tracing off, leaves ``last_trace_id`` None."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from gno import AsyncGno, Gno
from gno.app import App
from gno.paths import resolve_paths
from tests.conftest import sync
from tests.live_server import live_server

FILES = {"sampling.md": "# Tail sampling\n\nKeep only slow traces with the processor.\n"}
TRACING = "retrievalTraces:\n  enabled: true\n  redactionMode: replay\n"


@pytest.fixture
def traced(make_app: Any) -> App:
    app, _ = make_app(FILES)
    config = app.paths.config_file
    config.write_text(config.read_text() + TRACING)
    sync(app)
    return app


@pytest.fixture
def served(traced: App) -> Iterator[str]:
    from gno.rest.app import ServeOptions, create_app

    owner = App(resolve_paths())
    api = create_app(owner, options=ServeOptions(mcp=None, watch=False, web_ui=False))
    with live_server(api) as (url, _server):
        yield url


def check(client: Gno) -> None:
    hits = client.search(query="tail sampling")
    trace_id = client.last_trace_id
    assert trace_id is not None and trace_id.startswith("trc_")
    client.get(ref=hits.results[0].uri, traceId=trace_id)
    assert client.last_trace_id == trace_id  # appended to the same trace
    shown = client.trace_show(traceId=trace_id)
    assert shown.trace.queryText == "tail sampling"
    assert [e.kind.value for e in shown.events if e.kind.value == "open"] == ["open"]
    client.status()
    assert client.last_trace_id is None  # status is not a traced read


def test_local_transport_records_and_names_the_trace(traced: App) -> None:
    with Gno() as client:
        check(client)


def test_remote_transport_reads_the_trace_header(served: str) -> None:
    with Gno(url=served) as client:
        check(client)


def test_async_clients_name_the_trace_too(served: str) -> None:
    async def run() -> tuple[str | None, str | None]:
        async with AsyncGno(url=served) as remote, AsyncGno() as local:
            await remote.search(query="slow traces")
            await local.search(query="slow traces")
            return remote.last_trace_id, local.last_trace_id

    remote_id, local_id = asyncio.run(run())
    assert remote_id and local_id and remote_id != local_id


def test_tracing_off_names_no_trace(make_app: Any) -> None:
    app, _ = make_app(FILES)
    sync(app)
    with Gno() as client:
        client.search(query="tail sampling")
        assert client.last_trace_id is None
