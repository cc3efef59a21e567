"""Context Capsule identity (engine.md §6.1 steps 1, 9, 10): goal normalization,
canonical JSON, ids, and the fixed-point ``usedBytes``. Pure; no I/O.

Canonical JSON is GNO's: object keys sorted by UTF-16 code unit at every level, no
whitespace, non-ASCII kept as is, NaN/Infinity refused. ``capsuleId`` is the SHA-256 of
the canonical payload without ``capsuleId`` and without ``budget.usedBytes`` /
``budget.usedTokens``; ``usedBytes`` is part of the measured JSON, so it is solved as a
fixed point (a number's digit count can move the total by one).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from typing import Any

MAX_FIXED_POINT = 32
_SPACES = re.compile(r"\s+")


def normalize_goal(text: str) -> str:
    """CRLF/CR -> LF, NFC, trimmed, whitespace runs collapsed to one space."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    return _SPACES.sub(" ", text).strip()


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value, key=_utf16_key)}
    if isinstance(value, list | tuple):
        return [_sorted(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)  # JSON.stringify(1.0) is "1"
    return value


def canonical_json(value: Any) -> str:
    """GNO's canonical JSON of ``value`` (ValueError on NaN/Infinity)."""
    return json.dumps(_sorted(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def passage_id(
    docid: str,
    uri: str,
    start: int | None,
    end: int | None,
    source_hash: str,
    mirror_hash: str,
    passage_hash: str | None,
) -> str:
    """Evidence id (and omission candidate id): SHA-256 of the fixed 7-key JSON."""
    shape = {
        "docid": docid,
        "endLine": end,
        "mirrorHash": mirror_hash,
        "passageHash": passage_hash,
        "sourceHash": source_hash,
        "startLine": start,
        "uri": uri,
    }
    return sha256_text(json.dumps(shape, ensure_ascii=False, separators=(",", ":")))


def context_id(scope_type: str, scope_key: str, text: str) -> str:
    return sha256_text(
        canonical_json({"scopeKey": scope_key, "scopeType": scope_type, "text": text})
    )


def capsule_id(payload: dict[str, Any]) -> str:
    """Identity of a Capsule payload: its canonical JSON without the id and the used counters."""
    bare = {k: v for k, v in payload.items() if k != "capsuleId"}
    bare["budget"] = {
        k: v for k, v in payload["budget"].items() if k not in ("usedBytes", "usedTokens")
    }
    return sha256_text(canonical_json(bare))


def seal(payload: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Set ``capsuleId`` and the fixed-point used counters (tokens = bytes: the conservative
    estimator); returns the payload and its canonical JSON."""
    payload["capsuleId"] = capsule_id(payload)
    used = 0
    for _ in range(MAX_FIXED_POINT):
        payload["budget"]["usedBytes"] = used
        payload["budget"]["usedTokens"] = max(used, 1)
        text = canonical_json(payload)
        measured = utf8_len(text)
        if measured == used:
            return payload, text
        used = measured
    raise RuntimeError("usedBytes did not reach a fixed point")  # digit counts converge in 2-3


def verify_identity(payload: dict[str, Any]) -> bool:
    """Whether a saved Capsule's ``capsuleId`` and used counters match its content."""
    try:
        if capsule_id(payload) != payload.get("capsuleId"):
            return False
        used = payload["budget"]["usedBytes"]
        return bool(utf8_len(canonical_json(payload)) == used)
    except (KeyError, TypeError, ValueError, AttributeError):
        return False
