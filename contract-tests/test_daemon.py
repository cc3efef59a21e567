"""`gno daemon`, the gateway of a non-loopback listener, and process management
(`--detach`, `--status`, `--stop`) of serve and daemon, as real processes on real
sockets: one owner per data directory, flags a non-loopback bind needs, the token
file, Host/Origin/bearer on a 0.0.0.0 listener (reached through 127.0.0.1), MCP over
/mcp with a bearer but without write tools, what the daemon does not serve, the
initial sync, and the detached lifecycle with its process-status@1.0 payload."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import NOTES, assert_valid, gno_env, run_gno, write_tree
from rest_helpers import running

httpx = pytest.importorskip("httpx")
HOST, ORIGIN = "gno.test", "https://client.example"
DEADLINE = 60.0
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno processes")


def fresh_home(root: Path) -> dict[str, str]:
    """init + collection `notes` (8 files), never synced."""
    notes = write_tree(root / "corpus" / "notes", NOTES)
    env = gno_env(root)
    for args in (["init"], ["collection", "add", str(notes), "--name", "notes"]):
        done = run_gno(env, *args)
        assert done.returncode == 0, (args, done.stderr)
    return env


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A shared home for tests that never get a server running (refusals, flag checks)."""
    return fresh_home(tmp_path_factory.mktemp("daemon"))


@pytest.fixture
def own_env(tmp_path: Path) -> dict[str, str]:
    """A home of its own for every test that runs a server: one owner per data directory."""
    return fresh_home(tmp_path)


def data_dir(env: dict[str, str]) -> Path:
    return Path(env["GNO_DATA_DIR"])


def wait_for(check: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + DEADLINE
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return found


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    state = Path(f"/proc/{pid}/stat")
    return state.exists() and state.read_text().rsplit(") ", 1)[1][0] == "Z"


def mcp_error(response: Any, status: int, message: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert_valid("gno://schemas/mcp-http-error@1.0", body)
    assert body["error"]["message"] == message


def rpc_result(response: Any) -> dict[str, Any]:
    """The JSON-RPC answer of a Streamable HTTP POST (JSON, or one SSE message)."""
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("application/json"):
        return response.json()
    data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])


def mcp_tool_names(url: str, headers: dict[str, str]) -> set[str]:
    """initialize → notifications/initialized → tools/list, by hand so the test owns every
    header (Host, Authorization)."""
    with httpx.Client(base_url=url, headers={**headers, **MCP_ACCEPT}, timeout=30) as client:
        init = client.post(
            "/mcp/",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "contract-test", "version": "0"},
                },
            },
        )
        assert rpc_result(init)["result"]["serverInfo"]["name"] == "gno"
        session = {"Mcp-Session-Id": init.headers["mcp-session-id"]}
        done = client.post(
            "/mcp/", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
        )
        assert done.status_code == 202, done.text
        listed = client.post(
            "/mcp/", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=session
        )
        return {tool["name"] for tool in rpc_result(listed)["result"]["tools"]}


def write_tools() -> set[str]:
    from gno_contracts.operations import OPERATIONS

    return {op.mcp.tool for op in OPERATIONS if op.mcp and op.access == "write"}


# ---------------------------------------------------------------- startup refusals


def test_one_owner_per_data_dir_serve_then_daemon_and_back(own_env: dict[str, str]) -> None:
    env = own_env
    with running(env):
        done = run_gno(env, "daemon", "--port", "0", "--no-sync-on-start")
        assert done.returncode == 2, done.stderr
        assert "already owns this data directory (gno serve, pid" in done.stderr
    with running(env, "--no-sync-on-start", command="daemon"):
        done = run_gno(env, "serve", "--port", "0")
        assert done.returncode == 2, done.stderr
        assert "already owns this data directory (gno daemon, pid" in done.stderr


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10"])
def test_serve_refuses_a_non_loopback_host(env: dict[str, str], host: str) -> None:
    done = run_gno(env, "serve", "--host", host, "--port", "0")
    assert done.returncode == 1 and done.stdout == ""
    assert "loopback only" in done.stderr and "gno daemon --host" in done.stderr


@pytest.mark.parametrize(
    ("flags", "missing"),
    [
        ([], {"--mcp-token-file", "--mcp-allowed-host", "--mcp-allowed-origin"}),
        (["--mcp-allowed-host", HOST], {"--mcp-token-file", "--mcp-allowed-origin"}),
        (["--mcp-allowed-host", HOST, "--mcp-allowed-origin", ORIGIN], {"--mcp-token-file"}),
    ],
)
def test_daemon_non_loopback_names_what_is_missing(
    env: dict[str, str], flags: list[str], missing: set[str]
) -> None:
    done = run_gno(env, "daemon", "--host", "0.0.0.0", "--port", "0", *flags)
    assert done.returncode == 2 and done.stdout == ""
    message = done.stderr
    named = {
        f
        for f in ("--mcp-token-file", "--mcp-allowed-host", "--mcp-allowed-origin")
        if f in message
    }
    assert named == missing, message


