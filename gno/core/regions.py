"""Spans of a Markdown mirror that are not prose: frontmatter, fenced code,
inline code and HTML comments. Links and hashtags inside them do not count.

Block spans are found once per document; inline code is checked only on the
line of a candidate, since most lines never hold a link or a hashtag."""

from __future__ import annotations

import bisect
import re

_FENCE_LINE = re.compile(r"^[ ]{0,3}(```|~~~)", re.M)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)


class Regions:
    def __init__(self, mirror: str, frontmatter_end: int = 0) -> None:
        spans: list[tuple[int, int]] = [(0, frontmatter_end)] if frontmatter_end else []
        if "```" in mirror or "~~~" in mirror:
            opened = None
            for m in _FENCE_LINE.finditer(mirror):
                if opened is None:
                    opened = m.start()
                else:
                    end = mirror.find("\n", m.end())
                    spans.append((opened, len(mirror) if end < 0 else end))
                    opened = None
            if opened is not None:  # an unclosed fence runs to the end, as in CommonMark
                spans.append((opened, len(mirror)))
        if "<!--" in mirror:
            spans += [m.span() for m in _HTML_COMMENT.finditer(mirror)]
        spans.sort()
        merged: list[list[int]] = []
        for start, end in spans:
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._starts = [s for s, _ in merged]
        self._ends = [e for _, e in merged]
        self._text = mirror
        self._has_backticks = "`" in mirror

    def contains(self, pos: int) -> bool:
        i = bisect.bisect_right(self._starts, pos) - 1
        if i >= 0 and pos < self._ends[i]:
            return True
        return self._has_backticks and self._in_inline_code(pos)

    def _in_inline_code(self, pos: int) -> bool:
        text = self._text
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        line = text[start : len(text) if end < 0 else end]
        column = pos - start
        return "`" in line and any(
            m.start() <= column < m.end() for m in _INLINE_CODE.finditer(line)
        )
