"""The digest of a refactor plan: SHA-256 of its canonical JSON (GNO's rule, so a digest
computed by GNO or gno over the same plan agrees)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_json(value: Any) -> str:
    """Keys sorted by UTF-16 code units, no whitespace, non-ASCII kept (JSON.stringify's
    output with sorted keys), so a digest computed by GNO or gno agrees. Every key of a
    plan is an ASCII field name, where code-point order (``sort_keys``) is UTF-16 order;
    other keys take the exact (slower) path."""
    if _ascii_keys(value):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: kv[0].encode("utf-16-be"))
        inner = ",".join(f"{canonical_json(k)}:{canonical_json(v)}" for k, v in items)
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _ascii_keys(value: Any) -> bool:
    if isinstance(value, dict):
        return all(k.isascii() and _ascii_keys(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_ascii_keys(v) for v in value)
    return True


def plan_digest(plan: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of every top-level field but ``planDigest``."""
    body = {k: v for k, v in plan.items() if k != "planDigest" and v is not None}
    return sha256_bytes(canonical_json(body).encode("utf-8"))
