"""Pid files and liveness (gno/resident/process.py) on real files and real processes:
atomic records, stale files, zombies and reused pids are "not running", and a process that
does not hold the data directory's owner lock is never the server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gno.resident import process
from gno.resident.lock import DataDirLock


def files(tmp_path: Path, kind: str = "serve") -> process.ProcessFiles:
    return process.process_files(kind, tmp_path)


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # reaped: the pid names no process now
    return child.pid


def test_defaults_live_in_the_data_dir_and_given_paths_become_absolute(tmp_path: Path) -> None:
    default = files(tmp_path, "daemon")
    assert default.pid_file == tmp_path / "daemon.pid"
    assert default.log_file == tmp_path / "daemon.log"
    given = process.process_files("serve", tmp_path, "run/x.pid", "~/x.log")
    assert given.pid_file.is_absolute() and given.pid_file.name == "x.pid"
    assert given.log_file == Path("~/x.log").expanduser()


@pytest.fixture
def owner(tmp_path: Path) -> Iterator[DataDirLock]:
    """This test process as the data directory's server: it holds the owner lock."""
    lock = DataDirLock(tmp_path)
    lock.acquire({"cmd": "serve", "port": 4321})
    yield lock
    lock.release()


def test_pid_file_round_trip(tmp_path: Path, owner: DataDirLock) -> None:
    target = files(tmp_path)
    process.write_pid_file(target.pid_file, "serve", 4321)
    record = json.loads(target.pid_file.read_text())
    assert set(record) == {"pid", "port", "cmd", "version", "started_at"}
    assert process.read_pid_file(target.pid_file) == record
    assert process.running_record(target) == record  # alive, and it holds the lock
    assert process.running_record(files(tmp_path, "daemon")) is None  # other command's file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["resident.lock", "serve.pid"]
    owner.release()  # the server let the data directory go: the file is stale
    assert process.running_record(target) is None and not target.pid_file.exists()


@pytest.mark.parametrize(
    "body",
    [
        "",
        "not json",
        "[1]",
        '{"pid": 0, "port": 1, "cmd": "serve", "started_at": "2026-01-01T00:00:00Z"}',
        '{"pid": 5, "port": 70000, "cmd": "serve", "started_at": "2026-01-01T00:00:00Z"}',
        '{"pid": 5, "port": 80, "cmd": "mcp", "started_at": "2026-01-01T00:00:00Z"}',
        '{"pid": 5, "port": 80, "cmd": "serve", "started_at": "yesterday"}',
    ],
)
def test_malformed_pid_files_are_not_records(tmp_path: Path, body: str) -> None:
    (tmp_path / "serve.pid").write_text(body)
    assert process.read_pid_file(tmp_path / "serve.pid") is None
    assert process.process_status(files(tmp_path))["running"] is False


def test_a_dead_pid_is_stale_and_its_file_removed(tmp_path: Path) -> None:
    target = files(tmp_path)
    target.pid_file.write_text(
        json.dumps(
            {
                "pid": dead_pid(),
                "port": 3000,
                "cmd": "serve",
                "version": "0.1.0",
                "started_at": "2026-01-01T00:00:00.000Z",
            }
        )
    )
    status = process.process_status(target)
    assert status["running"] is False and status["uptime_seconds"] is None
    assert not target.pid_file.exists()
    assert process.stop(target) is None


def test_a_zombie_is_not_alive(tmp_path: Path) -> None:
    if not Path("/proc/self/stat").exists():
        pytest.skip("zombie detection reads /proc")
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = datetime.now(UTC) + timedelta(seconds=30)
    while Path(f"/proc/{child.pid}/stat").read_text().split(") ")[1][0] != "Z":
        assert datetime.now(UTC) < deadline, "child did not exit"
        time.sleep(0.01)
    try:
        assert process.is_alive(child.pid) is False
    finally:
        child.wait()


