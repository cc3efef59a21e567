"""The index guard (gno/index_lock.py): threads and processes take turns, a waiter
gives up with LOCKED, a dead holder frees it, nested holds join."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from gno.errors import LockedError
from gno.index_lock import index_guard, lock_path
from gno.paths import resolve_paths


def test_threads_take_turns_and_nested_holds_join() -> None:
    paths = resolve_paths()
    inside, overlaps = [0], []

    def work() -> None:
        for _ in range(20):
            with index_guard(paths), index_guard(paths):  # the nested hold joins
                inside[0] += 1
                overlaps.append(inside[0])
                time.sleep(0.001)
                inside[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(overlaps) == 80 and set(overlaps) == {1}


def test_a_waiter_gives_up_with_locked_and_a_killed_holder_frees_it() -> None:
    paths = resolve_paths()
    refused: list[BaseException] = []

    def wait_briefly() -> None:
        try:
            with index_guard(paths, wait=0.05):
                pass
        except LockedError as exc:
            refused.append(exc)

    with index_guard(paths):  # another thread of this process is refused too
        waiter = threading.Thread(target=wait_briefly)
        waiter.start()
        waiter.join(30)
    assert len(refused) == 1
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from gno.index_lock import index_guard; from gno.paths import "
            "resolve_paths\nwith index_guard(resolve_paths()):\n print('held', flush=True); "
            "time.sleep(600)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(LockedError), index_guard(paths, wait=0.05):
            pass
    finally:
        holder.kill()
        holder.wait(30)
    with index_guard(paths, wait=5):  # the kernel dropped the dead holder's lock
        assert lock_path(paths).exists()