def test_token_file_created_0600_then_looser_mode_refused(
    own_env: dict[str, str], tmp_path: Path
) -> None:
    env, token_path = own_env, tmp_path / "mcp-token"
    with running(
        env, "--no-sync-on-start", "--mcp-token-file", str(token_path), command="daemon"
    ) as srv:
        token = token_path.read_text().strip()
        assert stat.S_IMODE(token_path.stat().st_mode) == 0o600
        assert len(token) >= 43  # 256 bits, URL-safe base64
        assert token not in "".join(srv.stderr)
        # a loopback daemon with a token file requires the bearer of loopback callers too
        mcp_error(httpx.get(f"{srv.url}/api/resident/status"), 401, "Unauthorized")
        ok = httpx.get(
            f"{srv.url}/api/resident/status", headers={"Authorization": f"Bearer {token}"}
        )
        assert ok.status_code == 200
    token_path.chmod(0o644)
    done = run_gno(env, "daemon", "--port", "0", "--mcp-token-file", str(token_path))
    assert done.returncode == 2
    assert "looser than 0600" in done.stderr and token not in done.stderr


# ---------------------------------------------------------------- a 0.0.0.0 gateway


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    home = tmp_path_factory.mktemp("remote")
    env, token_path = fresh_home(home), home / "token"
    flags = [
        "--host",
        "0.0.0.0",
        "--no-sync-on-start",
        "--mcp-token-file",
        str(token_path),
        "--mcp-allowed-host",
        HOST,
        "--mcp-allowed-origin",
        ORIGIN,
    ]
    with running(env, *flags, command="daemon") as srv:
        srv.token = token_path.read_text().strip()
        yield srv


def test_gateway_host_then_bearer(remote: Any) -> None:
    status_url = f"{remote.url}/api/resident/status"
    bearer = {"Authorization": f"Bearer {remote.token}"}
    mcp_error(httpx.get(status_url, headers=bearer), 403, "Forbidden")  # Host 127.0.0.1:port
    mcp_error(httpx.get(status_url, headers={"Host": "evil.test", **bearer}), 403, "Forbidden")
    refused = httpx.get(status_url, headers={"Host": HOST})
    mcp_error(refused, 401, "Unauthorized")
    assert refused.headers["www-authenticate"] == "Bearer"
    wrong = {"Host": HOST, "Authorization": "Bearer " + "x" * 43}
    mcp_error(httpx.get(status_url, headers=wrong), 401, "Unauthorized")
    forwarded = {"Host": HOST, "X-Forwarded-For": "127.0.0.1", "Forwarded": "for=127.0.0.1"}
    mcp_error(httpx.get(status_url, headers=forwarded), 401, "Unauthorized")
    foreign_origin = {"Host": HOST, "Origin": "https://evil.example", **bearer}
    mcp_error(httpx.get(status_url, headers=foreign_origin), 403, "Forbidden")
    for headers in ({"Host": HOST, **bearer}, {"Host": HOST, "Origin": ORIGIN, **bearer}):
        answer = httpx.get(status_url, headers=headers)
        assert answer.status_code == 200, answer.text
        assert_valid("gno://schemas/resident-status@1.0", answer.json())
        assert answer.json()["mode"] == "daemon"
        assert answer.json()["listenerPort"] == remote.port


