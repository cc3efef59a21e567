"""Snippets: the best-matching lines of a mirror, with their line span. Pure.

Terms are looked for in the mirror as FTS5 indexed it: invisible characters (core/invisible)
dropped, so "hy<U+00AD>phen<U+00AD>ation", which the search found, is matched and marked as
the word it is, soft hyphens included; and compared as FTS5 compares words, case and
diacritics folded from its own table (gno.core.fts.fold): "naive" finds "Naïve", and the
"nai<U+00AD><U+0308>ve" FTS5 indexed as "naive" too.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache

from gno.core.fts import fold, fold_characters, word_spans
from gno.core.invisible import invisible_spans

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
    """Each term as FTS5 compares it (``fold``: case and diacritics), cut to a cheap stand-in
    for the porter stem: "sampling" -> "sampl" also finds "samples"."""
    folded = [f for f in map(fold, terms) if f]
    return [t[: max(4, len(t) - 3)] if len(t) > 5 else t for t in folded]


def _first_on_best_line(folded: str, stems: list[str], start_offset: int) -> int | None:
    """Offset of the first occurrence on the line holding the most distinct query stems."""
    hits: list[tuple[int, int]] = []  # (offset, stem index)
    for k, stem in enumerate(stems):
        pos, seen = folded.find(stem, start_offset), 0
        while pos >= 0 and seen < MAX_HITS_PER_TERM:
            hits.append((pos, k))
            pos, seen = folded.find(stem, pos + len(stem)), seen + 1
    if not hits:
        return None
    hits.sort()
    best, best_count, line_end = None, 0, -1
    stems_on_line: set[int] = set()
    for pos, k in hits:
        if pos > line_end:  # a new line starts
            line_end = folded.find("\n", pos)
            line_start, stems_on_line = pos, set()
        stems_on_line.add(k)
        if len(stems_on_line) > best_count:
            best, best_count = line_start, len(stems_on_line)
    return best


def _unseen_spans(mirror: str) -> list[tuple[int, int]]:
    """The runs FTS5 never saw in ``mirror``: invisible characters (core/invisible) and, in
    text that is not ASCII, the diacritics FTS5 folds to nothing (a combining mark that a
    soft hyphen kept from composing: "nai<U+00AD><U+0308>ve" was indexed as "naive")."""
    spans = invisible_spans(mirror)
    if mirror.isascii():
        return spans
    marks = [m.span() for m in _dropped_marks().finditer(mirror)]
    return sorted(spans + marks) if marks and spans else spans or marks


@cache
def _dropped_marks() -> re.Pattern[str]:
    from gno.core.fts_tokens import FOLD_DROP

    return re.compile(f"[{FOLD_DROP}]+")


def _visible_best_offset(mirror: str, stems: list[str], start_offset: int) -> int | None:
    """Offset of the first match on the line holding the most distinct query stems, found in
    the mirror as FTS5 indexed it (``_unseen_spans`` removed, each character folded as FTS5
    folds it: ``fold``, one character for one), as an offset in ``mirror``. A word break
    (U+200B, U+200C) is no part of a stem: it stays."""
    spans = _unseen_spans(mirror)
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
    visible = "".join(pieces)
    # fold() but for NFC, which would move offsets: the marks it composes are gone already.
    folded = visible.lower() if visible.isascii() else fold_characters(visible)
    found = _first_on_best_line(folded, stems, visible_start)
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


def mark_terms(text: str, terms: tuple[str, ...]) -> str:
    """``text`` with each word that a query term (or its stem, as the snippet search
    uses) begins wrapped in ``<mark>…</mark>``: GNO's REST search snippets. A word is
    split as FTS5 split it, invisible characters inside it included, and compared as FTS5
    compares it (``fold``: "naive" marks "Naïve"). One pass over
    the words; the text is not otherwise changed (no HTML escaping, as GNO's FTS5
    ``snippet()`` output)."""
    stems = tuple(_stems(terms))
    if not stems or not text:
        return text
    out: list[str] = []
    last = 0
    for m in word_spans(text):
        if fold(m.group(0)).startswith(stems):
            out += [text[last : m.start()], "<mark>", m.group(0), "</mark>"]
            last = m.end()
    out.append(text[last:])
    return "".join(out)
