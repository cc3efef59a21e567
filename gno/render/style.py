"""Terminal text for people: control characters removed from indexed data, and the few
ANSI styles gno adds itself (matched terms, line numbers, hit headers) when colour is on.

Indexed data (titles, paths, snippets) is hostile: a control sequence in it must never
reach the terminal. ``terminal_safe`` removes what a terminal acts on; styled text is
built only from pieces that went through it, so the only escape sequences in the output
are the ones added here. Colour is off with ``--no-color``, ``NO_COLOR`` or a pipe.
"""

from __future__ import annotations

import re

# What a terminal acts on: C0 controls but TAB and LF (ESC starts every sequence, CR
# overwrites the line), DEL, and C1 (U+0080-U+009F; U+009B is a one-character CSI).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

MATCH = "\x1b[1;33m"  # bold yellow
LINE_NUMBER = "\x1b[2m"  # dim
HEADER = "\x1b[1;36m"  # bold cyan
RESET = "\x1b[0m"

# Highlighting bounds: the terms of one query, and their length.
MAX_TERMS = 32
MAX_TERM_CHARS = 64
_OPERATORS = ("AND", "OR", "NOT", "NEAR")


def terminal_safe(text: str) -> str:
    """``text`` without the control characters a terminal would interpret."""
    return _CONTROLS.sub("", text)


def paint(text: str, style: str, color: bool) -> str:
    """``text`` (made terminal-safe) in ``style`` when colour is on."""
    safe = terminal_safe(text)
    return f"{style}{safe}{RESET}" if color and safe else safe


def _stem(word: str) -> str:
    """A prefix that also finds the word's usual inflections (sampling: sample, sampled),
    as the index's stemmer matches them."""
    if len(word) >= 7:
        return word[:-3]
    if len(word) > 3 and word.endswith("s"):
        return word[:-1]
    return word


def term_stems(query: str) -> tuple[str, ...] | None:
    """Words of the query to highlight, as stems: not the excluded ones (``-word``), not
    the operators, at least two characters; None when nothing is left. Words are FTS5's,
    split and folded as search split and folded them (``gno.core.fts.fts_words``)."""
    from gno.core.fts import fts_words

    stems: list[str] = []
    for token in query.split():
        if token.startswith("-") or token in _OPERATORS:
            continue
        for word in fts_words(token):
            stem = _stem(word[:MAX_TERM_CHARS])
            if len(stem) >= 2 and stem not in stems:
                stems.append(stem)
    return tuple(stems[:MAX_TERMS]) or None


def highlight(text: str, stems: tuple[str, ...] | None, color: bool) -> str:
    """``text`` made terminal-safe, each word a stem begins styled when colour is on. A word
    is one FTS5 indexed, compared as FTS5 compares it (``gno.core.fts.word_spans``, ``fold``:
    "naive" styles "Naïve", a soft hyphen inside a word neither splits nor hides it)."""
    safe = terminal_safe(text)
    if not color or not stems:
        return safe
    from gno.core.fts import fold, word_spans

    out: list[str] = []
    last = 0
    for m in word_spans(safe):
        if fold(m.group()).startswith(stems):
            out += [safe[last : m.start()], MATCH, m.group(), RESET]
            last = m.end()
    out.append(safe[last:])
    return "".join(out)
