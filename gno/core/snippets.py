"""Snippets: the best-matching lines of a mirror, with their line span. Pure.

Terms are looked for in the mirror as FTS5 indexed it: invisible characters (core/invisible)
dropped, so "hy<U+00AD>phen<U+00AD>ation", which the search found, is matched and marked as
the word it is, soft hyphens included; and compared as FTS5 compares words, case and
diacritics folded from its own table (gno.core.fts.fold): "naive" finds "Naïve", and the
"nai<U+00AD><U+0308>ve" FTS5 indexed as "naive" too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import islice

from gno.core.fts import fold, word_spans
from gno.core.invisible import ASCII_INVISIBLE_CLASS, INVISIBLE_CLASS

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


@cache
def _folded_from() -> dict[str, str]:
    """Each character FTS5 folds another to, and those it folds to it: "e" <- "EÉéÈ…"."""
    from gno.core.fts_tokens import FOLD_FROM, FOLD_TO

    sources: dict[str, str] = {}
    for source, folded in zip(FOLD_FROM, FOLD_TO, strict=True):
        sources[folded] = sources.get(folded, "") + source
    return sources


@lru_cache(maxsize=256)
def _stem_pattern(stem: str, ascii_text: bool) -> re.Pattern[str] | None:
    """``stem`` (folded) as it may be written in a mirror, None if it cannot be. Folding a
    whole mirror (up to ~100 MB) for every result cost four times the search: the mirror
    stays as it is, and each character of the stem is a class of itself (a folded character
    folds to itself) and of all FTS5 folds to it; between two of them, any run FTS5 never
    saw: invisible characters (core/invisible) and the diacritics FTS5 folds to nothing
    ("nai<SHY><U+0308>ve" was indexed as "naive"). No character is in both a class and a
    run, and the runs are possessive: each match is tried once, nothing to backtrack.

    ASCII text is lowered first (there FTS5 folds A-Z only, and no diacritics): the stem's
    characters are literals then, which sre skips to as fast as ``str.find``, and the
    pattern compiles in microseconds, not the ~3 ms of the classes."""
    if ascii_text:
        if not stem.isascii():  # nothing in ASCII folds to anything else
            return None
        return re.compile(f"[{ASCII_INVISIBLE_CLASS}]*+".join(map(re.escape, stem)))
    from gno.core.fts_tokens import FOLD_DROP

    sources = _folded_from()
    unseen = f"[{INVISIBLE_CLASS}{FOLD_DROP}]*+"
    return re.compile(
        unseen.join(
            f"[{re.escape(c + sources[c])}]" if c in sources else re.escape(c) for c in stem
        )
    )


def _visible_best_offset(mirror: str, stems: list[str], start_offset: int) -> int | None:
    """Offset in ``mirror`` of the first match on the line holding the most distinct query
    stems, a match being a stem as FTS5 would find it there (``_stem_pattern``). A word
    break (U+200B, U+200C) is no part of a stem."""
    ascii_text = mirror.isascii()
    text = mirror.lower() if ascii_text else mirror  # as long as mirror: the same offsets
    hits: list[tuple[int, int]] = []  # (offset, stem index)
    for k, stem in enumerate(stems):
        if pattern := _stem_pattern(stem, ascii_text):
            matches = pattern.finditer(text, start_offset)
            hits += [(m.start(), k) for m in islice(matches, MAX_HITS_PER_TERM)]
    if not hits:
        return None
    hits.sort()
    best, best_count, line_end = None, 0, -1
    stems_on_line: set[int] = set()
    for pos, k in hits:
        if pos > line_end:  # a new line starts
            line_end = mirror.find("\n", pos)
            line_start, stems_on_line = pos, set()
        stems_on_line.add(k)
        if len(stems_on_line) > best_count:
            best, best_count = line_start, len(stems_on_line)
    return best


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
