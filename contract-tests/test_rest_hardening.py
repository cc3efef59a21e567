"""`gno serve` against hostile requests (issue 10), as a real process on 127.0.0.1:

- every route checks ``Host`` exactly (DNS rebinding: a page of ``evil.example`` that
  resolves to 127.0.0.1 reads nothing), loopback names with the bound port only;
- ``Origin: http://[::1]:<port>`` is loopback and passes the CSRF check;
- `/api/doc-asset` serves only what the collection indexes: no hidden or excluded files,
  and a FIFO is never opened (four GETs on one used to hang the server for good);
- a lone surrogate, NaN/Infinity or thousands of filter values are 400 VALIDATION on
  search, vsearch, query and diagnose, never 500;
- REST never stores nor runs a collection's ``updateCmd``;
- job answers carry no host paths for a caller on another host;
- a client that sends half its headers or half its body is cut after the documented
  timeouts (shortened here through the hidden flags).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import assert_valid
from rest_helpers import Server, build_corpus, running

httpx = pytest.importorskip("httpx")
REMOTE = {"X-Forwarded-For": "203.0.113.9"}  # same-host test: a forwarding header = remote
TIMEOUT_MS = 1000  # the hidden header/body timeouts of the module's server
DEADLINE = 30


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve processes")


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("rest-hardening")
    env = build_corpus(root, vectors=False)
    notes = root / "corpus" / "notes"
    (notes / ".env").write_text("SECRET=hunter2\n")
    (notes / ".git").mkdir()
    (notes / ".git" / "config").write_text("[remote]\n  url = secret\n")
    (notes / "node_modules" / "pkg").mkdir(parents=True)
    (notes / "node_modules" / "pkg" / "index.js").write_text("secret()\n")
    (notes / "figure.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16)
    os.mkfifo(notes / "pipe.md")
    flags = ("--no-watch", "--header-timeout-ms", str(TIMEOUT_MS))
    with running(env, *flags, "--body-timeout-ms", str(TIMEOUT_MS)) as srv:
        yield srv, root, env


def _error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert_valid("gno://schemas/api-error@1.0", body)
    assert body["error"]["code"] == code
    return body["error"]


def _raw(srv: Server, request: bytes, wait: float = DEADLINE) -> bytes:
    """Send raw bytes, read until the server closes (bounded)."""
    with socket.create_connection(("127.0.0.1", srv.port), timeout=wait) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


# ---------------------------------------------------------------- Host and Origin

ROUTES = [
    ("GET", "/api/health", None),
    ("GET", "/api/docs", None),
    ("GET", "/api/doc?uri=gno://notes/alpha.md", None),
    ("GET", "/api/doc-asset?uri=gno://notes/alpha.md", None),
    ("GET", "/api/status", None),
    ("GET", "/api/events", None),
    ("GET", "/openapi.json", None),
    ("GET", "/docs", None),
    ("POST", "/api/search", {"query": "lighthouse"}),
    ("POST", "/mcp", {}),
]


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example", "localhost:1", ""])
def test_a_foreign_host_reads_nothing(setup: Any, host: str) -> None:
    srv, _, _ = setup
    for method, path, body in ROUTES:
        headers = {"Host": host or f"localhost:{srv.port + 1}"}
        response = httpx.request(method, f"{srv.url}{path}", json=body, headers=headers)
        assert response.status_code == 403, (path, response.text)
        assert b"lighthouse" not in response.content and b"gno://" not in response.content


def test_a_request_without_host_is_refused(setup: Any) -> None:
    srv, _, _ = setup
    for version in (b"HTTP/1.0", b"HTTP/1.1"):
        answer = _raw(srv, b"GET /api/docs " + version + b"\r\nConnection: close\r\n\r\n")
        assert answer.startswith(version[:5]) and b" 403 " in answer.split(b"\r\n")[0], answer
        assert b"gno://" not in answer


def test_loopback_hosts_with_the_port_are_served(setup: Any) -> None:
    srv, _, _ = setup
    for host in (f"127.0.0.1:{srv.port}", f"localhost:{srv.port}", f"[::1]:{srv.port}"):
        response = httpx.get(f"{srv.url}/api/docs", headers={"Host": host.upper()})
        assert response.status_code == 200, (host, response.text)
        assert response.json()["documents"]


def test_ipv6_loopback_origin_passes_csrf_and_others_do_not(setup: Any) -> None:
    srv, _, _ = setup
    body = {"query": "lighthouse"}
    ok = httpx.post(
        f"{srv.url}/api/search", json=body, headers={"Origin": f"http://[::1]:{srv.port}"}
    )
    assert ok.status_code == 200, ok.text
    for origin in ("http://evil.example", f"http://[::1]:{srv.port + 1}", "null"):
        refused = httpx.post(f"{srv.url}/api/search", json=body, headers={"Origin": origin})
        _error(refused, 403, "CSRF_VIOLATION")


# ---------------------------------------------------------------- doc-asset


@pytest.mark.parametrize("path", [".env", ".git/config", "node_modules/pkg/index.js"])
def test_doc_asset_serves_no_hidden_or_excluded_file(setup: Any, path: str) -> None:
    srv, root, _ = setup
    notes = root / "corpus" / "notes"
    for params in (
        {"uri": "gno://notes/alpha.md", "path": path},
        {"path": str(notes / path)},  # absolute, same host
    ):
        got = httpx.get(f"{srv.url}/api/doc-asset", params=params)
        error = _error(got, 403, "FORBIDDEN")
        assert "secret" not in got.text and str(root) not in error["message"]
    beside = httpx.get(
        f"{srv.url}/api/doc-asset", params={"uri": "gno://notes/alpha.md", "path": "figure.png"}
    )
    assert beside.status_code == 200 and beside.content.startswith(b"\x89PNG")


def test_doc_asset_never_opens_a_fifo_and_the_server_still_stops(
    setup: Any, tmp_path: Path
) -> None:
    srv, root, env = setup
    params = [
        {"uri": "gno://notes/alpha.md", "path": "pipe.md"},
        {"path": str(root / "corpus" / "notes" / "pipe.md")},
    ]
    for i in range(6):  # more than the reader pool: a blocked open would exhaust it
        got = httpx.get(f"{srv.url}/api/doc-asset", params=params[i % 2], timeout=DEADLINE)
        _error(got, 404, "FILE_NOT_FOUND")
    assert httpx.get(f"{srv.url}/api/health", timeout=DEADLINE).json() == {"ok": True}
    # A separate server (the module's keeps serving): FIFO GETs, then SIGTERM ends it.
    shutil.copytree(Path(env["GNO_DATA_DIR"]), tmp_path / "data")
    own_env = env | {"GNO_DATA_DIR": str(tmp_path / "data")}
    with running(own_env, "--no-watch") as other:
        for i in range(4):
            got = httpx.get(f"{other.url}/api/doc-asset", params=params[i % 2], timeout=DEADLINE)
            assert got.status_code == 404
        assert other.stop(signal.SIGTERM) == 0


# ---------------------------------------------------------------- hostile values: 400

SEARCH_ROUTES = [
    ("/api/search", {}),
    ("/api/vsearch", {}),
    ("/api/query", {"noExpand": True, "noRerank": True}),
    ("/api/query/diagnose", {"noExpand": True, "target": "gno://notes/alpha.md"}),
]
MANY = ",".join(f"w{i}" for i in range(2000))
HOSTILE_BODIES = {
    "lone surrogate": b'{"query": "\\ud800"}',
    "surrogate in a filter": b'{"query": "light", "author": "x\\udfff"}',
    "NaN": b'{"query": "light", "minScore": NaN}',
    "Infinity": b'{"query": "light", "minScore": Infinity}',
    "-Infinity": b'{"query": "light", "minScore": -Infinity}',
    "deep nesting": b'{"query": "light", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
}


@pytest.mark.parametrize(("path", "extra"), SEARCH_ROUTES, ids=[p for p, _ in SEARCH_ROUTES])
@pytest.mark.parametrize("case", sorted(HOSTILE_BODIES))
def test_hostile_json_is_400_validation(setup: Any, path: str, extra: dict, case: str) -> None:
    srv, _, _ = setup
    raw = HOSTILE_BODIES[case]
    if extra and not case.startswith("deep"):
        import json

        raw = raw[:-1] + b", " + json.dumps(extra)[1:].encode()
    got = httpx.post(
        f"{srv.url}{path}",
        content=raw,
        headers={"Content-Type": "application/json"},
        timeout=DEADLINE,
    )
    if case == "deep nesting":  # larger than the server's body limit is 413; else 400
        assert got.status_code in (400, 413), got.text
        return
    error = _error(got, 400, "VALIDATION")
    assert error["message"] and "Internal" not in error["message"]


@pytest.mark.parametrize(("path", "extra"), SEARCH_ROUTES, ids=[p for p, _ in SEARCH_ROUTES])
@pytest.mark.parametrize("field", ["exclude", "tagsAll", "tagsAny", "category"])
def test_thousands_of_filter_values_are_refused_with_the_bound(
    setup: Any, path: str, extra: dict, field: str
) -> None:
    srv, _, _ = setup
    body = {"query": "lighthouse", field: MANY} | extra
    error = _error(httpx.post(f"{srv.url}{path}", json=body, timeout=DEADLINE), 400, "VALIDATION")
    assert field in error["message"] and "256" in error["message"]
    # at the bound, all four lists at once: served (vsearch: this corpus has no vectors)
    for name in ("exclude", "tagsAll", "tagsAny", "category"):
        body[name] = ",".join(f"w{i}" for i in range(256))
    got = httpx.post(f"{srv.url}{path}", json=body, timeout=DEADLINE)
    if path == "/api/vsearch":
        _error(got, 503, "UNAVAILABLE")
    else:
        assert got.status_code == 200, got.text


# ---------------------------------------------------------------- updateCmd, paths in jobs


def test_rest_never_stores_an_update_cmd(setup: Any) -> None:
    srv, root, env = setup
    folder = root / "corpus" / "cmd"
    folder.mkdir(exist_ok=True)
    marker = root / "ran-update-cmd"
    body = {"path": str(folder), "name": "cmd", "updateCmd": f"touch {marker}"}
    error = _error(httpx.post(f"{srv.url}/api/collections", json=body), 400, "VALIDATION")
    assert "updateCmd" in error["message"]
    config = (Path(env["GNO_CONFIG_DIR"]) / "index.yml").read_text()
    assert "updateCmd" not in config and "touch" not in config
    sync = httpx.post(f"{srv.url}/api/sync", json={"runUpdateCmd": True})
    assert _error(sync, 400, "VALIDATION")
    assert not marker.exists()


def test_job_answers_carry_no_host_paths_for_remote_callers(setup: Any) -> None:
    srv, root, _ = setup
    gone = root / "corpus" / "gone"
    gone.mkdir()
    (gone / "a.md").write_text("# A\n")
    added = httpx.post(f"{srv.url}/api/collections", json={"path": str(gone), "name": "gone"})
    assert added.status_code == 202, added.text
    _wait_job(srv, added.json()["jobId"])
    shutil.rmtree(gone)
    started = httpx.post(f"{srv.url}/api/sync", json={"collection": "gone"})
    assert started.status_code == 202, started.text
    job_id = started.json()["jobId"]
    local = _wait_job(srv, job_id)
    assert str(gone) in str(local), "the same-host view names the folder (the baseline)"
    remote = httpx.get(f"{srv.url}/api/jobs/{job_id}", headers=REMOTE)
    assert remote.status_code == 200
    assert str(root) not in remote.text and "/tmp" not in remote.text, remote.text
    assert "<path>" in remote.text


def _wait_job(srv: Server, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        job = httpx.get(f"{srv.url}/api/jobs/{job_id}").json()
        if job["status"] not in ("queued", "running"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


# ---------------------------------------------------------------- slow clients


def test_half_sent_headers_are_cut_after_the_header_timeout(setup: Any) -> None:
    srv, _, _ = setup
    for partial in (b"", b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1"):
        with socket.create_connection(("127.0.0.1", srv.port), timeout=DEADLINE) as sock:
            sock.sendall(partial)
            sock.settimeout(TIMEOUT_MS / 1000 * 10)  # bounded: a hang fails, not blocks
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
            assert b"200 OK" not in data  # cut, never served
    assert httpx.get(f"{srv.url}/api/health").status_code == 200


def test_half_sent_body_is_cut_after_the_body_timeout(setup: Any) -> None:
    srv, _, _ = setup
    head = (
        f"POST /api/search HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", srv.port), timeout=DEADLINE) as sock:
        sock.sendall(head + b'{"query": "li')
        sock.settimeout(TIMEOUT_MS / 1000 * 10)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status = data.split(b"\r\n", 1)[0]
    assert data == b"" or b" 408 " in status, data
    assert httpx.get(f"{srv.url}/api/health").status_code == 200
