"""The collections a retrieval trace names: its egress lineage (spec/traces.md, spec/egress.md).

A trace holds document identities — ranked hits, Capsule evidence, opened spans, judgment
targets — never their text. Showing or exporting traces to a caller off this machine is
judged, as GNO does, against the policies of the collections those identities belong to.
A name can outlive its collection: a trace begun before the collection now called so came
into the configuration names an earlier one, whose policy left with it; those names are
judged as a collection nobody classified (``local_only``), never by the newcomer's policy.
When the collections cannot be told for certain (an unknown or expired trace, no trace file, a
judgment naming a document by docid, a trace with no document at all) the answer is None
and the caller judges every collection instead: never less strict.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_TRACES = 1_000  # an export's own bound (spec/traces.md)
MAX_ROWS = 100_000  # maxRecordsPerTrace's largest value
REFERENCE_KEYS = ("uri", "targetRef")


@dataclass(frozen=True)
class TraceLineage:
    names: list[str]  # the collections the traces' documents belong to, sorted
    earlier: frozenset[str]  # of those, names a later collection has taken since


def _ids(op_id: str, args: Mapping[str, Any]) -> list[str] | None:
    if op_id == "trace_show":
        one = args.get("traceId")
        return [one] if isinstance(one, str) else None
    if op_id == "trace_export":
        many = args.get("traceIds")
        if isinstance(many, list) and 0 < len(many) <= MAX_TRACES:
            return [t for t in many if isinstance(t, str)] or None
    return None


def _collect(value: Any, names: set[str]) -> bool:
    """Add the collection of every document reference in ``value``; False when one names
    its document in a way that does not say its collection."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in REFERENCE_KEYS and isinstance(item, str):
                if not item.startswith("gno://"):
                    return False
                names.add(item.removeprefix("gno://").split("/", 1)[0])
            elif not _collect(item, names):
                return False
    elif isinstance(value, list):
        return all(_collect(item, names) for item in value)
    return True


def trace_collections(
    db_path: Path,
    op_id: str,
    args: Mapping[str, Any],
    arrivals: Callable[[], Mapping[str, int]],
) -> TraceLineage | None:
    """The collections the traces a ``trace_show``/``trace_export`` request names hold
    documents of, or None (judge every collection). ``arrivals``: when each configured
    name came into the configuration (Unix ms)."""
    ids = _ids(op_id, args)
    if not ids:
        return None
    from gno.adapters.sqlite.trace_db import TraceDb, trace_db_path

    path = trace_db_path(db_path)
    if not path.is_file():
        return None
    arrived = arrivals()
    db = TraceDb.open(path)
    try:
        now = int(time.time() * 1000)
        names: set[str] = set()
        earlier: set[str] = set()
        for trace_id in dict.fromkeys(ids):
            trace = db.trace_row(trace_id, now)
            if trace is None:
                return None
            of_trace: set[str] = set()
            for kind in ("runs", "events", "judgments"):
                rows, _ = db.trace_rows(trace_id, kind, MAX_ROWS)
                if not _collect(rows, of_trace):
                    return None
            # A name that arrived at or after the trace began may be another collection's
            # there; the same millisecond counts too (strictness is the safe side).
            began = int(trace.get("createdAtMs") or 0)
            earlier |= {n for n in of_trace if arrived.get(n, -1) >= began}
            names |= of_trace
    finally:
        db.close()
    return TraceLineage(sorted(names), frozenset(earlier)) if names else None
