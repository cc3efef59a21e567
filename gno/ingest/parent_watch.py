"""A worker process that must not outlive its parent (sync workers of `gno update`
and `gno serve`): when the parent dies, even by SIGKILL, the worker dies too.

Linux: the kernel sends SIGKILL when the parent goes (``prctl(PR_SET_PDEATHSIG)``,
reached through ctypes). Everywhere, as a fallback: a daemon thread compares
``getppid()`` with the parent's pid once a second (an orphan is re-parented, so
its parent pid changes) and ends the process when they differ.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
POLL_SECONDS = 1.0


def _kernel_death_signal() -> None:
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl in this libc: the watchdog still runs
        pass


def _watch(parent: int) -> None:
    stop = threading.Event()
    while not stop.wait(POLL_SECONDS):
        if os.getppid() != parent:
            os._exit(1)


def die_with_parent(parent: int) -> None:
    """Tie this process's life to ``parent``'s (call it first thing in the child)."""
    _kernel_death_signal()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="parent-watch", daemon=True).start()
