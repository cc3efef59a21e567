"""A watcher whose process was stopped while files changed (Ctrl-Z on `gno serve`, or a
process starved of CPU) owes its collection a whole pass.

The kernel queues at most ``fs.inotify.max_queued_events`` (16,384 by default) events per
watcher; past that it drops the rest and queues an overflow notice, which watchfiles
ignores. Before, a file written after the overflow was never synced: the index did not
match the folder until something else touched that file. The watcher runs in a child
process here so that it can really be stopped (SIGSTOP) and resumed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

DEADLINE = 60.0
EVENTS = 40_000  # well past the kernel's default queue of 16,384 events

CHILD = r"""
import json, sys, threading, time
from pathlib import Path

from gno.config import Collection, Config, save_config
from gno.paths import resolve_paths
from gno.resident.watcher import Watcher

root = Path(sys.argv[1])
save_config(resolve_paths().config_file, Config(collections=[Collection("notes", str(root))]))


lock = threading.Lock()  # the supervisor and a root's thread both submit: one line each


def submit(name, paths):
    with lock:
        sys.stdout.write(json.dumps([name, paths]) + "\n")
        sys.stdout.flush()
    return True


watcher = Watcher(resolve_paths(), submit, recheck_seconds=0.2, stall_seconds=1.0)
watcher.start()
while watcher.state()["activeCollections"] != ["notes"]:
    time.sleep(0.05)
print(json.dumps("watching"), flush=True)
sys.stdin.read()  # until the test closes it
watcher.stop()
"""


class Child:
    """The watcher's process; every submit it makes arrives as one JSON line."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
            cwd=Path(__file__).resolve().parents[2],
        )
        self.lines: list[object] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(json.loads(line))

    def wait_for(self, wanted: object, what: str) -> None:
        deadline = time.monotonic() + DEADLINE
        while wanted not in self.lines:
            assert self.proc.poll() is None, f"the watcher exited: {self.lines}"
            assert time.monotonic() < deadline, f"timed out waiting for {what}: {self.lines}"
            time.sleep(0.05)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(DEADLINE)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="needs SIGSTOP")
def test_changes_lost_while_the_watcher_was_stopped_cost_one_whole_pass(
    tmp_path: Path,
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    child = Child(root)
    try:
        child.wait_for("watching", "the root to be watched")
        child.proc.send_signal(signal.SIGSTOP)
        # One event per write; alternating between two files, the kernel merges none.
        a, b = (os.open(root / n, os.O_WRONLY | os.O_CREAT | os.O_APPEND) for n in ("a.md", "b.md"))
        try:
            for i in range(EVENTS):
                os.write(a if i % 2 else b, b"x")
        finally:
            os.close(a)
            os.close(b)
        (root / "last.md").write_text("# written after the queue overflowed\n")
        time.sleep(1.5)  # stopped for longer than the child's stall_seconds
        child.proc.send_signal(signal.SIGCONT)
        # last.md's event was dropped by the kernel: only a whole pass can find it.
        child.wait_for(["notes", None], "a whole-collection pass")
    finally:
        child.close()
