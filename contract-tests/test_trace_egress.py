"""Retrieval traces under the collection egress policy, as real processes: a `gno daemon`
with writes enabled on 0.0.0.0, reached from a non-loopback address of this machine. A trace
names the documents a search returned (URIs, ranks, hashes), so exporting or showing one to
a caller off the machine is judged like any content of the collections it may name
(`contentClass: retrieval_trace`): while any of them is `local_only` the export is refused
with the content-free HTTP 403 -32003, no export manifest is created, and exactly one
receipt is written; once every collection allows the caller's zone the same export runs.
Through 127.0.0.1 the export is never judged (surfaces.md §3.6, GNO's trace egress table)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import assert_valid, run_gno
from rest_helpers import running
from test_egress_mcp import HOST, SECRET, Session, assert_denied, audits, home, result_of

from tests.surfaces.egress_peers import non_loopback_address, url_of

TRACES = "retrievalTraces:\n  enabled: true\n  redactionMode: replay\n"


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno processes")


def _trace(env: dict[str, str], *args: str) -> str:
    done = run_gno(env, "search", "zebra", "--json", *args)
    assert done.returncode == 0, done.stderr
    trace_id = done.stderr.strip().splitlines()[-1].removeprefix("Trace: ")
    assert trace_id.startswith("trc_"), done.stderr
    return trace_id


def _traced_home(root: Path) -> tuple[dict[str, str], str, str]:
    """Two traces: one whose hits are in both collections, one of ``shared`` alone."""
    env = home(root)
    config = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    config.write_text(config.read_text() + TRACES)
    return env, _trace(env), _trace(env, "-c", "shared")


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    address = non_loopback_address()
    if ":" in address:
        pytest.skip("the daemon test binds 0.0.0.0: it needs an IPv4 address")
    root = tmp_path_factory.mktemp("trace-egress")
    env, trace_id, shared_trace = _traced_home(root)
    token_path = root / "token"
    flags = ["--host", "0.0.0.0", "--no-sync-on-start", "--mcp-token-file", str(token_path)]
    flags += ["--mcp-allowed-host", HOST, "--mcp-allowed-origin", "https://client.example"]
    with running(env, *flags, "--mcp-enable-write", command="daemon") as srv:
        srv.token = token_path.read_text().strip()
        srv.env, srv.trace_id, srv.shared_trace = env, trace_id, shared_trace
        srv.remote_url = url_of(address, srv.port)
        yield srv


def exports_of(env: dict[str, str], trace_id: str) -> list[dict[str, Any]]:
    shown = run_gno(env, "trace", "show", trace_id, "--json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)["exports"]


def relax_all(
    env: dict[str, str], policy: str, names: tuple[str, ...] = ("notes", "shared")
) -> None:
    for name in names:
        got = json.loads(run_gno(env, "collection", "policy", "get", name, "--json").stdout)
        done = run_gno(
            env, "collection", "policy", "set", name, policy,
            "--confirm-relaxation", str(got["revision"]), "--json",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr


def test_trace_export_and_show_are_judged_for_a_caller_off_the_machine(daemon: Any) -> None:
    trace_id = daemon.trace_id
    session = Session(daemon.remote_url, daemon.token)
    try:
        export = {"traceIds": [trace_id], "format": "agentic-receipt"}
        denied = session.call(21, "gno_trace_export", export)
        assert_denied(denied, 21, "POLICY_LOCAL_ONLY")
        assert trace_id not in denied.text and "gno://notes" not in denied.text
        assert exports_of(daemon.env, trace_id) == []  # no manifest created
        shown = session.call(22, "gno_trace_show", {"traceId": trace_id})
        assert_denied(shown, 22, "POLICY_LOCAL_ONLY")
        assert "gno://notes" not in shown.text
        found = audits(daemon.env)
        assert [r["operation"] for r in found] == ["gno_trace_show", "gno_trace_export"]
        assert {r["contentClass"] for r in found} == {"retrieval_trace"}
        assert {r["decision"] for r in found} == {"denied"}
        for receipt in found:
            assert trace_id not in json.dumps(receipt) and SECRET not in json.dumps(receipt)

        # Every collection a trace may name allows the caller (this machine's address may be public: remote): the export runs.
        relax_all(daemon.env, "remote")
        served = result_of(session.call(23, "gno_trace_export", export))
        payload = served["result"]["structuredContent"]
        assert_valid("gno://schemas/retrieval-trace-export@1.0", payload)
        assert len(exports_of(daemon.env, trace_id)) == 1
        newest = audits(daemon.env)[0]
        assert (newest["operation"], newest["decision"]) == ("gno_trace_export", "allowed")
        assert newest["contentClass"] == "retrieval_trace"
        assert len(audits(daemon.env)) == 3  # each request audited exactly once
    finally:
        session.close()


def test_a_trace_through_loopback_is_not_judged(daemon: Any) -> None:
    before = len(audits(daemon.env))
    session = Session(daemon.url, daemon.token)
    try:
        served = result_of(session.call(3, "gno_trace_show", {"traceId": daemon.trace_id}))
        assert "gno://notes/plan.md" in json.dumps(served["result"]["structuredContent"])
    finally:
        session.close()
    assert len(audits(daemon.env)) == before


def test_a_trace_is_judged_by_the_collections_it_names(daemon: Any) -> None:
    """As GNO judges an export by the traces' lineage: a trace whose hits are all in
    ``shared`` goes once ``shared`` allows the caller, while ``notes`` stays local_only;
    a trace naming a ``notes`` document does not."""
    done = run_gno(daemon.env, "collection", "policy", "set", "notes", "local_only")
    assert done.returncode == 0, done.stderr  # tightening needs no confirmation
    relax_all(daemon.env, "remote", ("shared",))
    session = Session(daemon.remote_url, daemon.token)
    try:
        both = {"traceIds": [daemon.trace_id], "format": "agentic-receipt"}
        assert_denied(session.call(41, "gno_trace_export", both), 41, "POLICY_LOCAL_ONLY")
        mixed = {"traceIds": [daemon.shared_trace, daemon.trace_id]}
        assert_denied(session.call(42, "gno_trace_export", mixed), 42, "POLICY_LOCAL_ONLY")
        shared = result_of(
            session.call(43, "gno_trace_export", {"traceIds": [daemon.shared_trace]})
        )["result"]["structuredContent"]
        assert_valid("gno://schemas/retrieval-trace-export@1.0", shared)
        assert "gno://notes" not in json.dumps(shared)
        shown = result_of(session.call(44, "gno_trace_show", {"traceId": daemon.shared_trace}))
        assert "gno://shared/open.md" in json.dumps(shown)
        # An unknown trace id: every collection decides (notes is local_only), nothing echoed.
        unknown = session.call(45, "gno_trace_show", {"traceId": "trc_" + "0" * 32})
        assert_denied(unknown, 45, "POLICY_LOCAL_ONLY")
    finally:
        session.close()
    newest = audits(daemon.env)[:5]
    assert [r["decision"] for r in newest] == ["denied", "allowed", "allowed", "denied", "denied"]
    assert [r["collections"] for r in newest[1:3]] == [["shared"], ["shared"]]
