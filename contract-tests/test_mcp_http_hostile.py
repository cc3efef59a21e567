"""`/mcp` of a real `gno serve` against hostile HTTP clients (surfaces.md §3.6): a queue
of tool calls behind a slow one does not starve the REST routes of the same server;
resumption, a body that is not JSON and one past `maxBodyBytes` get GNO's statuses as
JSON-RPC errors, never a 500 or plain text."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import assert_valid
from rest_helpers import build_corpus, running, with_gateway

from gno.index_lock import WRITE_LEASE_NAME

httpx = pytest.importorskip("httpx")
pytest.importorskip("mcp")
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "hostile-http", "version": "0"},
    },
}
# More calls than the worker threads anyio lends the whole server (40 by default), and with
# the slow one and the ping within gateway.limits.maxConcurrentRequests (64 by default): a
# call past that waits for a slot, which none of these frees while the capture waits.
QUEUED_CALLS = 62


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve processes")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return build_corpus(tmp_path_factory.mktemp("mcp-hostile"), vectors=False)


def _session(client: httpx.Client, url: str) -> dict[str, str]:
    opened = client.post(url, json=INIT, headers=ACCEPT)
    assert opened.status_code == 200, opened.text
    headers = ACCEPT | {"Mcp-Session-Id": opened.headers["mcp-session-id"]}
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert client.post(url, json=done, headers=headers).status_code == 202
    return headers


def _tool(rid: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def _answer(text: str) -> dict[str, Any]:
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])


@contextlib.contextmanager
def writer_lease(env: dict[str, str]) -> Iterator[None]:
    """Another writer holds GNO's writer lease: a capture waits for it (up to 120 s)."""
    fd = os.open(Path(env["GNO_DATA_DIR"]) / WRITE_LEASE_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _has_open(pid: int, path: Path) -> bool:
    with contextlib.suppress(OSError):
        return any(os.readlink(fd) == str(path) for fd in Path(f"/proc/{pid}/fd").iterdir())
    return False


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc/<pid>/fd")
def test_mcp_calls_queued_behind_a_slow_one_leave_rest_answering(
    corpus: dict[str, str],
) -> None:
    """Tool calls run one at a time; those waiting for their turn used to wait on worker
    threads, so 64 of them behind a capture waiting for the writer lease took every
    thread of the server and REST reads hung until the capture gave up (120 s)."""
    lease = (Path(corpus["GNO_DATA_DIR"]) / WRITE_LEASE_NAME).resolve()
    with (
        running(corpus, "--mcp-enable-write", "--no-watch") as srv,
        httpx.Client(timeout=300) as client,
        writer_lease(corpus),
    ):
        url = f"{srv.url}/mcp"
        headers = _session(client, url)

        async def flood() -> None:
            limits = httpx.Limits(max_connections=QUEUED_CALLS + 8)
            async with httpx.AsyncClient(timeout=300, limits=limits) as calls:

                async def opened(message: dict[str, Any]) -> httpx.Response:
                    request = calls.build_request("POST", url, json=message, headers=headers)
                    return await calls.send(request, stream=True)  # its SSE stream has begun

                arguments = {"collection": "notes", "content": "queued", "path": "queued.md"}
                slow = await opened(_tool(2, "gno_capture", arguments))
                for _ in range(600):  # the capture holds the turn and waits for the lease
                    if _has_open(srv.proc.pid, lease):
                        break
                    await asyncio.sleep(0.1)
                assert _has_open(srv.proc.pid, lease)
                search = [_tool(10 + i, "gno_search", {"query": "q"}) for i in range(QUEUED_CALLS)]
                queued = await asyncio.gather(*(opened(m) for m in search))
                assert {r.status_code for r in queued} == {200}
                # Requests reach the session in order: once a later ping is answered, every
                # queued call has been handed to its handler.
                ping = {"jsonrpc": "2.0", "id": 999, "method": "ping"}
                pong = await calls.post(url, json=ping, headers=headers, timeout=60)
                assert _answer(pong.text) == {"jsonrpc": "2.0", "id": 999, "result": {}}
                # REST answers while the capture still waits for the lease.
                rest = await calls.post(f"{srv.url}/api/search", json={"query": "q"}, timeout=90)
                assert rest.status_code == 200, rest.text
                assert _has_open(srv.proc.pid, lease)
                for response in [slow, *queued]:
                    await response.aclose()

        asyncio.run(flood())


def test_resumption_and_media_type_are_refused_as_json_rpc(corpus: dict[str, str]) -> None:
    """`Last-Event-ID` is 400 (gno keeps no event store; the SDK sent no answer and the
    server 500), a body that is not `application/json` 415 (was 400 in plain text)."""
    with running(corpus, "--no-watch") as srv, httpx.Client(timeout=60) as client:
        url = f"{srv.url}/mcp"
        headers = _session(client, url)
        resume = {"Accept": "text/event-stream", "Last-Event-ID": "garbage"}
        session = {"Mcp-Session-Id": headers["Mcp-Session-Id"]}
        resumed = client.get(url, headers=resume | session)
        assert resumed.status_code == 400, resumed.text
        assert resumed.json()["error"]["code"] == -32600 and resumed.json()["id"] is None
        for media in ("text/plain", "application/x-www-form-urlencoded", ""):
            ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"})
            sent = client.post(url, content=ping, headers=headers | {"Content-Type": media})
            assert sent.status_code == 415, (media, sent.status_code, sent.text)
            assert sent.json()["error"]["code"] == -32600
        ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
        charset = headers | {"Content-Type": "application/json; charset=utf-8"}
        alive = client.post(url, content=json.dumps(ping), headers=charset)
        assert alive.status_code == 200 and _answer(alive.text)["id"] == 3


def test_the_configured_body_limit_is_the_one_on_mcp(
    corpus: dict[str, str], tmp_path: Path
) -> None:
    """maxBodyBytes (6 MiB here): a 5 MiB body is served (the SDK's own 4 MiB refused it
    in plain text), a bigger one is 413 `mcp-http-error@1.0`, declared or streamed (a
    streamed one was 500 once writes were on: the SDK read it and its error middleware
    answered first)."""
    limit = 6 * 1024 * 1024
    block = {"enableWrite": True, "limits": {"maxBodyBytes": limit}}
    with (
        with_gateway(corpus, tmp_path, block) as env,
        running(env, "--no-watch") as srv,
        httpx.Client(timeout=120) as client,
    ):
        url = f"{srv.url}/mcp"
        headers = _session(client, url)

        def body(size: int) -> bytes:
            return json.dumps(_tool(5, "gno_search", {"query": "q" * size})).encode()

        served = client.post(url, content=body(5 * 1024 * 1024), headers=headers)
        assert served.status_code == 200, served.text[:200]
        assert _answer(served.text)["result"]["isError"] is False
        big = body(limit)
        for content in (big, iter([big[:65536], big[65536:]])):  # declared, then chunked
            refused = client.post(url, content=content, headers=headers)
            assert refused.status_code == 413, refused.text[:200]
            assert_valid("gno://schemas/mcp-http-error@1.0", refused.json())
            assert refused.json()["error"]["message"] == "Request body too large"
        # REST keeps its own error body.
        rest = client.post(f"{srv.url}/api/search", content=big)
        assert rest.status_code == 413 and rest.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"


def test_batches_and_bad_ids_are_invalid_requests(corpus: dict[str, str]) -> None:
    """A batch was 400 `-32602` with pydantic's text, a request whose id is no string or
    integer 202 with no answer (the SDK took it for a notification): both are 400
    `-32600` with id null, as on stdio."""
    with running(corpus, "--no-watch") as srv, httpx.Client(timeout=60) as client:
        url = f"{srv.url}/mcp"
        headers = _session(client, url)
        batch = b'[{"jsonrpc":"2.0","id":2,"method":"ping"}]'
        bodies = [batch] + [
            b'{"jsonrpc":"2.0","id":%s,"method":"ping"}' % bad
            for bad in (b"{}", b"[1]", b"true", b"1.5", b"null")
        ]
        for body in bodies:
            refused = client.post(url, content=body, headers=headers)
            assert refused.status_code == 400, (body, refused.status_code, refused.text)
            error = refused.json()
            assert error["id"] is None and error["error"]["code"] == -32600, error
            assert "pydantic" not in error["error"]["message"]
        alive = client.post(
            url, json={"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers=headers
        )
        assert alive.status_code == 200 and _answer(alive.text)["id"] == 3


def test_resident_status_counts_open_sessions(corpus: dict[str, str], tmp_path: Path) -> None:
    """`transport.activeSessions` was always 0: it counts the sessions an `initialize`
    opened, less those ended by DELETE or by idle expiry."""
    block = {"limits": {"sessionIdleTimeoutMs": 2000}}
    with (
        with_gateway(corpus, tmp_path, block) as env,
        running(env, "--no-watch") as srv,
        httpx.Client(timeout=60) as client,
    ):
        url = f"{srv.url}/mcp"

        def active() -> int:
            status = client.get(f"{srv.url}/api/resident/status")
            return int(status.json()["transport"]["activeSessions"])

        assert active() == 0
        first, second = _session(client, url), _session(client, url)
        assert active() == 2
        ended = client.delete(url, headers={"Mcp-Session-Id": first["Mcp-Session-Id"]})
        assert ended.is_success, ended.text
        assert active() == 1
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        assert client.post(url, json=ping, headers=second).status_code == 200
        for attempt in range(1, 8):  # each wait is idle time past the timeout; bounded
            if active() == 0:
                break
            time.sleep(attempt)
        assert active() == 0
        expired = client.post(url, json=ping, headers=second)
        assert expired.status_code == 404
