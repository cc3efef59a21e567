"""A client of `GET /api/events` that stops reading (gno/rest/deadlines.py): once what it
has not read fills the socket and the transport's buffer, it has ``write_seconds`` to take
some, else its connection is cut and its stream freed; and a stopping `gno serve` is not
held up by it (no graceful-deadline wait, no traceback per stalled client).

Each test proves the stall happened: the server paused writing to that connection (in
process), or the server's socket queue stopped growing while events went on (a real
`gno serve`)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from gno.app import App
from gno.paths import resolve_paths
from gno.rest import deadlines
from gno.rest.app import ServeOptions, create_app
from gno.rest.serve import GRACEFUL_SECONDS
from tests.live_server import wait_until

DEADLINE = 60.0
EVENT = {
    "type": "document-changed",
    "uri": "gno://notes/" + "x" * 1000,
    "collection": "notes",
    "relPath": "x" * 1000,
    "origin": "sync",
    "changedAt": "2026-08-01T09:40:01.250Z",
    "change": "added",
    "jobId": "j1",
}


def stalled_events_client(port: int) -> socket.socket:
    """An events client that reads nothing after its request (a small receive window, so
    the server's side fills quickly)."""
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.connect(("127.0.0.1", port))
    client.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
    return client


@contextlib.contextmanager
def served(write_seconds: float) -> Iterator[tuple[int, uvicorn.Server, Any, threading.Thread]]:
    """The REST app on uvicorn with gno's protocol and graceful deadline (as `gno serve`
    runs them); a client that stops reading is given ``write_seconds``."""
    app = App(resolve_paths())
    api = create_app(app, options=ServeOptions(mcp=None, watch=False, web_ui=False))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    # the class attribute, not protocol()'s argument: the test runs unchanged on code
    # without the write deadline, and fails there
    quick = type("Quick", (deadlines.protocol(10.0, 30.0),), {"write_seconds": write_seconds})
    config = uvicorn.Config(
        api,
        http=quick,
        lifespan="on",
        log_level="warning",
        proxy_headers=False,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: server.started)
    try:
        yield sock.getsockname()[1], server, api.state.runtime, thread
    finally:
        server.should_exit = True
        thread.join(DEADLINE)
        sock.close()


def _stall(server: uvicorn.Server, runtime: Any, port: int) -> socket.socket:
    bus = runtime.events
    client = stalled_events_client(port)
    wait_until(lambda: bus.connected_clients == 1)
    for _ in range(1000):  # ~64 KB a time until the server pauses writing to it
        if any(c.flow.write_paused for c in server.server_state.connections):
            return client
        bus.publish([EVENT] * 64)
        time.sleep(0.01)
    raise AssertionError("the server never waited on the client: no stall")


def test_a_client_that_stops_reading_is_cut_and_its_stream_freed() -> None:
    with served(write_seconds=0.5) as (port, server, runtime, _):
        client = _stall(server, runtime, port)
        try:
            wait_until(lambda: not server.server_state.connections)
            wait_until(lambda: runtime.events.connected_clients == 0 and not runtime.events._subs)
        finally:
            client.close()


def test_stopping_is_not_held_up_by_a_stalled_client(caplog: pytest.LogCaptureFixture) -> None:
    # a write deadline far off: only the stop may cut the client
    with served(write_seconds=3600.0) as (port, server, runtime, thread):
        client = _stall(server, runtime, port)
        try:
            started = time.monotonic()
            server.should_exit = True
            thread.join(DEADLINE)
            took = time.monotonic() - started
        finally:
            client.close()
        assert not thread.is_alive()
        assert took < 5.0, f"stopping took {took:.1f} s"
        assert "timeout graceful shutdown exceeded" not in caplog.text, caplog.text


def _server_queue(port: int, client_port: int) -> int | None:
    """Bytes the server's socket holds for the client (/proc/net/tcp's tx_queue)."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1], fields[2]
        if int(local.split(":")[1], 16) == port and int(remote.split(":")[1], 16) == client_port:
            return int(fields[4].split(":")[0], 16)
    return None


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads /proc/net/tcp")
def test_serve_stops_promptly_and_quietly_with_a_stalled_event_client() -> None:
    home = Path(tempfile.mkdtemp())
    env = {**os.environ, "GNO_DATA_DIR": str(home / "data")}
    env |= {"GNO_CONFIG_DIR": str(home / "config"), "GNO_CACHE_DIR": str(home / "cache")}
    deep = home / "notes" / ("a" * 200) / ("b" * 200)  # long paths: large events
    deep.mkdir(parents=True)
    for i in range(250):
        (deep / f"{i:04d}{'c' * 200}.md").write_text(f"# n{i}\n")
    gno = [sys.executable, "-m", "gno.cli.entry"]
    init = [*gno, "init", str(home / "notes"), "--name", "notes"]
    subprocess.run(init, env=env, check=True, capture_output=True, timeout=DEADLINE)
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(
            [*gno, "serve", "--port", "0", "--no-watch"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().split()[2]
            port = int(url.rsplit(":", 1)[1])
            client = stalled_events_client(port)
            with httpx.Client(base_url=url, timeout=DEADLINE) as http:
                queued: list[int | None] = []
                for round_ in range(40):  # every sync changes 250 documents: 250 events
                    for note in deep.iterdir():
                        note.write_text(f"# {round_} {note.name[:4]}\n")
                    job = http.post("/api/sync", json={}).json()["jobId"]
                    wait_until(lambda j=job: http.get(f"/api/jobs/{j}").json()["status"]
                               in ("completed", "failed"))  # fmt: skip
                    queued.append(_server_queue(port, client.getsockname()[1]))
                    if len(queued) >= 3 and queued[-1] == queued[-2] == queued[-3]:
                        break  # the socket is full and the server holds the rest: stalled
                else:
                    raise AssertionError(f"the client never stalled the server: {queued}")
            started = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(DEADLINE)
            took = time.monotonic() - started
            client.close()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        log.seek(0)
        stderr = log.read()
    assert code == 0
    assert took < 5.0, f"gno serve took {took:.1f} s to stop"
    assert "Traceback" not in stderr, stderr
