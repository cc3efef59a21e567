"""Snippets: the best-matching lines of a mirror, with their line span. Pure.

Terms are looked for in the mirror as FTS5 indexed it: invisible characters (core/invisible)
dropped, so "hy<U+00AD>phen<U+00AD>ation", which the search found, is matched and marked as
the word it is, soft hyphens included.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache
from typing import AnyStr

from gno.core.invisible import (
    ASCII_INVISIBLE_CLASS,
    INVISIBLE_CLASS,
    drop_invisible,
    invisible_spans,
)

SNIPPET_TARGET_CHARS = 300
SNIPPET_MAX_LINES = 8
MAX_HITS_PER_TERM = 4  # the first few occurrences find where terms meet; cheap on long documents


@dataclass(frozen=True)
class Snippet:
    """A hit's snippet: its text and the mirror lines it spans."""

    text: str
    start_line: int
    end_line: int


def _stems(terms: tuple[str, ...]) -> list[str]:
    # A cheap stand-in for the porter stem: "sampling" -> "sampl" also finds "samples".
    return [t[: max(4, len(t) - 3)] if len(t) > 5 else t for t in terms]


def _best_offset(mirror: str, stems: list[str], start_offset: int) -> int | None:
    """Offset of the first occurrence on the line holding the most distinct query stems."""
    if mirror.isascii() or "\u212a" in mirror or not all(s.isascii() for s in stems):
        lowered = mirror.lower()
        if len(lowered) != len(mirror):  # a few characters change length when lowered
            return None
        return _first_on_best_line(lowered, mirror, stems, start_offset, "\n")
    if "\u0130" in mirror:  # İ, the one character whose lowercase is longer
        return None
    # ASCII stems in a text with wider characters: str.lower() walks the Unicode tables for
    # every character, bytes.lower() of the UTF-8 only maps A-Z. Both find the same matches:
    # an ASCII byte never occurs inside a multi-byte character, and no other character
    # lowercases to ASCII (U+212A, the Kelvin sign, does: that text takes the path above).
    data = mirror.encode("utf-8", "surrogatepass")
    start = len(mirror[:start_offset].encode("utf-8", "surrogatepass"))
    found = _first_on_best_line(data.lower(), data, [s.encode() for s in stems], start, b"\n")
    return None if found is None else len(data[:found].decode("utf-8", "surrogatepass"))


def _first_on_best_line(
    lowered: AnyStr, text: AnyStr, stems: list[AnyStr], start_offset: int, newline: AnyStr
) -> int | None:
    hits: list[tuple[int, int]] = []  # (offset, stem index)
    for k, stem in enumerate(stems):
        pos, seen = lowered.find(stem, start_offset), 0
        while pos >= 0 and seen < MAX_HITS_PER_TERM:
            hits.append((pos, k))
            pos, seen = lowered.find(stem, pos + len(stem)), seen + 1
    if not hits:
        return None
    hits.sort()
    best, best_count, line_end = None, 0, -1
    stems_on_line: set[int] = set()
    for pos, k in hits:
        if pos > line_end:  # a new line starts
            line_end = text.find(newline, pos)
            line_start, stems_on_line = pos, set()
        stems_on_line.add(k)
        if len(stems_on_line) > best_count:
            best, best_count = line_start, len(stems_on_line)
    return best


def _visible_best_offset(mirror: str, stems: list[str], start_offset: int) -> int | None:
    """``_best_offset`` in the mirror as FTS5 indexed it (invisible characters dropped), as
    an offset in ``mirror``. A word break (U+200B, U+200C) is no part of a stem: it stays."""
    spans = invisible_spans(mirror)
    if not spans:
        return _best_offset(mirror, stems, start_offset)
    # Each removed run: its offset in the visible text, and the characters removed up to its
    # end. One pass over the runs, then a bisect.
    pieces: list[str] = []
    cut_at: list[int] = []
    removed: list[int] = []
    kept_from = gone = 0
    visible_start = start_offset  # less what was removed before it
    for start, end in spans:
        pieces.append(mirror[kept_from:start])
        if start < start_offset:
            visible_start = start_offset - gone - (min(end, start_offset) - start)
        cut_at.append(start - gone)
        gone += end - start
        removed.append(gone)
        kept_from = end
    pieces.append(mirror[kept_from:])
    found = _best_offset("".join(pieces), stems, visible_start)
    if found is None:
        return None
    runs_before = bisect_right(cut_at, found)
    return found + (removed[runs_before - 1] if runs_before else 0)


def best_snippet(
    mirror: str, terms: tuple[str, ...], body_start_line: int = 1, body_start_offset: int = 0
) -> Snippet:
    """A few whole lines around the best match (never inside the frontmatter)."""
    if mirror == "\n":
        return Snippet("", 1, 1)
    found = _visible_best_offset(mirror, _stems(terms), body_start_offset) if terms else None
    start = mirror.rfind("\n", 0, found) + 1 if found is not None else body_start_offset
    if start >= len(mirror):  # the frontmatter is the whole document
        start = 0
    while mirror.startswith("\n", start) and start + 1 < len(mirror):  # skip blank lines
        start += 1
    line_no = mirror.count("\n", 0, start) + 1
    lines: list[str] = []
    pos, size = start, 0
    while pos < len(mirror) and size < SNIPPET_TARGET_CHARS and len(lines) < SNIPPET_MAX_LINES:
        end = mirror.find("\n", pos)
        lines.append(mirror[pos:end])
        size += end - pos + 1
        pos = end + 1
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()
    return Snippet("\n".join(lines), line_no, line_no + len(lines) - 1)


# A word as FTS5 read it: its word characters (core/fts_tokens) and the invisible characters
# dropped from between them. One character class: linear, nothing to backtrack.
_ASCII_WORD = re.compile(f"[A-Za-z0-9{ASCII_INVISIBLE_CLASS}]+")


@cache
def _word() -> re.Pattern[str]:
    from gno.core.fts_tokens import WORD_CHARS

    return re.compile(f"[{WORD_CHARS}{INVISIBLE_CLASS}]+")


def mark_terms(text: str, terms: tuple[str, ...]) -> str:
    """``text`` with each word that a query term (or its stem, as the snippet search
    uses) begins wrapped in ``<mark>…</mark>``: GNO's REST search snippets. A word is
    split as FTS5 split it, invisible characters inside it included. One pass over
    the words; the text is not otherwise changed (no HTML escaping, as GNO's FTS5
    ``snippet()`` output)."""
    stems = tuple(stem.lower() for stem in _stems(terms) if stem)
    if not stems or not text:
        return text
    out: list[str] = []
    last = 0
    for m in (_ASCII_WORD if text.isascii() else _word()).finditer(text):
        if drop_invisible(m.group(0)).lower().startswith(stems):
            out += [text[last : m.start()], "<mark>", m.group(0), "</mark>"]
            last = m.end()
    out.append(text[last:])
    return "".join(out)
