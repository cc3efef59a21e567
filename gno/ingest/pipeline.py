"""The CPU-heavy half of a sync: bytes -> conversion -> analysis -> FTS text.

Runs in worker processes when many files changed (both cores work while the
parent writes to SQLite), or inline for a handful. Everything here is picklable
and free of store access.

Workers are spawned (a fresh interpreter), never forked: a forked child would
inherit every open descriptor of its parent, the data directory's ownership lock
of `gno serve` and the index's SQLite file among them, and would be a copy of a
multithreaded server. Each worker also dies with its parent (``parent_watch``),
so a `gno update` or `gno serve` killed with SIGKILL leaves no process behind.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gno.errors import FrontmatterError
from gno.ports import (
    CONVERSION_FAILED,
    CORRUPT,
    TIMEOUT,
    TOO_LARGE,
    UNSUPPORTED,
    ConversionError,
    Converter,
)

if TYPE_CHECKING:  # analysis and process pools load only when a file needs converting
    from concurrent.futures import ProcessPoolExecutor

    from gno.core.content_types import ContentTypes
    from gno.core.document import Analysis

MAX_MIRROR_CHARS = 50_000_000
MARKDOWN_SYNTAX = frozenset({".md", ".markdown", ".pdf", ".docx", ".pptx", ".xlsx"})
POOL_THRESHOLD = 48  # fewer changed files than this are converted inline
# Formats whose parsers load C parts too: off the main thread, converted in a worker process.
DEADLINE_FORMATS = frozenset({".pdf", ".docx", ".pptx", ".xlsx"})


@dataclass(frozen=True)
class Job:
    rel_path: str
    abs_path: str
    ext: str
    mime: str
    data: bytes
    source_hash: str
    # Record lane (services/sync_records.py): the record's title and its adapter as the
    # converter; the virtual document itself is Markdown the lane built.
    title: str | None = None
    converter: tuple[str, str] | None = None
    content_types: ContentTypes | None = None  # index.yml contentTypes (core/content_types)


@dataclass(frozen=True)
class Converted:
    analysis: Analysis
    fts_title: str
    fts_body: str
    converter_id: str
    converter_version: str


@dataclass(frozen=True)
class Failed:
    code: str
    message: str


_converters: tuple[Converter, ...] | None = None


def default_converters() -> tuple[Converter, ...]:
    global _converters
    if _converters is None:
        from gno.adapters.converters.native import MarkdownConverter, PlainTextConverter
        from gno.adapters.converters.office import MarkitdownConverter

        _converters = (MarkdownConverter(), PlainTextConverter(), MarkitdownConverter())
    return _converters


def process(job: Job) -> Converted | Failed:
    """One file's conversion and analysis. Never raises for a bad file: whatever goes wrong
    becomes this file's ingest error, so one file cannot stop a sync."""
    try:
        return _process(job)
    except ConversionError as exc:
        return Failed(exc.code, exc.message)
    except FrontmatterError as exc:
        return Failed(CORRUPT, str(exc))
    except (RecursionError, MemoryError) as exc:
        return Failed(CORRUPT, f"File is too complex to analyze ({type(exc).__name__})")
    except Exception as exc:  # a converter or analysis bug on this file: reported, not fatal
        return Failed(CONVERSION_FAILED, f"{type(exc).__name__}: {exc}"[:500])


def _process(job: Job) -> Converted | Failed:
    """Conversion and analysis under one deadline (``gno.ingest.deadline``), whatever the
    format and wherever this runs: the CLI's main thread, a worker process, or a server's
    sync job on a thread of its own (there Markdown, text and record documents convert
    inline, and once ran with no deadline at all)."""
    from gno.core.document import analyze
    from gno.core.fts import index_text
    from gno.ingest.deadline import Expired, convert_seconds, deadline

    converter = next((c for c in default_converters() if c.can_handle(job.ext, job.mime)), None)
    if converter is None:
        return Failed(UNSUPPORTED, f"No converter for {job.ext or 'this file'}")
    seconds = convert_seconds()
    try:
        with deadline(seconds):
            conversion = converter.convert(Path(job.abs_path), job.data, job.ext, job.mime)
            if len(conversion.markdown) > MAX_MIRROR_CHARS:
                raise ConversionError(TOO_LARGE, "Converted text exceeds 50,000,000 characters")
            analysis = analyze(
                conversion.markdown,
                job.rel_path,
                job.ext,
                markdown_syntax=job.ext in MARKDOWN_SYNTAX,
                converter_title=job.title or conversion.title,
                content_types=job.content_types,
            )
            fts_title, fts_body = index_text(analysis.title), index_text(analysis.mirror)
    except Expired:
        raise ConversionError(TIMEOUT, f"Conversion took longer than {seconds:g} s") from None
    converter_id, converter_version = job.converter or (
        conversion.converter_id,
        conversion.converter_version,
    )
    return Converted(analysis, fts_title, fts_body, converter_id, converter_version)


def _init_worker(parent: int) -> None:
    # Ctrl-C is the parent's to handle: it rolls back the open batch and stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from gno.ingest.parent_watch import die_with_parent

    die_with_parent(parent)


class JobRunner:
    """Converts jobs in order; starts worker processes the first time a window is big enough."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self.workers = max(1, min(os.cpu_count() or 1, 4))

    def run(self, jobs: list[Job]) -> Iterator[Converted | Failed]:
        few = len(jobs) < POOL_THRESHOLD or (os.cpu_count() or 1) < 2
        if self._pool is None and few and not self._needs_worker(jobs):
            return map(process, jobs)
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker,
                initargs=(os.getpid(),),
            )
        return self._pool.map(process, jobs, chunksize=4)

    @staticmethod
    def _needs_worker(jobs: list[Job]) -> bool:
        """Off the main thread (a server's sync job) an Office or PDF file goes to a worker,
        whose main thread's timer signal also cuts a sleeping or blocked call, and whose
        parser's memory goes when it ends. Text and Markdown stay inline, under the
        watchdog's deadline (``gno.ingest.deadline``)."""
        from gno.ingest.deadline import interruptible

        return not interruptible() and any(job.ext in DEADLINE_FORMATS for job in jobs)

    def close(self, *, cancel: bool = False) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=not cancel, cancel_futures=cancel)
            self._pool = None
