"""One container's import in the record lane: what it saw, the caps, and what each record
comes to (spec/records.md).

``Import`` counts a container's records and characters against the caps of
``core/records`` and keeps its failures; ``plan_record`` turns one record into a
conversion job under its stable key (a repeated id gets ``#2``, ``#3`` …, the first
such suffix no other record of the container holds), unless its
content hash is the one indexed: then it needs nothing, or only to come back when it had
been inactivated. ``sync_records.RecordSync`` applies what this decides.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from gno.core.records import (
    MAX_METADATA_CHARS,
    MAX_RETAINED_FAILURES,
    MAX_SNAPSHOT_CHARS,
    MAX_SNAPSHOT_RECORDS,
    Record,
    fitted_markdown,
    payload,
    record_key,
    unpaired,
    virtual_path,
)
from gno.ingest.pipeline import Job
from gno.ingest.record_lane import Adapter
from gno.ingest.walker import WalkEntry
from gno.ports import CORRUPT, TOO_LARGE
from gno.rows import INGEST_VERSION
from gno.sync_rows import DocState


@dataclass
class Import:
    """One container's import: what it saw and what went wrong."""

    entry: WalkEntry
    adapter: Adapter
    mime: str
    started: float = field(default_factory=time.monotonic)
    seen: set[str] = field(default_factory=set)
    keys: dict[str, int] = field(default_factory=dict)  # stable id -> times seen
    taken: set[str] = field(default_factory=set)  # the stable ids given, suffixes included
    records: int = 0
    chars: int = 0
    failures: list[str] = field(default_factory=list)
    failed: int = 0
    stop: tuple[str, str] | None = None  # (code, reason) of a cap that ended the import
    states: dict[str, DocState] = field(default_factory=dict)  # the container's records
    # record-import@1.0 (services/record_import_report.py): what happened to each record
    counts: Counter[str] = field(default_factory=Counter)
    items: list[tuple[str, str, str]] = field(default_factory=list)  # (code, locator, reason)
    setup: bytes = b""  # the container fingerprint: in each record's content hash

    def fail(self, locator: str, reason: str, code: str = CORRUPT) -> None:
        self.failed += 1
        if len(self.failures) < MAX_RETAINED_FAILURES:
            self.failures.append(f"{locator}: {reason}"[:1000])
            self.items.append((code, locator, reason))

    @property
    def complete(self) -> bool:
        return not self.failed and self.stop is None


@dataclass(frozen=True)
class Reactivate:
    """A record whose content is indexed unchanged but inactive: it comes back."""

    rel_path: str
    state: DocState


RecordStep = tuple[Job, dict[str, Any]] | Reactivate | None


def plan_record(imp: Import, record: Record) -> RecordStep:
    """What one record of a container comes to: a conversion job (with its metadata
    payload), an unchanged record to bring back (``Reactivate``), or nothing (unchanged
    and active, or refused by a cap: ``imp`` records why)."""
    if imp.records >= MAX_SNAPSHOT_RECORDS:
        imp.stop = (TOO_LARGE, f"More than {MAX_SNAPSHOT_RECORDS:,} records; import stopped")
        return None
    record = unpaired(record)
    base = record.stable_id
    count = imp.keys.get(base, 0) + 1
    stable = base if count == 1 else f"{base}#{count}"  # a re-sent message...
    # A record's own id can be another's suffixed one ("a#2" beside "a" twice): both had
    # the same key, and one record overwrote the other in the index.
    while stable in imp.taken:
        count += 1
        stable = f"{base}#{count}"
    imp.keys[base] = count
    imp.taken.add(stable)
    adapter = imp.adapter
    key = record_key(adapter.id, stable)
    text, cut = fitted_markdown(record)
    if cut:  # kept, and said (an adapter's own cut of a body is reported the same way)
        imp.fail(record.locator, "Record cut at 2,000,000 characters", TOO_LARGE)
    info = payload(record, key, adapter.id, adapter.version, adapter.fingerprint)
    meta_text = json.dumps(info, separators=(",", ":"), sort_keys=True)
    if len(meta_text) > MAX_METADATA_CHARS:
        for name in ("references", "attachments", "participants", "categories", "dateFields"):
            info.pop(name, None)
        meta_text = json.dumps(info, separators=(",", ":"), sort_keys=True)
        if len(meta_text) > MAX_METADATA_CHARS:
            imp.fail(record.locator, "Record metadata is longer than 100,000 characters", TOO_LARGE)
            return None
    imp.chars += len(text)
    if imp.chars > MAX_SNAPSHOT_CHARS:
        imp.stop = (TOO_LARGE, "Records exceed 50,000,000 characters; import stopped")
        return None
    imp.records += 1
    rel = virtual_path(imp.entry.rel_path, key)
    imp.seen.add(rel)
    data = text.encode("utf-8")
    content_hash = hashlib.sha256(
        data + b"\0" + meta_text.encode("utf-8") + b"\0" + imp.setup
    ).hexdigest()
    state = imp.states.get(rel)
    if (
        state is not None
        and state.source_hash == content_hash
        and state.ingest_version == INGEST_VERSION
        and state.mirror_hash
        and state.error_code is None
    ):
        if not state.active:  # counted at its commit (services/record_commits.py)
            return Reactivate(rel, state)
        imp.counts["unchanged"] += 1
        return None
    job = Job(
        rel,
        imp.entry.abs_path,
        ".md",
        "text/markdown",
        data,
        content_hash,
        title=" ".join(record.title.split())[:500] or None,
        converter=(adapter.id, adapter.version),
    )
    return job, info
