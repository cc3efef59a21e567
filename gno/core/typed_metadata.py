"""Typed frontmatter metadata (issue 17 item 3): each top-level frontmatter key with one
of four types — ``string``, ``number``, ``date``, ``list`` — as stored per document and
listed per collection by ``GET /api/metadata``.

Typing: a number (a YAML number, not a boolean, or a plain decimal string) is a number; a YAML date, or a string that is an
ISO-8601 date or date-time, is a date (stored as ISO-8601 UTC); a sequence is a list of
strings; everything else scalar is a string. Nested mappings (``relations``) are not
metadata. Keys are normalized like the rest of the frontmatter (camelCase → snake_case).
"""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import Any

from gno.core.frontmatter import normalize_key, parse_date

TYPES = ("string", "number", "date", "list")
MAX_KEYS = 64
MAX_KEY_CHARS = 128
MAX_VALUE_CHARS = 256
MAX_LIST_ITEMS = 32


def typed_value(value: Any) -> tuple[str, Any] | None:
    """(type, value) of one frontmatter value; None when it is not metadata."""
    if isinstance(value, bool):
        return "string", "true" if value else "false"
    if isinstance(value, (int, float)):
        return ("number", value) if math.isfinite(value) else None
    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return "date", parse_date(moment.isoformat())
    if isinstance(value, dt.date):
        return "date", parse_date(value.isoformat())
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if text[:4].isdigit() and (iso := parse_date(text)) is not None:
            return "date", iso
        if (number := _number(text)) is not None:
            return "number", number
        return "string", text[:MAX_VALUE_CHARS]
    if isinstance(value, list):
        items = [_item(v) for v in value[:MAX_LIST_ITEMS]]
        return "list", [i for i in items if i]
    return None


def _number(text: str) -> int | float | None:
    """A plain decimal (``3``, ``-1.5``): the frontmatter parser gives scalars as text.
    Not ``nan``, ``1e5``, ``0x1f`` or ``1_000`` — only sign, digits and one point."""
    body = text[1:] if text[:1] in "+-" else text
    whole, _, fraction = body.partition(".")
    if len(text) > 32 or not whole.isdigit() or (fraction and not fraction.isdigit()):
        return None
    if not whole.isascii() or not fraction.isascii():
        return None
    # "1." is a number (YAML reads it as 1.0); int() refused it and failed the whole note
    return float(text) if "." in body else int(text)


def _item(value: Any) -> str:
    if isinstance(value, (dict, list)) or value is None:
        return ""
    return str(value).strip()[:MAX_VALUE_CHARS]


def typed_metadata(data: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    out: dict[str, tuple[str, Any]] = {}
    for key, value in data.items():
        if len(out) >= MAX_KEYS:
            break
        name = normalize_key(str(key))[:MAX_KEY_CHARS]
        if not name or name in out:
            continue
        typed = typed_value(value)
        if typed is not None and typed[1] is not None:
            out[name] = typed
    return out


def dumps(metadata: dict[str, tuple[str, Any]]) -> str | None:
    if not metadata:
        return None
    return json.dumps({k: [t, v] for k, (t, v) in metadata.items()}, separators=(",", ":"))
