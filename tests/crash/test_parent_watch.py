"""A sync worker dies with its parent (gno/ingest/parent_watch.py): through the kernel's
parent-death signal on Linux, and through the getppid() watchdog alone (the portable
fallback), each tested on a real parent killed with SIGKILL."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.crash import harness as h

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="reads processes in /proc"
)

CHILD = (
    "import os, sys, time\n"
    "from gno.ingest import parent_watch as w\n"
    "if sys.argv[1] == 'watchdog-only':\n"
    "    w._kernel_death_signal = lambda: None\n"
    "w.die_with_parent(os.getppid())\n"
    "print(os.getpid(), flush=True)\n"
    "time.sleep(600)\n"
)
PARENT = (
    "import subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', sys.argv[1], sys.argv[2]])\n"
    "time.sleep(600)\n"
)


@pytest.mark.parametrize("mode", ["kernel", "watchdog-only"])
def test_worker_dies_when_its_parent_is_killed(mode: str) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, CHILD, mode], stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert h.alive(child)
    finally:
        h.kill9(parent)
    h.wait_until(lambda: not h.alive(child), "the orphaned worker to exit", 10.0)
