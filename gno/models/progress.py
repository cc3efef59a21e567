"""Download progress on stderr: one rich bar per file, shown only on a terminal.

Shared by ``gno models pull`` and automatic downloads, so both look the same. Nothing
is written when stderr is not a terminal: piped output and ``--json`` error objects on
stderr stay clean.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

DownloadProgress = Callable[[str, int, int | None], None]  # (label, bytes done, bytes total)


@contextmanager
def download_progress(enabled: bool) -> Iterator[DownloadProgress | None]:
    """A callback drawing byte bars on stderr, or None when disabled."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    tasks: dict[str, Any] = {}
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    ) as bar:

        def report(label: str, done: int, total: int | None) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done, total=total)

        yield report


def stderr_download_progress() -> AbstractContextManager[DownloadProgress | None]:
    """Progress for downloads nobody asked for explicitly (auto-download): terminal only."""
    return download_progress(sys.stderr.isatty())
