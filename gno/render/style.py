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
_WORD = re.compile(r"\w+")


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


def term_pattern(query: str) -> re.Pattern[str] | None:
    """Words of the query to highlight: not the excluded ones (``-word``), not the
    operators, at least two characters; None when nothing is left."""
    words: list[str] = []
    for token in query.split():
        if token.startswith("-") or token in ("AND", "OR", "NOT", "NEAR"):
            continue
        for word in _WORD.findall(token):
            stem = _stem(word.lower()[:MAX_TERM_CHARS])
            if len(stem) >= 2 and stem not in words:
                words.append(stem)
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in sorted(words[:MAX_TERMS], key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\w*", re.IGNORECASE)


def highlight(text: str, pattern: re.Pattern[str] | None, color: bool) -> str:
    """``text`` made terminal-safe, its matched terms styled when colour is on."""
    safe = terminal_safe(text)
    if not color or pattern is None:
        return safe
    return pattern.sub(lambda m: f"{MATCH}{m.group()}{RESET}", safe)
