"""Retrieval traces: the pure parts (spec/traces.md).

The ``retrievalTraces`` setting of index.yml and its bounds, trace ids and list
cursors, digests and text shapes (what a ``metadata`` trace keeps instead of the
query), the filter record of each redaction mode, and the ranking metrics replay
compares. No I/O: the adapter stores rows, the services decide what to record.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from gno.core.fts import fts_words
from gno.errors import ConfigError, ValidationError

SCHEMA_VERSION = "1.0"
REDACTION_MODES = ("metadata", "replay")
LABELS = ("relevant", "irrelevant", "missing_expected")
TERMINAL = ("completed", "partial", "failed", "cancelled")

# GNO's defaults (engine.md §1.3); a configured value may lower them, never raise them
# past the ceilings (a trace store must stay small next to the index it describes).
DEFAULT_MAX_AGE_DAYS = 30
DEFAULT_MAX_TRACES = 1000
DEFAULT_MAX_RECORDS = 10_000
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
CEILING_MAX_AGE_DAYS = 3650
CEILING_MAX_TRACES = 100_000
CEILING_MAX_RECORDS = 100_000
CEILING_MAX_BYTES = 256 * 1024 * 1024
MAX_PAYLOAD_BYTES = 64 * 1024  # one run, event or judgment target, as canonical JSON
MAX_TEXT_CHARS = 8192  # query or goal text kept by a replay trace
DAY_MS = 86_400_000

TRACE_ID_RE = re.compile(r"^trc_[0-9a-f]{32}$")
EXPORT_ID_RE = re.compile(r"^exp_[0-9a-f]{32}$")
CURSOR_PREFIX = "gno-trace-v1."
MAX_CURSOR = 512
_CURSOR_RE = re.compile(r"^gno-trace-v1\.([0-9a-f]{8})\.([0-9]{1,15})\.(trc_[0-9a-f]{32})$")


@dataclass(frozen=True)
class TracePolicy:
    """What ``retrievalTraces`` in index.yml says; ``enabled`` False when absent."""

    enabled: bool = False
    redaction_mode: str = "metadata"
    max_age_days: int = DEFAULT_MAX_AGE_DAYS
    max_traces: int = DEFAULT_MAX_TRACES
    max_records_per_trace: int = DEFAULT_MAX_RECORDS
    max_bytes: int = DEFAULT_MAX_BYTES

    def to_json(self) -> str:
        return json.dumps(
            {
                "enabled": self.enabled,
                "redactionMode": self.redaction_mode,
                "retention": {
                    "maxAgeDays": self.max_age_days,
                    "maxTraces": self.max_traces,
                    "maxRecordsPerTrace": self.max_records_per_trace,
                    "maxBytes": self.max_bytes,
                },
            },
            separators=(",", ":"),
        )


OFF = TracePolicy()


def _bounded(value: Any, name: str, default: int, ceiling: int) -> int:
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= ceiling:
        raise ConfigError(f"retrievalTraces.retention.{name} must be an integer 1-{ceiling}")
    return value


def parse_policy(raw: Any) -> TracePolicy:
    """``retrievalTraces`` of index.yml → policy; absent or ``enabled: false`` = off."""
    if raw is None:
        return OFF
    if not isinstance(raw, dict):
        raise ConfigError("retrievalTraces must be a mapping")
    enabled = raw.get("enabled", False)
    if not isinstance(enabled, bool):
        raise ConfigError("retrievalTraces.enabled must be true or false")
    mode = raw.get("redactionMode", "metadata")
    if mode not in REDACTION_MODES:
        raise ConfigError("retrievalTraces.redactionMode must be metadata or replay")
    retention = raw.get("retention") or {}
    if not isinstance(retention, dict):
        raise ConfigError("retrievalTraces.retention must be a mapping")
    return TracePolicy(
        enabled=enabled,
        redaction_mode=mode,
        max_age_days=_bounded(
            retention.get("maxAgeDays"), "maxAgeDays", DEFAULT_MAX_AGE_DAYS, CEILING_MAX_AGE_DAYS
        ),
        max_traces=_bounded(
            retention.get("maxTraces"), "maxTraces", DEFAULT_MAX_TRACES, CEILING_MAX_TRACES
        ),
        max_records_per_trace=_bounded(
            retention.get("maxRecordsPerTrace"),
            "maxRecordsPerTrace",
            DEFAULT_MAX_RECORDS,
            CEILING_MAX_RECORDS,
        ),
        max_bytes=_bounded(
            retention.get("maxBytes"), "maxBytes", DEFAULT_MAX_BYTES, CEILING_MAX_BYTES
        ),
    )


def policy_from_json(text: str | None) -> TracePolicy:
    """The policy as mirrored into the index (``schema_meta``); unreadable = off."""
    if not text:
        return OFF
    try:
        return parse_policy(json.loads(text))
    except (ValueError, ConfigError):
        return OFF


# ------------------------------------------------------------------ digests and shapes


def canonical(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept (digests and byte sizes)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def digest(value: Any) -> str:
    return sha256_text(canonical(value))


def byte_size(value: Any) -> int:
    return len(canonical(value).encode("utf-8", "surrogatepass"))


def text_shape(text: str | None) -> dict[str, int]:
    """What a metadata trace keeps of a text: its length and how many words it has, as search
    counts them (FTS5's words, gno.core.fts: "q\u0301x" is one, "snake_case" two)."""
    if not text:
        return {"characters": 0, "terms": 0}
    return {"characters": len(text), "terms": len(fts_words(text))}


def _value_shape(value: Any) -> dict[str, Any]:
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, (int, float)):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, list):
        kinds = sorted({_value_shape(v)["type"] for v in value})
        return {"type": "array", "count": len(value), "itemTypes": kinds}
    return {"type": "object"}


