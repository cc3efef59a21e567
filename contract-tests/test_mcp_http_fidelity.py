"""`/mcp` on a real `gno serve` as GNO answers it: `/mcp` itself (no redirect), the
write gate's HTTP 403 before dispatch, and the `gateway` block of index.yml
(flag → config → default)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import assert_valid
from rest_helpers import build_corpus, running, with_gateway

httpx = pytest.importorskip("httpx")
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw-http", "version": "0"},
    },
}


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve processes")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return build_corpus(tmp_path_factory.mktemp("mcp-http"), vectors=False)


def _rpc(url: str, message: dict[str, Any], session: str | None = None) -> httpx.Response:
    headers = ACCEPT | ({"Mcp-Session-Id": session} if session else {})
    return httpx.post(url, json=message, headers=headers, follow_redirects=False, timeout=30)


def _json_body(response: httpx.Response) -> dict[str, Any]:
    """A JSON-RPC answer sent as JSON or as one SSE event."""
    if response.headers["content-type"].startswith("application/json"):
        return response.json()
    data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    import json

    return json.loads(data[-1])


def _session(url: str) -> str:
    opened = _rpc(url, INIT)
    assert opened.status_code == 200, (opened.status_code, opened.text)
    session = opened.headers["mcp-session-id"]
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert _rpc(url, done, session).status_code == 202
    return session


def _call(url: str, session: str, tool: str, arguments: dict[str, Any], rid: int) -> httpx.Response:
    message = {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    return _rpc(url, message, session)


def test_mcp_without_trailing_slash_is_served_not_redirected(corpus: dict[str, str]) -> None:
    with running(corpus) as srv:
        for path in ("/mcp", "/mcp/"):
            opened = _rpc(f"{srv.url}{path}", INIT)
            assert opened.status_code == 200, (path, opened.status_code, opened.text)
            assert _json_body(opened)["result"]["serverInfo"]["name"] == "gno"
        session = _session(f"{srv.url}/mcp")
        listed = _rpc(
            f"{srv.url}/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session
        )
        assert "gno_search" in {t["name"] for t in _json_body(listed)["result"]["tools"]}


def test_write_tool_with_writes_off_is_403_before_dispatch(corpus: dict[str, str]) -> None:
    with running(corpus) as srv:
        url = f"{srv.url}/mcp"
        session = _session(url)
        refused = _call(url, session, "gno_sync", {}, 7)
        assert refused.status_code == 403
        body = refused.json()
        assert_valid("gno://schemas/mcp-http-error@1.0", body)
        assert body == {
            "jsonrpc": "2.0",
            "error": {"code": -32000, "message": "Forbidden"},
            "id": 7,
        }
        # Nothing ran: no job was started.
        assert httpx.get(f"{srv.url}/api/jobs/active").json() == {"activeJob": None}
        # A read tool on the same session still works, and an unknown tool stays -32602.
        read = _call(url, session, "gno_status", {}, 8)
        assert read.status_code == 200 and "result" in _json_body(read)
        unknown = _call(url, session, "gno_nope", {}, 9)
        assert unknown.status_code == 200 and _json_body(unknown)["error"]["code"] == -32602


def test_gateway_config_enables_writes_and_sets_the_profile(
    corpus: dict[str, str], tmp_path: Path
) -> None:
    block = {"enableWrite": True, "toolProfile": "core", "limits": {"maxBodyBytes": 2048}}
    with with_gateway(corpus, tmp_path, block) as env, running(env) as srv:
        url = f"{srv.url}/mcp"
        session = _session(url)
        listed = _rpc(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
        names = [t["name"] for t in _json_body(listed)["result"]["tools"]]
        # GNO's core list as the tools exist, in its order (gno_query first), with its writes
        assert names == [
            "gno_query", "gno_search", "gno_get", "gno_multi_get", "gno_context",
            "gno_changes", "gno_recall", "gno_capture", "gno_remember",
        ]  # fmt: skip
        # maxBodyBytes from the config: a bigger body is 413.
        big = httpx.post(
            f"{srv.url}/api/search", json={"query": "x" * 4096}, headers=ACCEPT, timeout=30
        )
        assert big.status_code == 413


def test_gateway_config_write_gate_open(corpus: dict[str, str], tmp_path: Path) -> None:
    with with_gateway(corpus, tmp_path, {"enableWrite": True}) as env, running(env) as srv:
        url = f"{srv.url}/mcp"
        session = _session(url)
        started = _call(url, session, "gno_sync", {}, 3)
        assert started.status_code == 200
        result = _json_body(started)["result"]
        assert not result.get("isError"), result
        assert result["structuredContent"]["status"] == "started"


def test_gateway_config_allowlists_and_flag_precedence(
    corpus: dict[str, str], tmp_path: Path
) -> None:
    block = {"allowedHosts": ["gno.test:1"], "enableWrite": "yes"}
    with (
        with_gateway(corpus, tmp_path, block) as env,
        pytest.raises(AssertionError, match="enableWrite"),
        running(env),
    ):
        pass  # a malformed gateway block stops the start
    block = {"allowedHosts": ["gno.test:1"]}
    with with_gateway(corpus, tmp_path / "b", block) as env, running(env) as srv:
        # Host allowlist from the config: its hosts are added to the loopback names (gno
        # serve is loopback-only and its Web UI must answer at 127.0.0.1), others refused.
        assert _rpc(f"{srv.url}/mcp", INIT).status_code == 200
        renamed = httpx.post(
            f"{srv.url}/mcp", json=INIT, headers=ACCEPT | {"Host": "gno.test:1"}, timeout=30
        )
        assert renamed.status_code == 200, renamed.text
        other = httpx.post(
            f"{srv.url}/mcp", json=INIT, headers=ACCEPT | {"Host": "other.test:1"}, timeout=30
        )
        assert other.status_code == 403
    # …and a flag wins over the config.
    with (
        with_gateway(corpus, tmp_path / "c", block) as env,
        running(env, "--mcp-allowed-host", "flag.test:2") as srv,
    ):
        from_config = httpx.post(
            f"{srv.url}/mcp", json=INIT, headers=ACCEPT | {"Host": "gno.test:1"}, timeout=30
        )
        assert from_config.status_code == 403
        by_flag = httpx.post(
            f"{srv.url}/mcp", json=INIT, headers=ACCEPT | {"Host": "flag.test:2"}, timeout=30
        )
        assert by_flag.status_code == 200, by_flag.text


def test_gateway_limits_rate_and_sessions(corpus: dict[str, str], tmp_path: Path) -> None:
    """`gateway.limits` (surfaces.md §3.6): a peer over `maxRequestsPerMinute` and a session
    over `maxSessions` get 429 `Too many requests`; other peers' REST routes are unaffected."""
    block = {"limits": {"maxRequestsPerMinute": 6, "maxSessions": 1}}
    with with_gateway(corpus, tmp_path, block) as env, running(env) as srv:
        url = f"{srv.url}/mcp"
        session = _session(url)  # requests 1 and 2
        second = _rpc(url, INIT)  # 3: one session is open, the limit is one
        assert second.status_code == 429, (second.status_code, second.text)
        assert_valid("gno://schemas/mcp-http-error@1.0", second.json())
        assert second.json()["error"]["message"] == "Too many requests"
        listed = _rpc(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
        assert listed.status_code == 200  # 4: the open session still works
        for rid in (5, 6):
            assert _rpc(url, {"jsonrpc": "2.0", "id": rid, "method": "ping"}, session).is_success
        over = _rpc(url, {"jsonrpc": "2.0", "id": 7, "method": "ping"}, session)
        assert over.status_code == 429, (over.status_code, over.text)  # 7th in a minute
        assert over.json()["error"] == {"code": -32000, "message": "Too many requests"}
        # The REST routes are not /mcp's: they keep answering, and status shows the limit.
        assert httpx.get(f"{srv.url}/api/health", timeout=30).status_code == 200
        resident = httpx.get(f"{srv.url}/api/resident/status", timeout=30).json()
        assert resident["transport"]["maxSessions"] == 1


def test_gateway_session_idle_timeout_ends_a_session(
    corpus: dict[str, str], tmp_path: Path
) -> None:
    """`sessionIdleTimeoutMs`: a session idle that long is ended; its id answers 404."""
    block = {"limits": {"sessionIdleTimeoutMs": 1000}}
    with with_gateway(corpus, tmp_path, block) as env, running(env) as srv:
        url = f"{srv.url}/mcp"
        session = _session(url)
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        assert _rpc(url, ping, session).status_code == 200
        for attempt in range(1, 6):  # each wait is idle time past the timeout; bounded
            time.sleep(1.5 * attempt)
            answer = _rpc(url, ping, session)
            if answer.status_code == 404:
                break
            assert answer.status_code == 200
        assert answer.status_code == 404, "the idle session was never ended"
        assert _session(url)  # a new session opens


def test_gateway_token_file_and_daemon_host_from_the_config(
    corpus: dict[str, str], tmp_path: Path
) -> None:
    """`gateway.tokenFile`: created (0600, 256 random bits) when missing and required from
    then on, loopback callers included; `gateway.host`: where `gno daemon` binds."""
    token_file = tmp_path / "mcp-token"
    block = {"tokenFile": str(token_file)}
    with with_gateway(corpus, tmp_path / "serve", block) as env, running(env) as srv:
        assert token_file.stat().st_mode & 0o777 == 0o600
        token = token_file.read_text().strip()
        assert len(token) >= 32
        assert _rpc(f"{srv.url}/mcp", INIT).status_code == 401
        bearer = ACCEPT | {"Authorization": f"Bearer {token}"}
        opened = httpx.post(f"{srv.url}/mcp", json=INIT, headers=bearer, timeout=30)
        assert opened.status_code == 200, opened.text
    if not _ipv6_loopback():
        pytest.skip("no IPv6 loopback here: the daemon host part needs ::1")
    block = {"host": "::1", "tokenFile": str(token_file)}
    with (
        with_gateway(corpus, tmp_path / "daemon", block) as env,
        running(env, command="daemon") as daemon,
    ):
        url = f"http://[::1]:{daemon.port}/mcp"
        headers = bearer | {"Host": f"[::1]:{daemon.port}"}
        assert httpx.post(url, json=INIT, headers=headers, timeout=30).status_code == 200
        with pytest.raises(httpx.ConnectError):  # not bound on 127.0.0.1
            httpx.post(f"{daemon.url}/mcp", json=INIT, headers=bearer, timeout=30)


def test_gateway_allowed_origins_from_the_config(corpus: dict[str, str], tmp_path: Path) -> None:
    block = {"allowedOrigins": ["http://app.test:8080"]}
    with with_gateway(corpus, tmp_path, block) as env, running(env) as srv:
        url = f"{srv.url}/mcp"
        for origin, status in (("http://app.test:8080", 200), ("http://evil.test:8080", 403)):
            answer = httpx.post(url, json=INIT, headers=ACCEPT | {"Origin": origin}, timeout=30)
            assert answer.status_code == status, (origin, answer.status_code, answer.text)
    with (
        with_gateway(corpus, tmp_path / "flag", block) as env,
        running(env, "--mcp-allowed-origin", "http://flag.test:1") as by_flag,
    ):
        refused = httpx.post(
            f"{by_flag.url}/mcp",
            json=INIT,
            headers=ACCEPT | {"Origin": "http://app.test:8080"},
            timeout=30,
        )
        assert refused.status_code == 403  # the flag wins over the config


def _ipv6_loopback() -> bool:
    import socket

    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True
