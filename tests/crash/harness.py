"""Real `gno` processes for the crash and concurrency suites: start, kill -9, look at
what is left in /proc, and compare the index with the files on disk."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import apsw
import httpx

GNO = [sys.executable, "-m", "gno.cli.entry"]
DEADLINE = 60.0


def data_dir() -> Path:
    return Path(os.environ["GNO_DATA_DIR"])


def db_path() -> Path:
    return data_dir() / "index-default.sqlite"


def run(*args: str, check: bool = True, timeout: float = DEADLINE) -> subprocess.CompletedProcess:
    done = subprocess.run([*GNO, *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"gno {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return done


def write_corpus(root: Path, count: int, start: int = 0, words: int = 60) -> set[str]:
    """``count`` Markdown notes with distinct terms; returns their relative paths."""
    root.mkdir(parents=True, exist_ok=True)
    names = set()
    for i in range(start, start + count):
        name = f"n{i:05d}.md"
        (root / name).write_text(f"# Note {i}\n\n" + f"term{i} body text " * words + "\n")
        names.add(name)
    return names


def wait_until(ready: Callable[[], bool], what: str, deadline: float = DEADLINE) -> None:
    end = time.monotonic() + deadline
    while not ready():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def count_docs(db: Path | None = None, *, active_only: bool = True) -> int:
    """Documents in the index, read through its own connection (WAL: never blocks)."""
    db = db or db_path()
    if not db.exists():
        return 0
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        conn.set_busy_timeout(2000)
        where = " WHERE active = 1" if active_only else ""
        try:
            row = conn.execute(f"SELECT count(*) FROM documents{where}").fetchone()
        except apsw.SQLError:  # schema not created yet
            return 0
        return int(row[0]) if row else 0
    finally:
        conn.close()


def active_paths(db: Path | None = None) -> list[tuple[str, str]]:
    """(collection, relPath) of every active document, duplicates kept."""
    conn = apsw.Connection(str(db or db_path()), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        conn.set_busy_timeout(2000)
        return [
            (r[0], r[1])
            for r in conn.execute("SELECT collection, rel_path FROM documents WHERE active = 1")
        ]
    finally:
        conn.close()


def active_uris(db: Path | None = None) -> list[str]:
    conn = apsw.Connection(str(db or db_path()), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        conn.set_busy_timeout(2000)
        return [r[0] for r in conn.execute("SELECT uri FROM documents WHERE active = 1")]
    finally:
        conn.close()


# ---- processes, from /proc


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, ppid) of a process, None once it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = raw.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    """Running (a zombie has exited: its only remnant is the exit status)."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def children_of(pid: int) -> set[int]:
    """Live processes whose parent is ``pid`` (the sync workers of a gno process)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[1] == pid and stat[0] not in ("Z", "X"):
                found.add(int(entry.name))
    return found


def holders(directory: Path) -> set[int]:
    """Live processes other than this one with a file under ``directory`` open."""
    prefix = str(directory.resolve()) + os.sep
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except (FileNotFoundError, PermissionError, ProcessLookupError):
            continue
        for fd in fds:
            try:
                if os.readlink(fd).startswith(prefix):
                    found.add(int(entry.name))
                    break
            except OSError:
                continue
    return {pid for pid in found if alive(pid)}


def assert_no_orphans(pids: set[int], directory: Path, deadline: float = 15.0) -> None:
    """Every process in ``pids`` exits and nothing keeps a file of ``directory`` open."""
    try:
        wait_until(
            lambda: not any(alive(p) for p in pids) and not holders(directory), "orphans", deadline
        )
    except AssertionError:
        left = sorted(p for p in pids if alive(p))
        raise AssertionError(
            f"orphans still running: {left}; holding the data dir: {sorted(holders(directory))}"
        ) from None


def kill9(proc: subprocess.Popen) -> set[int]:
    """SIGKILL ``proc``; returns its children as they were just before the kill."""
    kids = children_of(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=DEADLINE)
    return kids


# ---- gno serve


class Server:
    """A real `gno serve --port 0` (or `gno daemon`), stdout read for its URL."""

    def __init__(self, *extra: str, command: str = "serve") -> None:
        # stderr goes to a file: a pipe nobody reads would block a server that logs a lot
        self.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (closed by stop)
        self.proc = subprocess.Popen(
            [*GNO, command, "--port", "0", *extra],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        self.url = self._announced()
        self.http = httpx.Client(base_url=self.url, timeout=DEADLINE)

    def _announced(self) -> str:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], DEADLINE)
        line = self.proc.stdout.readline() if ready else ""
        if "http://" not in line:
            self.proc.kill()
            self.proc.communicate(timeout=DEADLINE)
            self.log.seek(0)
            raise AssertionError(f"gno serve did not start: {line!r} {self.log.read()}")
        return line.split()[2]

    def sync(self, **body: object) -> str:
        answer = self.http.post("/api/sync", json=body)
        assert answer.status_code == 202, answer.text
        return answer.json()["jobId"]

    def wait_job(self, job_id: str) -> dict:
        result: dict = {}

        def done() -> bool:
            nonlocal result
            result = self.http.get(f"/api/jobs/{job_id}").json()
            return result.get("status") in ("completed", "failed", "cancelled")

        wait_until(done, f"job {job_id}", DEADLINE * 3)
        return result

    def stop(self) -> None:
        self.http.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.communicate(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.communicate()
        self.log.close()


def status_json(*args: str) -> dict:
    return json.loads(run("status", "--json", *args).stdout)