def metadata_filters(filters: dict[str, Any]) -> dict[str, Any]:
    """A metadata trace's filters: which were set and their types, never their values."""
    return {
        "shape": {
            "type": "object",
            "fields": {k: _value_shape(v) for k, v in sorted(filters.items())},
        }
    }


# ------------------------------------------------------------------ cursors


def index_tag(index_fingerprint: str) -> str:
    return index_fingerprint[:8]


def encode_cursor(index_fingerprint: str, seq: int, trace_id: str) -> str:
    return f"{CURSOR_PREFIX}{index_tag(index_fingerprint)}.{seq}.{trace_id}"


def decode_cursor(cursor: str, index_fingerprint: str) -> int:
    """The position (a trace's ``seq``) after which the next page starts. A cursor of
    another index, or anything that is not one, is VALIDATION (no value echoed)."""
    match = _CURSOR_RE.match(cursor) if len(cursor) <= MAX_CURSOR else None
    if match is None or match.group(1) != index_tag(index_fingerprint):
        raise ValidationError("Invalid trace cursor")
    return int(match.group(2))


# ------------------------------------------------------------------ replay metrics


def ranking_metrics(ranked: list[str], relevant: set[str], k: int) -> dict[str, float]:
    """precision, recall, F1, MRR and binary nDCG at ``k`` of a ranked docid list."""
    top = ranked[:k]
    hits = [i for i, docid in enumerate(top) if docid in relevant]
    precision = len(hits) / k if k else 0.0
    recall = len(hits) / len(relevant) if relevant else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    first = next((i for i, docid in enumerate(ranked) if docid in relevant), None)
    mrr = 1.0 / (first + 1) if first is not None else 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i in hits)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return {
        "precisionAtK": round(precision, 6),
        "recallAtK": round(recall, 6),
        "f1AtK": round(f1, 6),
        "mrr": round(mrr, 6),
        "ndcgAtK": round(dcg / ideal, 6) if ideal else 0.0,
    }


def compare(baseline: dict[str, float], candidate: dict[str, float]) -> str:
    """improved | regressed | unchanged, by nDCG first, then MRR, then recall."""
    for key in ("ndcgAtK", "mrr", "recallAtK"):
        if candidate[key] > baseline[key] + 1e-9:
            return "improved"
        if candidate[key] < baseline[key] - 1e-9:
            return "regressed"
    return "unchanged"
