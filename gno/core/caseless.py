"""Caseless text matching for the owner filters (``author``, ``exclude``), the same in
Python and in SQL.

SQLite's own ``lower()`` folds ASCII only: ``instr(lower('ÉCOLE'), 'école')`` is 0, so a
filter written with accented capitals, or typed decomposed (NFD) against the NFC mirror,
silently matched nothing. Invisible characters (core/invisible) are dropped first, as
search drops them: ``open<U+00AD>telemetry`` is the word ``opentelemetry``. The store
registers these functions on its connection (``gno_fold``, ``gno_mentions``); the
filter's own words go through ``fold`` in Python.
"""

from __future__ import annotations

import json
import unicodedata
from functools import lru_cache

from gno.core.invisible import drop_invisible


def fold(text: str | None) -> str | None:
    """Invisible characters dropped, NFC, then Unicode case folding (``ß`` = ``ss``);
    ASCII is just lowercased."""
    if text is None:
        return None
    text = drop_invisible(text)
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
