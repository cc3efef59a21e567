"""What a sync must do, decided without I/O: the planner half of ``services/sync.py``.

From the walk (each file's relative path and stat) and the index's state per path, the
plan gives every walked file a step and lists the documents a complete walk no longer
found. Change detection is stat-first: a file whose (size, mtime_ns, inode) and ingest
version match the index needs nothing; only a changed stat costs a read, and once read,
only a changed hash costs a conversion (``content_step``). The applier (``sync.py``)
reads, converts and writes; planning again after a finished apply gives an empty plan.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from gno.core.content_types import NEUTRAL, ContentTypes
from gno.ports import PERMANENT_CODES
from gno.rows import INGEST_VERSION
from gno.sync_rows import DocState


class Stat(Protocol):
    """A walked file (``ingest.walker.WalkEntry``)."""

    @property
    def rel_path(self) -> str: ...

    @property
    def size(self) -> int: ...

    @property
    def mtime_ns(self) -> int: ...

    @property
    def inode(self) -> int: ...


class Step(Enum):
    KEEP = "keep"  # indexed, stat unchanged: nothing to do
    SKIP = "skip"  # failed for good (corrupt, too large, ...), stat unchanged: nothing to do
    REACTIVATE = "reactivate"  # stat unchanged, removed before and back now
    READ = "read"  # new or changed stat: read and hash it (``content_step`` decides)


class ContentStep(Enum):
    TOUCH = "touch"  # same bytes as indexed: refresh the stat (reactivate when removed)
    TOUCH_SKIP = "touch-skip"  # same bytes as a permanent failure: refresh the stat
    CONVERT = "convert"  # new bytes: convert and save


@dataclass(frozen=True)
class SyncPlan:
    steps: tuple[tuple[str, Step], ...]  # per walked file, in walk order
    gone: tuple[tuple[str, int], ...]  # (rel_path, document id): active, not walked

    @property
    def empty(self) -> bool:
        """Nothing to write: every file is kept or skipped and nothing is gone."""
        return not self.gone and all(s in (Step.KEEP, Step.SKIP) for _, s in self.steps)


def rules_current(rel_path: str, state: DocState | None, rules: ContentTypes | None) -> bool:
    """Whether the content-type rules that classify this document are the ones it was
    ingested under (a rules change re-ingests exactly the documents it concerns)."""
    if state is None or rules is None:
        return True
    return (state.rules_fp or NEUTRAL) == rules.doc_fingerprint(rel_path, state.frontmatter_type)


def stat_step(entry: Stat, state: DocState | None, rules: ContentTypes | None = None) -> Step:
    """What a file needs, from its stat and the index alone."""
    same_stat = (
        state is not None
        and state.size == entry.size
        and state.mtime_ns == entry.mtime_ns
        and state.inode == entry.inode
        and state.ingest_version == INGEST_VERSION
        and rules_current(entry.rel_path, state, rules)
    )
    if same_stat and state is not None and state.error_code is None and state.mirror_hash:
        return Step.KEEP if state.active else Step.REACTIVATE
    if same_stat and state is not None and state.error_code in PERMANENT_CODES:
        return Step.SKIP
    return Step.READ


def content_step(source_hash: str, state: DocState | None, rules_ok: bool = True) -> ContentStep:
    """What a file that was read needs, from its SHA-256 and the index."""
    if (
        state is not None
        and rules_ok
        and state.source_hash == source_hash
        and state.ingest_version == INGEST_VERSION
    ):
        if state.error_code is None and state.mirror_hash:
            return ContentStep.TOUCH
        if state.error_code in PERMANENT_CODES:
            return ContentStep.TOUCH_SKIP
    return ContentStep.CONVERT


def plan_sync(
    entries: Sequence[Stat],
    states: Mapping[str, DocState],
    *,
    complete: bool = True,
    unreadable: Sequence[str] = (),
    rules: ContentTypes | None = None,
) -> SyncPlan:
    """The plan for a walk. Only a ``complete`` walk may remove documents (an unmounted
    folder or a partial walk never does), and nothing under a folder it could not read
    (``unreadable``: relative folders, "" for the root) counts as gone."""
    steps = tuple((e.rel_path, stat_step(e, states.get(e.rel_path), rules)) for e in entries)
    gone: tuple[tuple[str, int], ...] = ()
    if complete:
        seen = {e.rel_path for e in entries}
        gone = tuple(
            (rel, state.id)
            for rel, state in states.items()
            if state.active and rel not in seen and not under_any(rel, unreadable)
        )
    return SyncPlan(steps, gone)


def under_any(rel: str, folders: Sequence[str]) -> bool:
    return any(not folder or rel.startswith(folder + "/") for folder in folders)