def test_gateway_mcp_with_a_bearer_lists_no_write_tools(remote: Any) -> None:
    with httpx.Client(base_url=remote.url, headers={"Host": HOST}) as client:
        init = client.post("/mcp/", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        mcp_error(init, 401, "Unauthorized")
    names = mcp_tool_names(remote.url, {"Host": HOST, "Authorization": f"Bearer {remote.token}"})
    assert {"gno_search", "gno_query", "gno_get"} <= names
    assert not names & write_tools()  # a bearer proves who calls, not what they may write


def test_daemon_serves_no_rest_reads_writes_or_docs(remote: Any) -> None:
    headers = {"Host": HOST, "Authorization": f"Bearer {remote.token}"}
    for method, path in (
        ("POST", "/api/search"),
        ("POST", "/api/sync"),
        ("GET", "/api/health"),
        ("GET", "/api/docs"),
        ("GET", "/docs"),
        ("GET", "/openapi.json"),
        ("GET", "/api/status"),  # Host gno.test is not this host: not served to it
    ):
        answer = httpx.request(method, f"{remote.url}{path}", headers=headers, json={})
        assert answer.status_code == 404, (path, answer.text)
        assert answer.json()["error"]["code"] == "NOT_FOUND"


def test_sigterm_stops_the_daemon_cleanly(own_env: dict[str, str]) -> None:
    with running(own_env, "--no-sync-on-start", command="daemon") as srv:
        assert srv.stop(signal.SIGTERM) == 0


# ---------------------------------------------------------------- loopback daemon


def test_loopback_daemon_status_only_to_same_host_and_initial_sync(
    own_env: dict[str, str],
) -> None:
    with running(own_env, command="daemon") as srv:
        # The initial sync is submitted before the server answers.
        first = httpx.get(f"{srv.url}/api/resident/status").json()
        assert first["jobs"]["active"] + first["jobs"]["recent"] == 1

        def indexed() -> dict[str, Any] | None:
            status = httpx.get(f"{srv.url}/api/status").json()
            return status if status["totalDocuments"] == len(NOTES) else None

        status = wait_for(indexed, "the initial sync")
        assert_valid("gno://schemas/status@1.0", status)
        assert status["resident"]["mode"] == "daemon"
        forwarded = httpx.get(f"{srv.url}/api/status", headers={"X-Forwarded-For": "10.0.0.7"})
        assert forwarded.status_code == 404  # not provably same-host: not served
        mcp_error(httpx.get(f"{srv.url}/api/status", headers={"Host": "gno.lan"}), 403, "Forbidden")
        assert httpx.post(f"{srv.url}/api/search", json={"query": "x"}).status_code == 404
        wait_for(lambda: "initial sync done: 8 added" in "".join(srv.stderr), "the sync report")


def test_no_sync_on_start_leaves_the_index_alone(own_env: dict[str, str]) -> None:
    with running(own_env, "--no-sync-on-start", command="daemon") as srv:
        resident = httpx.get(f"{srv.url}/api/resident/status").json()
        assert resident["jobs"] == {"active": 0, "recent": 0, "failed": 0}
        assert httpx.get(f"{srv.url}/api/status").json()["totalDocuments"] == 0


def test_daemon_embeds_what_syncs_changed(own_env: dict[str, str], tmp_path: Path) -> None:
    """The initial sync's chunks, then a file the watcher picked up, get vectors without
    anyone asking; `--no-auto-embed` leaves the backlog alone."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.tiny_gguf import write_tiny_bert

    env = own_env | {"GNO_EMBED_MODEL": f"file:{write_tiny_bert(tmp_path / 'tiny.gguf')}"}

    def status(srv: Any) -> dict[str, Any]:
        return httpx.get(f"{srv.url}/api/status").json()

    def settled(srv: Any, chunks_above: int) -> dict[str, Any] | None:
        now = status(srv)
        done = now["totalChunks"] > chunks_above and now["embeddingBacklog"] == 0
        return now if done and not now["background"]["embedding"]["running"] else None

    with running(env, "--embed-delay-ms", "100", command="daemon") as srv:
        first = wait_for(lambda: settled(srv, 0), "the initial sync's chunks embedded")
        assert first["background"]["embedding"]["lastResult"]["embedded"] == first["totalChunks"]
        notes = Path(json.loads(run_gno(env, "collection", "list", "--json").stdout)[0]["path"])
        (notes / "added.md").write_text("# Added\n\nquasar telemetry backlog\n", "utf-8")
        later = wait_for(lambda: settled(srv, first["totalChunks"]), "the new file embedded")
        assert later["totalDocuments"] == len(NOTES) + 1
        assert later["background"]["embedding"]["lastResult"]["embedded"] >= 1

    with running(env, "--no-auto-embed", "--embed-delay-ms", "0", command="daemon") as srv:
        (notes / "second.md").write_text("# Second\n\nnebula ingest\n", "utf-8")
        pending = wait_for(
            lambda: (s := status(srv))["totalDocuments"] == len(NOTES) + 2 and s, "the sync"
        )
        time.sleep(1.0)  # a scheduler with no delay would have started by now
        assert pending["embeddingBacklog"] > 0 and status(srv)["embeddingBacklog"] > 0
        assert httpx.get(f"{srv.url}/api/resident/status").json()["jobs"]["failed"] == 0


# ---------------------------------------------------------------- --detach / --status / --stop


def status_json(env: dict[str, str], kind: str, code: int) -> dict[str, Any]:
    done = run_gno(env, kind, "--status", "--json")
    assert done.returncode == code, done.stderr
    payload = json.loads(done.stdout)
    assert_valid("gno://schemas/process-status@1.0", payload)
    return payload


def test_serve_detach_status_stop(own_env: dict[str, str]) -> None:
    started = run_gno(own_env, "serve", "--detach", "--port", "0", "--json")
    assert started.returncode == 0, started.stderr
    receipt = json.loads(started.stdout)
    assert set(receipt) == {"pid", "url"}
    pid, url = receipt["pid"], receipt["url"]
    try:
        assert httpx.get(f"{url}/api/health").json() == {"ok": True}
        status = status_json(own_env, "serve", 0)
        port = int(url.rsplit(":", 1)[1])
        assert status["running"] is True and status["pid"] == pid and status["port"] == port
        assert status["pid_file"] == str(data_dir(own_env) / "serve.pid")
        assert status["log_file"] == str(data_dir(own_env) / "serve.log")
        assert status["resident"]["mode"] == "serve" and status["log_size_bytes"] > 0
        peek = json.loads(run_gno(own_env, "peek", "--json").stdout)
        assert peek["serve"] == {"running": True, "url": f"http://localhost:{port}"}
        again = run_gno(own_env, "serve", "--detach", "--port", "0")
        assert again.returncode == 2 and "already running" in again.stderr
    finally:
        stopped = run_gno(own_env, "serve", "--stop")
    assert stopped.returncode == 0, stopped.stderr
    assert gone(pid) and not (data_dir(own_env) / "serve.pid").exists()
    assert status_json(own_env, "serve", 3)["running"] is False
    nothing = run_gno(own_env, "serve", "--stop")
    # Nothing to stop: exit 3 and one line on stderr saying so (issue 11), stdout empty.
    assert (nothing.returncode, nothing.stdout) == (3, "")
    assert nothing.stderr.startswith("gno serve: not running")
    with running(own_env):  # the owner lock went with the process
        pass


def test_daemon_detach_prints_its_pid_and_stops(own_env: dict[str, str]) -> None:
    started = run_gno(own_env, "daemon", "--detach", "--port", "0", "--no-sync-on-start", "--json")
    assert started.returncode == 0, started.stderr
    receipt = json.loads(started.stdout)
    assert set(receipt) == {"pid"}
    try:
        status = status_json(own_env, "daemon", 0)
        assert status["pid"] == receipt["pid"] and status["resident"]["mode"] == "daemon"
        assert status_json(own_env, "serve", 3)["running"] is False  # another command's file
        human = run_gno(own_env, "daemon", "--status")
        assert human.returncode == 0 and f"pid {receipt['pid']}" in human.stdout
    finally:
        stopped = run_gno(own_env, "daemon", "--stop")
    assert stopped.returncode == 0 and gone(receipt["pid"])
    assert not (data_dir(own_env) / "daemon.pid").exists()


def test_a_child_that_dies_reports_its_log(own_env: dict[str, str]) -> None:
    done = run_gno(own_env, "daemon", "--detach", "--host", "0.0.0.0", "--port", "0")
    assert done.returncode == 2 and done.stdout == ""
    assert "exited with code 2" in done.stderr and "missing: --mcp-token-file" in done.stderr
    assert not (data_dir(own_env) / "daemon.pid").exists()


def test_a_stale_pid_file_is_not_running_and_is_removed(own_env: dict[str, str]) -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    pid_file = data_dir(own_env) / "serve.pid"
    pid_file.write_text(
        json.dumps(
            {
                "pid": child.pid,
                "port": 3000,
                "cmd": "serve",
                "version": "0.1.0",
                "started_at": "2026-01-01T00:00:00.000Z",
            }
        )
    )
    assert status_json(own_env, "serve", 3)["running"] is False
    assert not pid_file.exists()


@pytest.mark.parametrize(
    "flags",
    [
        ["--detach", "--status"],
        ["--status", "--stop"],
        ["--detach", "--stop"],
        ["--detach", "--status", "--stop"],
        ["--json"],
        ["--stop", "--json"],
    ],
)
@pytest.mark.parametrize("kind", ["serve", "daemon"])
def test_flag_conflicts_exit_1(env: dict[str, str], kind: str, flags: list[str]) -> None:
    done = run_gno(env, kind, *flags)
    assert done.returncode == 1 and done.stdout == "", done.stderr
    if "--json" in flags:
        assert_valid("gno://schemas/error@1.0", json.loads(done.stderr))
    else:
        assert done.stderr.startswith("Error: ")
