"""What one sync did to one collection: counts, errors, and the documents it changed."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

CHANGES_KEPT = 257  # per collection: enough to tell "up to 256 documents" from "more"

# progress(collection, files_done, files_total)
Progress = Callable[[str, int, int], None]


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

    def changed(self, rel_path: str, kind: str) -> None:
        if len(self.changes) < CHANGES_KEPT:
            self.changes.append((rel_path, kind))

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
        }
