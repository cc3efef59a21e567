"""What one sync did to one collection: counts, errors, and the documents it changed."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

CHANGES_KEPT = 257  # per collection: enough to tell "up to 256 documents" from "more"
FILES_KEPT = 1000  # per collection: containers reported with their recordImport

# progress(collection, files_done, files_total)
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class AfterCommit:
    """What a queued write of the record lane reports, run once its batch committed (in
    queue order): counts come from what the write found at its commit — a change another
    sync made first is not this sync's — and never from a batch that was rolled back."""

    report: Callable[[], None]


@dataclass
class CollectionTally:
    collection: str
    processed: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    errored: int = 0
    skipped: int = 0
    inactivated: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    # (relPath, "added" | "updated" | "removed") of the first CHANGES_KEPT documents this
    # sync changed; the resident server turns them into document-changed events.
    changes: list[tuple[str, str]] = field(default_factory=list)
    # fileSyncResult of each export container imported (with its recordImport), at most
    # FILES_KEPT: the record lane's report (services/record_import_report.py)
    files: list[dict[str, Any]] = field(default_factory=list)

    def changed(self, rel_path: str, kind: str) -> None:
        if len(self.changes) < CHANGES_KEPT:
            self.changes.append((rel_path, kind))

    def file(self, result: dict[str, Any]) -> None:
        if len(self.files) < FILES_KEPT:
            self.files.append(result)

    def as_dict(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            "filesProcessed": self.processed,
            "filesAdded": self.added,
            "filesUpdated": self.updated,
            "filesUnchanged": self.unchanged,
            "filesErrored": self.errored,
            "filesSkipped": self.skipped,
            "filesMarkedInactive": self.inactivated,
            "durationMs": round((time.perf_counter() - self.started) * 1000),
            "errors": self.errors,
            **({"files": self.files} if self.files else {}),
        }
