"""Spans of a Markdown mirror that are not prose: frontmatter, fenced code, inline code
spans and HTML comments. Links and hashtags inside them do not count.

The rules (CommonMark's, as far as a link or tag can tell):

- A fence opens on a line indented by at most three spaces with three or more
  backticks or tildes (a backtick fence's info string holds no backtick). It closes on
  a line indented by at most three spaces holding only a run of the *same* character,
  at least as long as the opening run, and optional trailing spaces: a ``~~~`` inside a
  backtick fence, or a shorter run, is code. An unclosed fence runs to the end.
- Outside fences, a run of N backticks opens a code span that the next run of exactly
  N backticks closes, within the same paragraph (no blank line between); a run with no
  such closer is literal text. Backslash escapes are not interpreted.
- ``<!--`` opens a comment that the next ``-->`` closes; an unclosed one is text.

Every scan is linear in the text (plus a log factor for the paragraph lookup): fences over
the lines a fence could start, comments with ``str.find``, code spans over the backtick runs
with one forward pointer per run length. No backtracking regex sees the whole text.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict

_FENCE_LINE = re.compile(r"^ {0,3}(?:`{3,}|~{3,}).*$", re.MULTILINE)  # opens or closes one
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")
_TICKS = re.compile(r"`+")


def fence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every fenced code block, fence lines included."""
    if "```" not in text and "~~~" not in text:
        return []
    spans: list[tuple[int, int]] = []
    opened: tuple[int, str, int] | None = None  # (start offset, char, run length)
    for candidate in _FENCE_LINE.finditer(text):  # the other lines neither open nor close
        start, end = candidate.span()
        line = candidate.group()
        if opened is None:
            m = _FENCE_OPEN.fullmatch(line)
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                opened = (start, m.group(1)[0], len(m.group(1)))
            continue
        m = _FENCE_CLOSE.fullmatch(line)
        if m and m.group(1)[0] == opened[1] and len(m.group(1)) >= opened[2]:
            spans.append((opened[0], end))
            opened = None
    if opened is not None:  # an unclosed fence runs to the end, as in CommonMark
        spans.append((opened[0], len(text)))
    return spans


def comment_spans(text: str, fences: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """HTML comments that open outside ``fences`` (sorted spans)."""
    spans = []
    fences = fences or []
    starts = [s for s, _ in fences]
    pos = text.find("<!--")
    while pos >= 0:
        i = bisect.bisect_right(starts, pos) - 1
        if i >= 0 and pos < fences[i][1]:  # inside a fence: code, not a comment
            pos = text.find("<!--", fences[i][1])
            continue
        close = text.find("-->", pos + 4)
        if close < 0:
            break  # no later comment can close either
        spans.append((pos, close + 3))
        pos = text.find("<!--", close + 3)
    return spans


def code_span_spans(text: str, blocked: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Inline code spans outside ``blocked`` (sorted, non-overlapping spans)."""
    if "`" not in text:
        return []
    # the runs in the gaps between blocked spans (no blocked span starts or ends inside a
    # backtick run: they end in a newline, `-->` or `---`, and start after a newline or at `<`)
    gaps, at = [], 0
    for start, end in blocked:
        gaps.append((at, start))
        at = max(at, end)
    gaps.append((at, len(text)))
    runs = [m.span() for a, b in gaps if a < b for m in _TICKS.finditer(text, a, b)]
    by_length: dict[int, list[int]] = defaultdict(list)
    for index, (start, end) in enumerate(runs):
        by_length[end - start].append(index)
    pointer: dict[int, int] = defaultdict(int)
    breaks = [m.start() for m in re.finditer(r"\n[ \t]*\n", text)]  # paragraph ends
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        length = end - start
        candidates = by_length[length]
        p = pointer[length]
        while p < len(candidates) and candidates[p] <= index:
            p += 1
        pointer[length] = p
        if p < len(candidates):
            closer = candidates[p]
            close_start, close_end = runs[closer]
            next_break = bisect.bisect_left(breaks, end)
            if next_break == len(breaks) or breaks[next_break] >= close_start:
                spans.append((start, close_end))
                index = closer + 1
                continue
        index += 1  # no closer in this paragraph: literal backticks
    return spans


class Regions:
    def __init__(self, mirror: str, frontmatter_end: int = 0) -> None:
        spans: list[tuple[int, int]] = [(0, frontmatter_end)] if frontmatter_end else []
        fences = fence_spans(mirror)
        spans += fences
        if "<!--" in mirror:
            spans += comment_spans(mirror, fences)
        blocked = _merge(spans)
        blocked = _merge(blocked + code_span_spans(mirror, blocked))
        self._starts = [s for s, _ in blocked]
        self._ends = [e for _, e in blocked]

    def contains(self, pos: int) -> bool:
        i = bisect.bisect_right(self._starts, pos) - 1
        return i >= 0 and pos < self._ends[i]

    def spans(self) -> list[tuple[int, int]]:
        return list(zip(self._starts, self._ends, strict=True))


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]
