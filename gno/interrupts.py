"""A stop asked for by a signal (Ctrl-C, SIGTERM): raised, and remembered.

Python raises ``KeyboardInterrupt`` wherever the main thread happens to be when the handler
runs. Where that is a finalizer, or a C extension's call that clears the error it finds (a
database driver returning from a busy wait), the exception is dropped, and a long `gno
update` would run on to its end and exit 0 as if nobody had asked it to stop. The flag
survives that: the sync looks at it before each batch it commits (``check``).
"""

from __future__ import annotations

requested = False


def stop(signum: int, frame: object) -> None:
    """The CLI's handler for SIGINT and SIGTERM."""
    global requested
    requested = True
    raise KeyboardInterrupt


def check() -> None:
    """Raise ``KeyboardInterrupt`` again if a stop was asked for and its exception was lost."""
    if requested:
        raise KeyboardInterrupt
