"""`gno mcp` as a real process stopped by a signal while its client keeps stdin open (as
a client that kills its server does): it exits 130 instead of waiting for ever on the
thread that reads stdin, and a write tool call in progress finishes first, so the note is
on disk and indexed, never half done."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gno.index_lock import WRITE_LEASE_NAME
from tests.index_consistency import assert_consistent

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
GNO = [sys.executable, "-m", "gno.cli.entry"]
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "signal-test", "version": "0"},
    },
}


def indexed(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nalpha body\n")
    for args in (["init", str(root), "--name", "notes"], ["update"]):
        subprocess.run([*GNO, *args], check=True, capture_output=True, timeout=120)
    return root


@contextlib.contextmanager
def server(*args: str, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [*GNO, "mcp", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ | (env or {}),
    )
    try:
        send(proc, INIT)
        assert json.loads(answer(proc))["id"] == 1
        send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(proc, {"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert json.loads(answer(proc)) == {"jsonrpc": "2.0", "id": 2, "result": {}}
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            assert stream is not None
            stream.close()


def send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def answer(proc: subprocess.Popen[bytes]) -> str:
    assert proc.stdout is not None
    return proc.stdout.readline().decode()


def exit_code(proc: subprocess.Popen[bytes]) -> int | None:
    """The exit code, or None when the process is still there a minute later (a hang)."""
    try:
        return proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        return None


@pytest.mark.parametrize(
    ("signum", "early"), [(signal.SIGTERM, "1"), (signal.SIGINT, "0"), (signal.SIGTERM, "0")]
)
def test_a_signal_stops_an_idle_server_whose_client_keeps_stdin_open(
    tmp_path: Path, signum: int, early: str
) -> None:
    indexed(tmp_path)
    with server(env={"GNO_MCP_EARLY_INITIALIZE": early}) as proc:
        proc.send_signal(signum)
        assert exit_code(proc) == 130  # stdin is still open: was a process that never ended


def _waits_on(pid: int, lease: Path) -> bool:
    """The process has the writer lease file open: its capture is waiting for the lease."""
    fds = Path(f"/proc/{pid}/fd")
    with contextlib.suppress(OSError):
        return any(os.readlink(fd) == str(lease) for fd in fds.iterdir())
    return False


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc/<pid>/fd")
def test_sigterm_during_a_write_call_finishes_the_write_then_exits(tmp_path: Path) -> None:
    root = indexed(tmp_path)
    data_dir = Path(os.environ["GNO_DATA_DIR"])
    lease = data_dir / WRITE_LEASE_NAME
    holder = os.open(lease, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(holder, fcntl.LOCK_EX)  # another writer holds the lease: the capture waits
    try:
        with server("--enable-write") as proc:
            arguments = {"collection": "notes", "content": "omega words", "path": "late.md"}
            call = {"name": "gno_capture", "arguments": arguments}
            send(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
            deadline = time.monotonic() + 60
            while not _waits_on(proc.pid, lease.resolve()) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _waits_on(proc.pid, lease.resolve())
            proc.send_signal(signal.SIGTERM)
            os.close(holder)  # the capture gets the lease and runs to its end
            holder = -1
            assert exit_code(proc) == 130
    finally:
        if holder >= 0:
            os.close(holder)
    assert (root / "late.md").read_text().strip().endswith("omega words")
    assert assert_consistent(data_dir / "index-default.sqlite") == 2  # indexed, whole
    found = subprocess.run(
        [*GNO, "search", "omega", "--json"], capture_output=True, timeout=60, check=True
    )
    assert [r["uri"] for r in json.loads(found.stdout)["results"]] == ["gno://notes/late.md"]
