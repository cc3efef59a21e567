"""An edit made on a normalized copy of a text, applied to the text's own lines.

A YAML round trip (``gno.config_rewrite``) rewrites more than the entry it changes: it
drops ``---``, joins a plain scalar written on two lines, collapses ``key:   value``,
writes CRLF lines with LF. So the change is taken as a line diff between two dumps of the
same tree, ``baseline`` (before the edit) and ``changed`` (after it), and applied to the
original lines the baseline stands for (the same line, or one of a run it rewrote line for
line): every other line keeps its bytes, line ending included. An edit touching lines the
baseline joined or dropped has no place in the original: None, and the caller keeps the
plain round trip.
"""

from __future__ import annotations

from difflib import SequenceMatcher


def _bare(line: str) -> str:
    return line.rstrip("\r\n")


def spliced(original: str, baseline: str, changed: str) -> str | None:
    """``original`` with the lines that differ between ``baseline`` and ``changed``
    replaced, or None when an edit falls on lines the baseline rewrote."""
    orig = original.splitlines(keepends=True)
    base = baseline.splitlines(keepends=True)
    new = changed.splitlines(keepends=True)
    newline = "\r\n" if orig and orig[0].endswith("\r\n") else "\n"
    unended = bool(orig) and not orig[-1].endswith("\n")  # a last line without its newline
    if unended:
        orig[-1] += newline  # for a line inserted after it; taken off again below
    same = SequenceMatcher(None, [_bare(x) for x in orig], [_bare(x) for x in base], False)
    place: dict[int, int] = {}  # baseline line -> the original line it reproduces
    for tag, i1, i2, j1, j2 in same.get_opcodes():
        # a run rewritten line for line (``key:   value`` as ``key: value``) still stands
        # for the same lines: an edit there replaces them, the others stay as they are
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            place.update(zip(range(j1, j2), range(i1, i2), strict=True))
    out: list[str] = []
    copied = 0  # original lines before this one are in ``out`` (or replaced)
    for tag, j1, j2, k1, k2 in SequenceMatcher(None, base, new, False).get_opcodes():
        if tag == "equal":
            continue
        if j1 < j2:  # baseline lines j1..j2 replaced or deleted: one run of original lines
            lines = [place.get(j) for j in range(j1, j2)]
            first = lines[0]
            if first is None or lines != list(range(first, first + len(lines))):
                return None
            start, end = first, first + len(lines)
        elif j1 > 0 and j1 - 1 in place:  # inserted after a line the original has
            start = end = place[j1 - 1] + 1
        elif j1 == 0 and 0 in place:
            start = end = place[0]
        else:
            return None
        if start < copied:
            return None
        out += orig[copied:start]
        out += [_bare(x) + newline for x in new[k1:k2]]
        copied = end
    out += orig[copied:]
    if unended and out and out[-1] is orig[-1]:
        out[-1] = _bare(out[-1])
    return "".join(out)
