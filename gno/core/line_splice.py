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

# Past this many differing lines the diff treats lines repeated all over the text (blank
# lines, ``#----`` rulers) as junk: an exact diff of thousands of equal lines costs quadratic
# time (minutes for a 1 MiB index.yml); the splice stays right, at worst None.
EXACT_LINES = 2000

Opcode = tuple[str, int, int, int, int]


def _opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """``SequenceMatcher(None, a, b).get_opcodes()`` with the common head and tail taken off
    first (an edit leaves most of the file as it was), so only the middle is diffed."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    junk = max(len(mid_a), len(mid_b)) > EXACT_LINES
    ops: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, mid_a, mid_b, junk).get_opcodes():
        ops.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return ops


def _bare(line: str) -> str:
    return line.rstrip("\r\n")


def spliced(original: str, baseline: str, changed: str) -> str | None:
    """``original`` with the lines that differ between ``baseline`` and ``changed``
    replaced, or None when an edit falls on lines the baseline rewrote."""
    orig = original.splitlines(keepends=True)
    base = baseline.splitlines(keepends=True)
    new = changed.splitlines(keepends=True)
    top = orig[0] if orig else ""  # new lines end as the file's first line does
    newline = "\r\n" if top.endswith("\r\n") else "\r" if top.endswith("\r") else "\n"
    unended = bool(orig) and not orig[-1].endswith(("\n", "\r"))  # no newline at the end
    if unended:
        orig[-1] += newline  # for a line inserted after it; taken off again below
    place: dict[int, int] = {}  # baseline line -> the original line it reproduces
    for tag, i1, i2, j1, j2 in _opcodes([_bare(x) for x in orig], [_bare(x) for x in base]):
        # a run rewritten line for line (``key:   value`` as ``key: value``) still stands
        # for the same lines: an edit there replaces them, the others stay as they are
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            place.update(zip(range(j1, j2), range(i1, i2), strict=True))
    out: list[str] = []
    copied = 0  # original lines before this one are in ``out`` (or replaced)
    for tag, j1, j2, k1, k2 in _opcodes(base, new):
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
