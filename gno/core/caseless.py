"""Caseless text matching for the owner filters (``author``, ``exclude``), the same in
Python and in SQL.

SQLite's own ``lower()`` folds ASCII only: ``instr(lower('ÉCOLE'), 'école')`` is 0, so a
filter written with accented capitals, or typed decomposed (NFD) against the NFC mirror,
silently matched nothing. The store registers these functions on its connection
(``gno_fold``, ``gno_mentions``); the filter's own words go through ``fold`` in Python.
"""

from __future__ import annotations

import json
import unicodedata
from functools import lru_cache


def fold(text: str | None) -> str | None:
    """NFC, then Unicode case folding (``ß`` = ``ss``); ASCII is just lowercased."""
    if text is None:
        return None
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFC", text).casefold()


@lru_cache(maxsize=16)
def _terms(terms_json: str) -> tuple[str, ...]:
    return tuple(json.loads(terms_json))


def mentions_any(text: str | None, terms_json: str) -> int:
    """1 when ``text``, folded once, contains any of the (already folded) terms of the
    JSON list ``terms_json``: one pass per document, whatever the number of terms."""
    hay = fold(text)
    return int(bool(hay) and any(term in hay for term in _terms(terms_json)))  # type: ignore[operator]
