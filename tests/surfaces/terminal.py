"""Run a real `gno` process on a pseudo-terminal, as a person would see it."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

GNO = [sys.executable, "-m", "gno.cli.entry"]
DEADLINE_SECONDS = 60


def on_terminal(
    *args: str, env: dict[str, str] | None = None, rows: int = 50, keyboard: bool = False
) -> tuple[int, str]:
    """(exit code, everything written to the terminal) of `gno args` with stdout and
    stderr on a pseudo-terminal of ``rows`` lines; with ``keyboard``, stdin too."""
    import fcntl
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, 120, 0, 0))
    process = subprocess.Popen(
        [*GNO, *args],
        stdin=follower if keyboard else subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env={**os.environ, **(env or {})},
    )
    os.close(follower)
    out = b""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the follower side closed: the process is done
                break
            if not chunk:
                break
            out += chunk
        elif process.poll() is not None:
            break
    os.close(leader)
    code = process.wait(timeout=DEADLINE_SECONDS)
    return code, out.decode("utf-8", "replace")
