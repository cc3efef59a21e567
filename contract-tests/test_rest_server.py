"""`gno serve` as a real process on 127.0.0.1: the request gates, redaction of host
paths, one owner per data directory, body limit, the sync queue, jobs, shutdown and
the MCP gateway at /mcp (through the SDK client).

These tests start their own servers (they need a known corpus and server flags),
so they are skipped when the suite runs against ``--base-url``.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import assert_valid, run_gno
from rest_helpers import build_corpus, running, start_server

httpx = pytest.importorskip("httpx")
TOKEN = "s3cret-token"


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve processes")


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return build_corpus(tmp_path_factory.mktemp("rest-server"), vectors=False)


@pytest.fixture(scope="module")
def server(env: dict[str, str]) -> Any:
    # gno.example.org: an allowed Host that names no loopback address (a remote caller)
    with running(env, "--max-body-bytes", "4096", "--mcp-allowed-host", "gno.example.org") as srv:
        yield srv


def _error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert_valid("gno://schemas/api-error@1.0", body)
    assert body["error"]["code"] == code
    return body["error"]


# ---------------------------------------------------------------- basics and headers


def test_health_status_and_security_headers(server: Any) -> None:
    response = httpx.get(f"{server.url}/api/health")
    assert response.json() == {"ok": True}
    csp = response.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self';" in csp
    assert "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    status = httpx.get(f"{server.url}/api/status").json()
    assert_valid("gno://schemas/status@1.0", status)
    resident = httpx.get(f"{server.url}/api/resident/status").json()
    assert_valid("gno://schemas/resident-status@1.0", resident)
    assert resident["mode"] == "serve" and resident["resident"] is True
    assert resident["listenerPort"] == server.port and status["resident"]["mode"] == "serve"


def test_unknown_route_and_method_use_the_envelope(server: Any) -> None:
    _error(httpx.get(f"{server.url}/api/nope"), 404, "NOT_FOUND")
    _error(httpx.put(f"{server.url}/api/search", json={}), 405, "METHOD_NOT_ALLOWED")
    _error(httpx.post(f"{server.url}/api/search", json={"query": 5}), 400, "VALIDATION")
    _error(httpx.post(f"{server.url}/api/search", content=b"[1]"), 400, "VALIDATION")


STATIC_FILES = ["/assets/app.js", "/docs/assets/swagger-ui.css"]


@pytest.mark.parametrize("path", STATIC_FILES)
@pytest.mark.parametrize(
    "spec", ["items=0-5", "bytes=10-5", "bytes=abc", "bytes=", "bytes=0-1,x", "0-5"]
)
def test_static_files_ignore_a_range_that_is_not_valid(server: Any, path: str, spec: str) -> None:
    """As /api/doc-asset does (RFC 9110 lets a server ignore it, and says to ignore another
    unit): the whole file, never a plain-text 400."""
    whole = httpx.get(f"{server.url}{path}")
    answer = httpx.get(f"{server.url}{path}", headers={"Range": spec})
    assert answer.status_code == 200, answer.text[:200]
    assert answer.content == whole.content


@pytest.mark.parametrize("path", STATIC_FILES)
def test_static_files_serve_a_valid_range(server: Any, path: str) -> None:
    whole = httpx.get(f"{server.url}{path}").content
    part = httpx.get(f"{server.url}{path}", headers={"Range": "bytes=0-9"})
    assert part.status_code == 206 and part.content == whole[:10]
    past = httpx.get(f"{server.url}{path}", headers={"Range": f"bytes={len(whole)}-"})
    assert past.status_code == 416


def test_openapi_lists_every_rest_operation(server: Any) -> None:
    from gno_contracts.operations import OPERATIONS

    from gno.rest import assets, session

    document = httpx.get(f"{server.url}/openapi.json").json()
    listed = {(m.upper(), p) for p, item in document["paths"].items() for m in item}
    registry = {(op.rest.method, op.rest.path) for op in OPERATIONS if op.rest}
    # + the hand-written routes: the event stream, the original files, the Web UI's session
    hand_written = {("GET", "/api/events")} | set(assets.ROUTES) | set(session.ROUTES)
    assert listed == registry | hand_written
    assert httpx.get(f"{server.url}/docs").status_code == 200


def test_a_path_parameter_never_takes_a_fixed_siblings_name(server: Any) -> None:
    """GET /api/jobs/active answers the active job, not a job called "active": the
    document keeps such values out of {jobId} (a fuzzer once sent one and got the other
    route's body), and each excluded value does reach the fixed route."""
    document = httpx.get(f"{server.url}/openapi.json").json()
    excluded = {
        (method, path): param["schema"]["not"]["enum"]
        for path, item in document["paths"].items()
        for method, spec in item.items()
        for param in spec.get("parameters", [])
        if param["in"] == "path" and "not" in param["schema"]
    }
    assert excluded == {
        ("get", "/api/jobs/{jobId}"): ["active"],
        ("get", "/api/egress/audits/{auditId}"): ["status"],
    }
    active = httpx.get(f"{server.url}/api/jobs/active").json()
    assert set(active) == {"activeJob"}
    unknown = httpx.get(f"{server.url}/api/jobs/no-such-job")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "NOT_FOUND"


def test_search_body_spellings_and_clamped_limit(server: Any) -> None:
    body = {"query": "lighthouse", "limit": 500, "tagsAny": "nosuchtag,other"}
    found = httpx.post(f"{server.url}/api/search", json=body).json()
    assert_valid("gno://schemas/search-results@1.0", found)
    assert found["results"] == [] and found["meta"]["tagsAny"] == ["nosuchtag", "other"]
    many = httpx.post(f"{server.url}/api/search", json={"query": "lighthouse", "limit": 500})
    assert len(many.json()["results"]) >= 1
    query = httpx.post(f"{server.url}/api/query", json={"query": "lighthouse", "noRerank": True})
    assert query.json()["meta"]["mode"] == "bm25_only"


# ---------------------------------------------------------------- CSRF and token


def test_csrf_refuses_foreign_origins_on_unsafe_methods(server: Any) -> None:
    url = f"{server.url}/api/search"
    body = {"query": "lighthouse"}
    assert httpx.post(url, json=body).status_code == 200  # no Origin: a local tool
    local = {"Origin": f"http://localhost:{server.port}"}
    assert httpx.post(url, json=body, headers=local).status_code == 200
    for origin in ("http://evil.example", f"http://localhost:{server.port + 1}", "null"):
        _error(httpx.post(url, json=body, headers={"Origin": origin}), 403, "CSRF_VIOLATION")
    foreign = {"Origin": "http://evil.example"}
    _error(
        httpx.delete(f"{server.url}/api/collections/notes", headers=foreign), 403, "CSRF_VIOLATION"
    )
    assert (
        httpx.get(f"{server.url}/api/health", headers=foreign).status_code == 200
    )  # GET unchecked


def test_csrf_takes_an_allowed_hosts_own_origin(server: Any) -> None:
    """The Web UI opened through an --mcp-allowed-host name sends that name's origin on its
    writes: the Host check already takes the name for this server, so its own origin passes
    (it was refused: such a UI could read but not save). Any other origin is still cross-site."""
    url = f"{server.url}/api/search"
    body = {"query": "lighthouse"}
    via = {"Host": "gno.example.org"}
    own = via | {"Origin": "http://gno.example.org"}
    assert httpx.post(url, json=body, headers=own).status_code == 200
    for origin in (
        "http://evil.example",
        "http://gno.example.org:8080",
        "https://gno.example.org",
        "http://gno.example.org.evil.example",
        "http://evil.gno.example.org",
    ):
        headers = via | {"Origin": origin}
        _error(httpx.post(url, json=body, headers=headers), 403, "CSRF_VIOLATION")
    foreign = via | {"Origin": "http://evil.example"}
    _error(
        httpx.delete(f"{server.url}/api/collections/notes", headers=foreign), 403, "CSRF_VIOLATION"
    )


def test_api_token(tmp_path: Path) -> None:
    env = build_corpus(tmp_path, vectors=False)
    with running(env | {"GNO_API_TOKEN": TOKEN}) as srv:
        _error(httpx.get(f"{srv.url}/api/status"), 401, "UNAUTHORIZED")
        _error(
            httpx.get(f"{srv.url}/api/status", headers={"X-GNO-Token": "wrong"}),
            401,
            "UNAUTHORIZED",
        )
        assert httpx.get(f"{srv.url}/api/health").status_code == 200  # liveness stays open
        good = {"X-GNO-Token": TOKEN}
        assert httpx.get(f"{srv.url}/api/status", headers=good).status_code == 200
        # the token also stands in for a same-origin browser on unsafe methods
        foreign = good | {"Origin": "http://evil.example"}
        assert (
            httpx.post(f"{srv.url}/api/search", json={"query": "x y"}, headers=foreign).status_code
            == 200
        )


# ---------------------------------------------------------------- redaction


REMOTE_HEADERS = [
    {"X-Forwarded-For": "203.0.113.9"},
    {"Forwarded": "for=203.0.113.9"},
    {"Host": "gno.example.org"},
]


@pytest.mark.parametrize("headers", REMOTE_HEADERS, ids=["x-forwarded-for", "forwarded", "host"])
def test_remote_callers_never_get_host_paths(
    server: Any, env: dict[str, str], headers: dict[str, str]
) -> None:
    root = str(Path(env["GNO_CONFIG_DIR"]).parent)
    answers = {
        "status": httpx.get(f"{server.url}/api/status", headers=headers),
        "collections": httpx.get(f"{server.url}/api/collections", headers=headers),
        "search": httpx.post(
            f"{server.url}/api/search", json={"query": "lighthouse"}, headers=headers
        ),
        "query": httpx.post(
            f"{server.url}/api/query", json={"query": "lighthouse"}, headers=headers
        ),
        "doc": httpx.get(
            f"{server.url}/api/doc", params={"uri": "gno://notes/alpha.md"}, headers=headers
        ),
        "missing": httpx.post(
            f"{server.url}/api/collections", json={"path": f"{root}/nowhere"}, headers=headers
        ),
    }
    for name, response in answers.items():
        assert root not in response.text, f"{name} leaks a host path: {response.text[:300]}"
        assert "absPath" not in response.text and "configPath" not in response.text, name
    assert answers["search"].json()["results"], "the remote caller still gets results"
    assert all("path" not in c for c in answers["collections"].json())
    assert_valid("gno://schemas/status@1.0", answers["status"].json())
    assert_valid("gno://schemas/api-doc@1.0", answers["doc"].json())
    # the same requests from this host keep their paths
    local = httpx.get(f"{server.url}/api/doc", params={"uri": "gno://notes/alpha.md"}).json()
    assert local["source"]["absPath"].startswith(root)
    assert all(
        c["path"].startswith(root) for c in httpx.get(f"{server.url}/api/collections").json()
    )


# ---------------------------------------------------------------- limits and ownership


def test_body_over_the_limit_is_413(server: Any) -> None:
    big = {"query": "x" * 5000}
    _error(httpx.post(f"{server.url}/api/search", json=big), 413, "PAYLOAD_TOO_LARGE")

    def chunks():  # no Content-Length: counted while streaming
        for _ in range(5):
            yield b" " * 1000

    _error(httpx.post(f"{server.url}/api/search", content=chunks()), 413, "PAYLOAD_TOO_LARGE")
    assert httpx.get(f"{server.url}/api/health").status_code == 200  # still serving


def test_second_owner_of_the_data_dir_is_refused(server: Any, env: dict[str, str]) -> None:
    done = run_gno(env, "serve", "--port", "0")
    assert done.returncode == 2
    assert "already owns this data directory" in done.stderr
    assert f"port {server.port}" in done.stderr


def test_sigterm_shuts_down_and_releases_the_data_dir(tmp_path: Path) -> None:
    env = build_corpus(tmp_path, vectors=False)
    first = start_server(env)
    assert httpx.get(f"{first.url}/api/health").status_code == 200
    assert first.stop(signal.SIGTERM) == 0
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{first.url}/api/health")
    second = start_server(env)  # the lock went with the first owner
    try:
        assert httpx.get(f"{second.url}/api/health").status_code == 200
    finally:
        assert second.stop(signal.SIGINT) == 0


# ---------------------------------------------------------------- sync queue and jobs


def _wait_job(url: str, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = httpx.get(f"{url}/api/jobs/{job_id}").json()
        assert_valid("gno://schemas/api-job@1.0", job)
        if job["status"] in ("completed", "failed"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish")


def _blocking_git(bin_dir: Path, release: Path) -> None:
    """A `git` that waits until ``release`` exists: holds the first sync job deterministically."""
    bin_dir.mkdir()
    script = bin_dir / "git"
    script.write_text(f"#!/bin/sh\nwhile [ ! -e '{release}' ]; do sleep 0.05; done\nexit 0\n")
    script.chmod(0o755)


def test_sync_queue_joins_and_fills(tmp_path: Path) -> None:
    env = build_corpus(tmp_path / "home", vectors=False)
    misc = Path(json.loads(run_gno(env, "collection", "list", "--json").stdout)[1]["path"])
    (misc / ".git").mkdir()
    release = tmp_path / "release"
    _blocking_git(tmp_path / "bin", release)
    env = env | {"PATH": f"{tmp_path / 'bin'}:{env['PATH']}"}
    # --no-watch: a watcher sync of the same folders would be one more (legitimate) job here.
    with running(env, "--max-waiting-syncs", "2", "--no-watch") as srv:
        url = f"{srv.url}/api/sync"
        first = httpx.post(url, json={"collection": "misc", "gitPull": True})
        assert first.status_code == 202 and first.json()["status"] == "running"
        assert_valid("gno://schemas/api-sync-receipt@1.0", first.json())
        a = httpx.post(url, json={"collection": "notes", "paths": ["alpha.md"]}).json()
        b = httpx.post(url, json={"collection": "NOTES", "paths": ["beta.md"]}).json()
        assert a["status"] == "queued" and b == a  # joined: same job
        waiting = httpx.get(f"{srv.url}/api/jobs/{a['jobId']}").json()
        assert waiting["status"] == "queued"
        assert waiting["scope"] == {"collection": "notes", "paths": ["alpha.md", "beta.md"]}
        every = httpx.post(url, json={}).json()
        assert every["status"] == "queued" and every["jobId"] != a["jobId"]
        _error(httpx.post(url, json={"collection": "misc"}), 429, "QUEUE_FULL")  # a third
        whole = httpx.post(url, json={"collection": "notes"}).json()
        assert whole["jobId"] == a["jobId"]  # joining still works at the limit, and widens
        assert httpx.get(f"{srv.url}/api/jobs/{a['jobId']}").json()["scope"]["paths"] is None
        active = httpx.get(f"{srv.url}/api/jobs/active").json()
        assert_valid("gno://schemas/job-active@1.0", active)
        assert active["activeJob"]["id"] == first.json()["jobId"]
        # other jobs are refused while one runs
        busy = httpx.post(f"{srv.url}/api/collections", json={"path": str(tmp_path / "bin")})
        assert _error(busy, 409, "CONFLICT")["details"]["activeJobId"] == first.json()["jobId"]
        release.touch()
        for job_id in (first.json()["jobId"], a["jobId"], every["jobId"]):
            assert _wait_job(srv.url, job_id)["status"] == "completed"
        assert httpx.get(f"{srv.url}/api/jobs/active").json() == {"activeJob": None}
        done = httpx.get(f"{srv.url}/api/jobs/{every['jobId']}").json()
        assert done["scope"] == {"collection": None, "paths": None}
        assert done["result"]["collections"][0]["collection"] == "notes"


def test_sync_paths_validation(server: Any) -> None:
    url = f"{server.url}/api/sync"
    _error(httpx.post(url, json={"paths": ["a.md"]}), 400, "VALIDATION")
    _error(httpx.post(url, json={"collection": "notes", "paths": []}), 400, "VALIDATION")
    _error(
        httpx.post(url, json={"collection": "notes", "paths": ["a.md"] * 257}), 400, "VALIDATION"
    )
    _error(
        httpx.post(url, json={"collection": "notes", "gitPull": True, "paths": ["a.md"]}),
        400,
        "VALIDATION",
    )
    _error(
        httpx.post(url, json={"collection": "notes", "paths": ["../escape.md"]}),
        400,
        "INVALID_PATH",
    )
    _error(httpx.post(url, json={"collection": "nope"}), 404, "NOT_FOUND")


def test_collection_add_remove_and_job(tmp_path: Path) -> None:
    env = build_corpus(tmp_path / "home", vectors=False)
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "ship.md").write_text("# Ship\n\nThe harbour pilot.\n")
    with running(env) as srv:
        added = httpx.post(f"{srv.url}/api/collections", json={"path": str(extra), "include": "md"})
        assert added.status_code == 202, added.text
        assert_valid("gno://schemas/api-collection-added@1.0", added.json())
        assert added.json()["collection"] == {"name": "extra", "path": str(extra)}
        job = _wait_job(srv.url, added.json()["jobId"])
        assert job["type"] == "add" and job["result"]["totalFilesAdded"] == 1
        hits = httpx.post(f"{srv.url}/api/search", json={"query": "harbour pilot"}).json()
        assert [r["uri"] for r in hits["results"]] == ["gno://extra/ship.md"]
        _error(
            httpx.post(f"{srv.url}/api/collections", json={"path": str(extra)}), 409, "DUPLICATE"
        )
        removed = httpx.delete(f"{srv.url}/api/collections/extra")
        assert removed.status_code == 200 and removed.json()["success"] is True
        _error(httpx.delete(f"{srv.url}/api/collections/extra"), 404, "NOT_FOUND")
        assert [c["name"] for c in httpx.get(f"{srv.url}/api/collections").json()] == [
            "notes",
            "misc",
        ]


# ---------------------------------------------------------------- MCP gateway


def test_mcp_gateway_with_the_sdk_client(server: Any) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client

    async def session() -> tuple[set[str], dict[str, Any]]:
        async with Client(f"{server.url}/mcp", mode="legacy") as client:
            listed = await client.list_tools()
            result = await client.call_tool("gno_search", {"query": "lighthouse"})
            return {t.name for t in listed.tools}, result.structured_content

    names, found = anyio.run(session)
    assert "gno_query" in names and "gno_sync" not in names  # write tools stay off by default
    assert_valid("gno://schemas/search-results@1.0", found)
    assert found["results"]
