"""Every surface runs a handler under a ``Call`` of its own (gno/services/call.py): the
REST dispatcher (a real uvicorn on 127.0.0.1), MCP over Streamable HTTP and in memory,
the CLI runner, the SDK's local transport, and a background job started over REST. The
``search`` handler is wrapped to record ``current_call()`` and then does its real work."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from gno.app import App
from gno.paths import resolve_paths
from gno.services import resolve
from gno.services.call import PROCESS_CALL, Call, current_call
from tests.conftest import sync
from tests.live_server import live_server

FILES = {"sampling.md": "# Tail sampling\n\nKeep only slow traces.\n"}


@pytest.fixture
def seen(make_app: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Call]]:
    """The calls ``search`` ran under (its answers stay the real ones): its payload function,
    which the handler wraps and the CLI's lean path calls alone."""
    import gno.services.search as module

    app, _ = make_app(FILES)
    sync(app)
    calls: list[Call] = []
    real = module.search_payload

    def recording(app: App, inp: Any) -> Any:
        calls.append(current_call())
        return real(app, inp)

    monkeypatch.setattr(module, "search_payload", recording)
    resolve.cache_clear()  # handler("search") resolves the wrapper
    yield calls
    resolve.cache_clear()


def _serve(*, mcp: bool = False) -> Any:
    from gno.rest.app import ServeOptions, create_app

    options = ServeOptions(mcp=None, watch=False, web_ui=False)
    if mcp:
        from gno.mcp.hosting import http_app

        options = ServeOptions(mcp=http_app, watch=False, web_ui=False)
    return create_app(App(resolve_paths()), options=options)


def test_rest_calls_are_rest_from_loopback_each_with_its_own_id(seen: list[Call]) -> None:
    with live_server(_serve()) as (url, _), httpx.Client(base_url=url, timeout=30) as http:
        for query in ("tail sampling", "slow traces"):
            answer = http.post("/api/search", json={"query": query})
            assert answer.status_code == 200 and answer.json()["results"]
        proxied = http.post(
            "/api/search", json={"query": "keep"}, headers={"X-Forwarded-For": "10.1.1.1"}
        )
    assert proxied.status_code == 200, proxied.text
    assert [(c.surface, c.zone) for c in seen] == [
        ("rest", "loopback"),
        ("rest", "loopback"),
        ("rest", "loopback"),  # the socket peer counts, never X-Forwarded-For (§3.6)
    ]
    assert len({c.request_id for c in seen}) == 3


def test_mcp_over_http_and_in_memory(seen: list[Call]) -> None:
    from mcp.client import Client

    from gno.mcp.server import build_server

    async def over(target: Any) -> None:
        async with Client(target, mode="legacy") as client:
            result = await client.call_tool("gno_search", {"query": "tail sampling"})
            assert not result.is_error

    with live_server(_serve(mcp=True)) as (url, _):
        anyio.run(over, f"{url}/mcp")
    app = App(resolve_paths())
    try:
        anyio.run(over, build_server(app))
    finally:
        app.close()
    assert [(c.surface, c.zone) for c in seen] == [("mcp", "loopback"), ("mcp", "local_process")]


def test_cli_and_sdk_local_calls(seen: list[Call], capsys: pytest.CaptureFixture[str]) -> None:
    from gno import Gno
    from gno.cli.entry import run

    assert run(["search", "tail", "--json"]) == 0
    assert "sampling.md" in capsys.readouterr().out
    with Gno() as client:
        assert client.search(query="tail").results
    assert [(c.surface, c.zone) for c in seen] == [
        ("cli", "local_process"),
        ("sdk", "local_process"),
    ]
    assert PROCESS_CALL not in seen


def test_a_job_runs_under_the_call_that_started_it(make_app: Any) -> None:
    from gno.services.call import bind
    from gno.services.job_runtime import JobManager, JobResult

    make_app(FILES)
    ran: list[Call] = []

    def work(_: object) -> JobResult:
        ran.append(current_call())
        raise RuntimeError("done")  # the job fails; what it ran under is recorded

    jobs: JobManager[object] = JobManager(object, lambda _: None)
    starter = Call("rest", "lan", trace_id="t-9")
    with bind(starter):
        job = jobs.start("sync", work)
    assert job.done.wait(30)
    assert ran and ran[0].request_id == starter.request_id
    assert (ran[0].surface, ran[0].zone, ran[0].trace_id) == ("rest", "lan", "t-9")
    assert ran[0].cancel is job.cancel  # the job's own token: shutdown cancels the job
    assert ran[0].cancel is not starter.cancel  # the request ending does not


def test_mcp_resource_reads_run_under_an_mcp_call(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp.client import Client

    import gno.services.resources as resources
    from gno.mcp.server import build_server

    app, _ = make_app(FILES)
    sync(app)
    calls: list[Call] = []
    real = resources.read_resource

    def recording(app: App, uri: str) -> str:
        calls.append(current_call())
        return real(app, uri)

    monkeypatch.setattr(resources, "read_resource", recording)

    async def read() -> None:
        async with Client(build_server(app), mode="legacy") as client:
            result = await client.read_resource("gno://notes/sampling.md")
            assert "Keep only slow traces" in result.contents[0].text

    anyio.run(read)
    assert [(c.surface, c.zone) for c in calls] == [("mcp", "local_process")]
