"""The progress bar of long index commands (update, embed, index) on stderr."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

Report = Callable[[str, int, int], None]  # (collection, done, total)


@contextmanager
def sync_progress(enabled: bool) -> Iterator[Report | None]:
    """A rich progress bar per collection on stderr, or None when not shown."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    tasks: dict[str, Any] = {}
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    ) as bar:

        def report(collection: str, done: int, total: int) -> None:
            if collection not in tasks:
                tasks[collection] = bar.add_task(collection, total=total)
            bar.update(tasks[collection], completed=done)

        yield report
