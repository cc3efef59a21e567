"""The progress of long commands: the bar of update, embed and index on stderr, a model
download's bar, a generated answer streamed to the terminal."""

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


@contextmanager
def reporter(
    kind: str, show: bool, view: dict[str, Any], stream: Callable[[str], None] | None
) -> Iterator[Any]:
    """The progress callback of a command by its registry ``progress`` kind (None: nothing
    shown). ``stream`` writes generated text as it arrives; what it wrote is kept in
    ``view["streamed"]`` for the renderer."""
    if kind == "answer":
        if stream is None:
            yield None
            return
        streamed: list[str] = view.setdefault("streamed", [])

        def write(text: str) -> None:
            streamed.append(text)
            stream(text)

        yield write
        return
    if kind == "download":
        from gno.models.progress import download_progress

        with download_progress(show and not view.get("no_progress")) as report:
            yield report
        return
    with sync_progress(show) as bar:
        if bar is not None and kind == "embed":  # embed reports (done, total)
            yield lambda done, total: bar("embed", done, total)
        else:
            yield bar
