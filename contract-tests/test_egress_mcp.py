"""Egress on the MCP surfaces and the CLI, as real processes: a `gno daemon` on 0.0.0.0
reached from a non-loopback address of this machine (the socket peer is that address)
answers a tool call or resource read of a local_only collection with HTTP 403 -32003
(`mcp-http-error@1.0`, content-free audit data) before the SDK sees it, and records one
receipt per request; a collection relaxed to `remote` is served to the bearer; the same
daemon through 127.0.0.1 serves everything and records nothing. MCP over stdio and the
CLI are on this machine (`local_process`): content flows, nothing is recorded, and their
egress tools and commands answer the contract schemas."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from contract_helpers import GNO, assert_valid, gno_env, run_gno, write_tree
from rest_helpers import running

from tests.surfaces.egress_peers import non_loopback_address, url_of

httpx = pytest.importorskip("httpx")
pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

HOST = "gno.test"
SECRET = "hunter2"
ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno processes")


def home(root: Path) -> dict[str, str]:
    notes = write_tree(root / "corpus" / "notes", {"plan.md": f"# Plan\n\nzebra {SECRET}\n"})
    shared = write_tree(root / "corpus" / "shared", {"open.md": "# Open\n\nzebra crossing\n"})
    env = gno_env(root)
    for args in (
        ["init"],
        ["collection", "add", str(notes), "--name", "notes"],
        ["collection", "add", str(shared), "--name", "shared"],
        ["update"],
    ):
        done = run_gno(env, *args)
        assert done.returncode == 0, (args, done.stderr)
    return env


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    address = non_loopback_address()
    if ":" in address:
        pytest.skip("the daemon test binds 0.0.0.0: it needs an IPv4 address")
    root = tmp_path_factory.mktemp("egress-mcp")
    env, token_path = home(root), root / "token"
    flags = ["--host", "0.0.0.0", "--no-sync-on-start", "--mcp-token-file", str(token_path)]
    flags += ["--mcp-allowed-host", HOST, "--mcp-allowed-origin", "https://client.example"]
    with running(env, *flags, command="daemon") as srv:
        srv.token = token_path.read_text().strip()
        srv.env = env
        srv.remote_url = url_of(address, srv.port)
        yield srv


def audits(env: dict[str, str]) -> list[dict[str, Any]]:
    done = run_gno(env, "egress-audit", "list", "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert_valid("gno://schemas/egress-audit-list@1.0", payload)
    return payload["receipts"]


class Session:
    """An MCP session over Streamable HTTP by hand, so the test owns every header."""

    def __init__(self, url: str, token: str) -> None:
        headers = {"Host": HOST, "Authorization": f"Bearer {token}", **ACCEPT}
        self.http = httpx.Client(base_url=url, headers=headers, timeout=30)
        init = self.post(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "egress-test", "version": "0"},
                },
            }
        )
        assert init.status_code == 200, init.text
        self.http.headers["Mcp-Session-Id"] = init.headers["mcp-session-id"]
        done = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert done.status_code == 202, done.text

    def post(self, message: dict[str, Any]) -> Any:
        return self.http.post("/mcp/", json=message)

    def call(self, rid: int, tool: str, arguments: dict[str, Any]) -> Any:
        params = {"name": tool, "arguments": arguments}
        return self.post({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})

    def close(self) -> None:
        self.http.close()


def result_of(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("application/json"):
        return response.json()
    data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])


def assert_denied(response: Any, rid: int, reason: str) -> None:
    assert response.status_code == 403, response.text
    assert SECRET not in response.text and "zebra" not in response.text
    body = response.json()
    assert_valid("gno://schemas/mcp-http-error@1.0", body)
    assert body["id"] == rid
    assert body["error"]["code"] == -32003
    assert body["error"]["message"] == "Operation blocked by collection egress policy"
    assert body["error"]["data"]["code"] == "EGRESS_DENIED"
    assert body["error"]["data"]["reason"] == reason


def test_mcp_http_denies_and_audits_once_then_serves_a_relaxed_collection(daemon: Any) -> None:
    session = Session(daemon.remote_url, daemon.token)
    try:
        assert audits(daemon.env) == []  # initialize and notifications carry no content
        assert_denied(session.call(7, "gno_search", {"query": "zebra"}), 7, "POLICY_LOCAL_ONLY")
        assert_denied(
            session.call(8, "gno_get", {"ref": "gno://notes/plan.md"}), 8, "POLICY_LOCAL_ONLY"
        )
        read = {"jsonrpc": "2.0", "id": 9, "method": "resources/read"}
        read["params"] = {"uri": "gno://notes/plan.md"}
        assert_denied(session.post(read), 9, "POLICY_LOCAL_ONLY")
        found = audits(daemon.env)
        assert [r["operation"] for r in found] == ["resources/read", "gno_get", "gno_search"]
        assert {r["decision"] for r in found} == {"denied"}
        assert {r["surface"] for r in found} == {"mcp_http"}
        assert all(r["callerAuthenticated"] is True for r in found)
        for receipt in found:
            assert_valid("gno://schemas/egress-audit-receipt@1.0", receipt)
            assert SECRET not in json.dumps(receipt) and "zebra" not in json.dumps(receipt)

        # The CLI relaxes `shared` with its revision as the confirmation.
        relaxed = run_gno(
            daemon.env, "collection", "policy", "set", "shared", "remote",
            "--confirm-relaxation", "0", "--json",
        )  # fmt: skip
        assert relaxed.returncode == 0, relaxed.stderr
        served = result_of(
            session.call(10, "gno_search", {"query": "zebra", "collection": "shared"})
        )
        hits = served["result"]["structuredContent"]["results"]
        assert [h["uri"] for h in hits] == ["gno://shared/open.md"]
        assert SECRET not in json.dumps(served)
        newest = audits(daemon.env)[0]
        assert (newest["decision"], newest["reason"]) == ("allowed", "REMOTE_POLICY_AUTHENTICATED")
        # Still nothing of notes: a search over every collection is judged by the strictest.
        assert_denied(session.call(11, "gno_search", {"query": "zebra"}), 11, "POLICY_LOCAL_ONLY")
        found = audits(daemon.env)
        assert len(found) == 5
        # show and delete one receipt by id through the CLI
        audit_id = found[-1]["auditId"]
        shown = run_gno(daemon.env, "egress-audit", "show", audit_id, "--json")
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout) == found[-1]
        deleted = run_gno(daemon.env, "egress-audit", "delete", audit_id, "--json")
        assert deleted.returncode == 0, deleted.stderr
        assert_valid("gno://schemas/egress-audit-removal@1.0", json.loads(deleted.stdout))
        again = run_gno(daemon.env, "egress-audit", "show", audit_id, "--json")
        assert again.returncode == 1 and json.loads(again.stderr)["error"]["code"] == "VALIDATION"
        assert audit_id not in again.stderr  # an unknown id is not echoed
        assert len(audits(daemon.env)) == 4
    finally:
        session.close()


def test_mcp_http_through_loopback_is_not_judged(daemon: Any) -> None:
    before = len(audits(daemon.env))
    session = Session(daemon.url, daemon.token)
    try:
        served = result_of(session.call(3, "gno_search", {"query": "zebra"}))
        assert SECRET in json.dumps(served)
    finally:
        session.close()
    assert len(audits(daemon.env)) == before


def test_mcp_stdio_and_cli_are_local(tmp_path: Path) -> None:
    env = home(tmp_path)
    params = StdioServerParameters(command=str(GNO), args=["mcp"], env=env)

    async def session() -> None:
        async with Client(params, mode="legacy") as client:
            hit = (await client.call_tool("gno_search", {"query": "zebra"})).structured_content
            assert SECRET in json.dumps(hit)
            got = await client.call_tool("gno_egress_policy_get", {"collection": "notes"})
            assert_valid("gno://schemas/egress-policy@1.0", got.structured_content)
            assert got.structured_content["policy"] == "local_only"
            check = await client.call_tool(
                "gno_egress_check",
                {
                    "collections": ["notes"],
                    "action": "serve",
                    "destinationZone": "remote",
                    "caller": {"authenticated": True, "operationAuthorized": True},
                    "contentClass": "snippet",
                },
            )
            assert check.structured_content["allowed"] is False
            # Writes are off: the set tool does not exist.
            names = {t.name for t in (await client.list_tools()).tools}
            assert "gno_egress_policy_set" not in names and "gno_egress_check" in names

    anyio.run(session)
    search = run_gno(env, "search", "zebra", "--json")
    assert search.returncode == 0 and SECRET in search.stdout
    assert audits(env) == []
    bad = run_gno(env, "egress-audit", "list", "--cursor", "%%%", "--json")
    assert bad.returncode == 1
    assert json.loads(bad.stderr)["error"]["code"] == "VALIDATION"
    unconfirmed = run_gno(env, "collection", "policy", "set", "notes", "lan")
    assert unconfirmed.returncode == 1 and "revision 0" in unconfirmed.stderr
    stale = run_gno(env, "collection", "policy", "set", "notes", "lan", "--confirm-relaxation", "3")
    assert stale.returncode == 2
    got = json.loads(run_gno(env, "collection", "policy", "get", "notes", "--json").stdout)
    assert (got["policy"], got["revision"]) == ("local_only", 0)
    check = run_gno(
        env, "collection", "policy", "check", "--action", "serve", "--destination", "lan",
        "--content-class", "snippet", "-c", "notes", "-c", "shared", "--authenticated",
        "--partial", "--json",
    )  # fmt: skip
    assert check.returncode == 0, check.stderr
    decision = json.loads(check.stdout)
    assert_valid("gno://schemas/egress-decision@1.0", decision)
    assert (decision["allowed"], decision["deniedCollections"]) == (False, ["notes", "shared"])
    status = run_gno(env, "egress-audit", "status", "--json")
    assert_valid("gno://schemas/egress-audit-status@1.0", json.loads(status.stdout))
    refused = run_gno(env, "egress-audit", "purge", "--json")
    assert refused.returncode == 1  # without --confirm nothing is deleted
    purged = run_gno(env, "egress-audit", "purge", "--confirm", "--json")
    assert purged.returncode == 0 and json.loads(purged.stdout)["deleted"] == 0


def test_a_batch_with_a_denied_call_is_refused_whole_and_never_runs(daemon: Any) -> None:
    """MCP has no JSON-RPC batches since 2025-06-18. A list body is refused whole as an
    Invalid Request (-32600, HTTP 400) before the egress gate reads it, from off the machine
    and through loopback alike: nothing of it runs, nothing is sent, nothing is judged."""
    got = json.loads(run_gno(daemon.env, "collection", "policy", "get", "shared", "--json").stdout)
    if got["policy"] != "remote":
        done = run_gno(
            daemon.env, "collection", "policy", "set", "shared", "remote",
            "--confirm-relaxation", str(got["revision"]),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    before = len(audits(daemon.env))
    session = Session(daemon.remote_url, daemon.token)
    try:
        batch = [
            {"jsonrpc": "2.0", "id": 31, "method": "tools/call",
             "params": {"name": "gno_egress_policy_get", "arguments": {"collection": "shared"}}},
            {"jsonrpc": "2.0", "id": 32, "method": "tools/call",
             "params": {"name": "gno_get", "arguments": {"ref": "gno://notes/plan.md"}}},
        ]  # fmt: skip
        refused = session.http.post("/mcp/", json=batch)
        assert refused.status_code == 400 and SECRET not in refused.text
        assert refused.json()["error"]["code"] == -32600
    finally:
        session.close()
    assert len(audits(daemon.env)) == before  # refused before any call was judged
    local = Session(daemon.url, daemon.token)
    try:
        answer = local.http.post("/mcp/", json=batch)
        assert answer.status_code == 400 and SECRET not in answer.text
    finally:
        local.close()
    assert len(audits(daemon.env)) == before
