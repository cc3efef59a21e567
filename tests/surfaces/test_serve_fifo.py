"""Defect 8 as it was met: a named pipe in a collection hung `gno serve`'s sync job forever,
every later sync queued behind it, and SIGTERM could not stop the server. A real server
process; every wait is bounded."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

GNO = [sys.executable, "-m", "gno.cli.entry"]
DEADLINE = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _job_result(http: httpx.Client, job_id: str) -> dict:
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        job = http.get(f"/api/jobs/{job_id}").json()
        if job["status"] in ("completed", "failed"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"sync job {job_id} still {job['status']} after {DEADLINE} s")


def test_named_pipe_does_not_hang_the_servers_sync(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "ok.md").write_text("# Ok\n\ngoodword\n")
    subprocess.run([*GNO, "init", str(root), "--name", "notes"], check=True, timeout=120)
    subprocess.run([*GNO, "update"], check=True, timeout=120, capture_output=True)
    os.mkfifo(root / "t.md")
    port = _free_port()
    server = subprocess.Popen(
        [*GNO, "serve", "--port", str(port), "--no-watch"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ.copy(),
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=DEADLINE) as http:
            end = time.monotonic() + DEADLINE
            while True:
                try:
                    if http.get("/api/health").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < end, "server did not start"
                time.sleep(0.1)
            # what the watcher submits when the pipe appears: a sync of that one path
            receipt = http.post("/api/sync", json={"collection": "notes", "paths": ["t.md"]})
            assert receipt.status_code == 202, receipt.text
            job = _job_result(http, receipt.json()["jobId"])
            assert job["status"] == "completed", job
            errors = job["result"]["collections"][0]["errors"]
            assert [(e["relPath"], e["code"]) for e in errors] == [("t.md", "UNSUPPORTED")]
            # the next sync is not stuck behind it
            receipt = http.post("/api/sync", json={"collection": "notes"})
            job = _job_result(http, receipt.json()["jobId"])
            assert job["status"] == "completed", job
            hits = http.post("/api/search", json={"query": "goodword"}).json()["results"]
            assert [h["uri"] for h in hits] == ["gno://notes/ok.md"]
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=DEADLINE) is not None
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=DEADLINE)