def test_a_pid_reused_after_the_file_was_written_is_not_ours(tmp_path: Path) -> None:
    if not Path("/proc/self/stat").exists():
        pytest.skip("process start times come from /proc")
    long_ago = "2001-01-01T00:00:00.000Z"  # this process started long after that
    assert process.is_alive(os.getpid(), long_ago) is False
    assert process.is_alive(os.getpid(), datetime.now(UTC).isoformat())


def test_a_pid_reused_within_the_slack_is_neither_reported_nor_stopped(tmp_path: Path) -> None:
    # A server killed with SIGKILL; its pid reused a moment later by an unrelated process.
    # Its start time is within the slack of the pid file's, so only the owner lock tells:
    # before, `--status` called it running and `--stop` sent it SIGTERM, then SIGKILL.
    target = files(tmp_path)
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        DataDirLock(tmp_path).path.write_text(json.dumps({"pid": server.pid, "cmd": "serve"}))
        written = datetime.now(UTC) - timedelta(seconds=2)  # just before it started
        target.pid_file.write_text(
            json.dumps(
                {
                    "pid": server.pid,
                    "port": 3000,
                    "cmd": "serve",
                    "version": "0.1.0",
                    "started_at": written.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                }
            )
        )
        assert process.is_alive(server.pid, target_started(target))  # the slack admits it
        assert process.process_status(target)["running"] is False
        assert process.stop(target) is None
        assert server.poll() is None  # never signalled
        assert not target.pid_file.exists()  # stale: nothing holds the lock
    finally:
        server.kill()
        server.wait()


def target_started(target: process.ProcessFiles) -> str:
    record = process.read_pid_file(target.pid_file)
    assert record is not None
    return str(record["started_at"])


def test_remove_pid_file_spares_a_newer_server(tmp_path: Path) -> None:
    target = files(tmp_path)
    process.write_pid_file(target.pid_file, "serve", 3000)
    process.remove_pid_file(target.pid_file, dead_pid())
    assert target.pid_file.exists()


def test_status_of_a_live_record_without_a_listener(tmp_path: Path, owner: DataDirLock) -> None:
    target = files(tmp_path)
    target.log_file.write_text("hello\n")
    process.write_pid_file(target.pid_file, "serve", 1)  # nothing listens on port 1
    status = process.process_status(target)
    assert status["running"] is True and status["resident"] is None
    assert status["log_size_bytes"] == 6 and status["uptime_seconds"] >= 0


def test_the_detached_child_command(tmp_path: Path) -> None:
    target = files(tmp_path)
    argv = ["--index", "work", "serve", "--detach", "--port", "0", "--json"]
    command = process.child_command(argv, target)
    assert command[:3] == [sys.executable, "-m", "gno"]
    assert "--detach" not in command and "--json" not in command
    assert command[3:7] == ["--index", "work", "serve", "--port"]
    assert command[-5:] == [
        "--pid-file",
        str(target.pid_file),
        "--log-file",
        str(target.log_file),
        "--write-pid-file",
    ]


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:80"),
        ("localhost", "http://127.0.0.1:80"),
        ("::1", "http://[::1]:80"),
        ("[::1]", "http://[::1]:80"),
    ],
)
def test_loopback_urls(host: str, url: str) -> None:
    assert process.is_loopback_host(host)
    assert process.loopback_url(host, 80) == url


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3", "example.org", "::ffff:10.0.0.1"])
def test_not_loopback(host: str) -> None:
    assert not process.is_loopback_host(host)


@pytest.mark.parametrize(
    ("host", "probes"),
    [
        ("0.0.0.0", ("127.0.0.1", "::1")),
        ("::", ("127.0.0.1", "::1")),
        ("localhost", ("127.0.0.1", "::1")),
        ("[::1]", ("::1",)),
        ("192.0.2.7", ("192.0.2.7",)),
    ],
)
def test_where_detach_waits_for_an_answer(host: str, probes: tuple[str, ...]) -> None:
    assert process.probe_hosts(host) == probes
