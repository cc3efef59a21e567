"""`gno serve` applies index.yml's ``maxConcurrentRequests`` and ``maxQueuedRequests`` (the
MCP gateway's limits) to `POST /mcp`: with every slot busy and the queue full, an `/mcp`
request is refused at once (429, GNO's message, ``Retry-After``), while the REST API,
health, status and the pages still answer; once the slow requests end the queue drains and
new requests are served. A real server process on
127.0.0.1; the slow requests are real ones whose bodies the test holds back (the handler
waits for them), so every step waits on a state the server reports, never on a clock.

And a conversion on the server's sync thread has a deadline (GNO_CONVERT_TIMEOUT_MS): a
Markdown file whose analysis runs far past it is the documented TIMEOUT ingest error, the
job completes and the rest of the index is served."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import yaml

from gno.resident.capacity import QUEUE_WAIT_SECONDS

GNO = [sys.executable, "-m", "gno.cli.entry"]
DEADLINE = 120.0
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
BODY = json.dumps(INITIALIZE).encode()
ACCEPT = {"Accept": "application/json, text/event-stream"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(check, what: str) -> None:
    end = time.monotonic() + DEADLINE
    while not check():
        assert time.monotonic() < end, f"{what}: not before {DEADLINE} s"
        time.sleep(0.05)


@contextlib.contextmanager
def served(tmp_path: Path, files: dict[str, str], *, limits: dict[str, int] | None = None,
           env: dict[str, str] | None = None) -> Iterator[httpx.Client]:  # fmt: skip
    """`gno serve` over a collection indexed by `gno update` first."""
    root = tmp_path / "notes"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    subprocess.run([*GNO, "init", str(root), "--name", "notes"], check=True, timeout=DEADLINE)
    subprocess.run([*GNO, "update"], check=True, timeout=DEADLINE, capture_output=True)
    if limits is not None:
        config = Path(os.environ["GNO_CONFIG_DIR"]) / "index.yml"
        document = yaml.safe_load(config.read_text(encoding="utf-8"))
        document["gateway"] = {"limits": limits}
        config.write_text(yaml.safe_dump(document), encoding="utf-8")
    port = _free_port()
    server = subprocess.Popen(
        [*GNO, "serve", "--port", str(port), "--no-watch", "--body-timeout-ms", "600000"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=DEADLINE) as http:

            def up() -> bool:
                assert server.poll() is None, "gno serve exited"
                with contextlib.suppress(httpx.TransportError):
                    return http.get("/api/health").status_code == 200
                return False

            _wait_for(up, "server start")
            yield http
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=DEADLINE)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=DEADLINE)


class HeldRequest:
    """`POST /mcp` (an initialize) sent whole but for its body's last byte: it holds a slot
    and waits for the test to ``finish`` it."""

    def __init__(self, port: int, *, hold: bool) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(BODY)}\r\n"
            f"Accept: {ACCEPT['Accept']}\r\nConnection: close\r\n\r\n"
        ).encode()
        self.sock.sendall(head + (BODY[:-1] if hold else BODY))

    def finish(self) -> None:
        self.sock.sendall(BODY[-1:])

    def status(self) -> int:
        data = b""
        while chunk := self.sock.recv(65536):
            data += chunk
        self.sock.close()
        return int(data.split(b"\r\n", 1)[0].split()[1])


def _transport(http: httpx.Client) -> dict:
    answer = http.get("/api/resident/status")
    assert answer.status_code == 200
    return answer.json()["transport"]


def test_over_capacity_requests_are_refused_at_once_and_the_queue_drains(
    tmp_path: Path,
) -> None:
    limits = {"maxConcurrentRequests": 2, "maxQueuedRequests": 1}
    with served(tmp_path, {"a.md": "# A\n\nokapi\n"}, limits=limits) as http:
        port = http.base_url.port
        assert port is not None
        transport = _transport(http)
        assert (transport["maxConcurrentRequests"], transport["maxQueuedRequests"]) == (2, 1)
        running = [HeldRequest(port, hold=True), HeldRequest(port, hold=True)]
        waiting = HeldRequest(port, hold=False)  # whole: it only waits for a slot
        _wait_for(lambda: _transport(http)["queuedRequests"] == 1, "one request queued")

        # Full: an /mcp request is refused at once, GNO's 429, with when to try again.
        mcp = http.post("/mcp", json=INITIALIZE, headers=ACCEPT)
        assert mcp.status_code == 429
        assert mcp.json()["error"] == {"code": -32000, "message": "Too many requests"}
        assert mcp.headers["retry-after"] == "1"
        # The REST API (not the gateway's), health, status and the Web UI's page answer.
        search = http.post("/api/search", json={"query": "okapi"})
        assert search.status_code == 200, search.text
        assert [r["uri"] for r in search.json()["results"]] == ["gno://notes/a.md"]
        assert http.get("/api/health").status_code == 200
        assert http.get("/api/status").status_code == 200
        assert http.get("/").status_code == 200

        for request in running:
            request.finish()
        for request in (*running, waiting):
            assert request.status() == 200
        _wait_for(lambda: _transport(http)["queuedRequests"] == 0, "the queue drained")
        session = http.post("/mcp", json=INITIALIZE, headers=ACCEPT)
        assert session.status_code == 200, session.text


def test_a_slow_markdown_conversion_on_the_servers_sync_thread_times_out(
    tmp_path: Path,
) -> None:
    # ~1 s per MB of analysis (links, measured): about 10 s here, against a 1 s deadline.
    slow = "[[a]] [b](c) " * 10 + "\n"
    with served(
        tmp_path, {"fast.md": "# Fast\n\nokapi\n"}, env={"GNO_CONVERT_TIMEOUT_MS": "1000"}
    ) as http:
        (tmp_path / "notes" / "slow.md").write_text(slow * 80_000, encoding="utf-8")
        receipt = http.post("/api/sync", json={"collection": "notes"})
        assert receipt.status_code == 202, receipt.text
        job_id = receipt.json()["jobId"]
        jobs: list[dict] = []

        def done() -> bool:
            jobs.append(http.get(f"/api/jobs/{job_id}").json())
            return jobs[-1]["status"] in ("completed", "failed")

        _wait_for(done, "the sync job")
        job = jobs[-1]
        assert job["status"] == "completed", job
        errors = job["result"]["collections"][0]["errors"]
        assert [(e["relPath"], e["code"]) for e in errors] == [("slow.md", "TIMEOUT")]
        hits = http.post("/api/search", json={"query": "okapi"}).json()["results"]
        assert [h["uri"] for h in hits] == ["gno://notes/fast.md"]


def test_a_queued_request_whose_client_went_away_leaves_the_queue_and_never_runs(
    tmp_path: Path,
) -> None:
    limits = {"maxConcurrentRequests": 1, "maxQueuedRequests": 2}
    with served(tmp_path, {"a.md": "# A\n\nokapi\n"}, limits=limits) as http:
        port = http.base_url.port
        assert port is not None
        running = HeldRequest(port, hold=True)
        ghosts = [HeldRequest(port, hold=False), HeldRequest(port, hold=True)]
        _wait_for(lambda: _transport(http)["queuedRequests"] == 2, "two requests queued")
        assert http.post("/mcp", json=INITIALIZE, headers=ACCEPT).status_code == 429

        # Their clients give up (one had sent its whole body, one part of it). The queue's
        # own give-up after QUEUE_WAIT_SECONDS cannot explain a queue emptied well before.
        for ghost in ghosts:
            ghost.sock.close()
        noticed = time.monotonic() + QUEUE_WAIT_SECONDS / 2
        while _transport(http)["queuedRequests"]:
            assert time.monotonic() < noticed, "the server kept the gone clients in line"
            time.sleep(0.05)

        # Their places are free: a new caller waits in line instead of a 429; its body comes
        # only once it runs.
        fresh = HeldRequest(port, hold=True)
        _wait_for(lambda: _transport(http)["queuedRequests"] == 1, "the new request queued")
        running.finish()
        assert running.status() == 200
        fresh.finish()
        assert fresh.status() == 200
        # Each initialize that ran opened a session: the running one's and the new one's.
        assert _transport(http)["activeSessions"] == 2
