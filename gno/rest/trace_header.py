"""Retrieval traces on REST (spec/traces.md): whether a read is traced, and the
``X-GNO-Trace-ID`` header that links a later ``GET /api/doc`` to its trace.

Whether tracing is on is read from index.yml, parsed again only when the file changed,
so a traced route skips the result cache (every traced answer is a new trace) without a
YAML parse per request.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request

from gno.core.traces import OFF, TracePolicy, parse_policy
from gno.errors import GnoError, ValidationError
from gno.services.trace_surface import MAX_HEADER_ID, TRACED_OPERATIONS

_lock = threading.Lock()
_cached: dict[str, tuple[tuple[int, int, int], TracePolicy]] = {}


@dataclass
class TraceNote:
    incoming: str | None  # X-GNO-Trace-ID sent with GET /api/doc
    recorded: str | None = None  # the trace id the worker recorded, for the answer header


def tracing_policy(config_file: Path) -> TracePolicy:
    from gno.config import load_config

    try:
        st = os.stat(config_file)
    except OSError:
        return OFF
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    key = str(config_file)
    with _lock:
        hit = _cached.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
    try:
        policy = parse_policy(load_config(config_file).raw.get("retrievalTraces"))
    except (GnoError, OSError):
        policy = OFF  # the handler reports a broken config itself
    with _lock:
        _cached[key] = (stamp, policy)
    return policy


def trace_note(op_id: str, request: Request, config_file: Path) -> TraceNote | None:
    """A note for a traced read while tracing is on, else None (no trace work at all)."""
    if op_id not in TRACED_OPERATIONS or not tracing_policy(config_file).enabled:
        return None
    incoming = request.headers.get("x-gno-trace-id") if op_id == "get" else None
    if incoming is not None and not (
        1 <= len(incoming) <= MAX_HEADER_ID and incoming.isascii() and incoming.isprintable()
    ):
        raise ValidationError("Invalid X-GNO-Trace-ID header")
    return TraceNote(incoming or None)
