"""Split a canonical mirror into overlapping chunks (engine.md §3).

Offsets are Python string indexes, i.e. Unicode code points (GNO counts UTF-16
units; see ARCHITECTURE.md). A chunk is the exact slice ``mirror[pos:end]``; it
is never trimmed, so its text is not stored: the store keeps only offsets.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

MAX_TOKENS = 800
CHARS_PER_TOKEN = 4
MAX_CHARS = MAX_TOKENS * CHARS_PER_TOKEN  # 3200
OVERLAP_CHARS = MAX_CHARS * 15 // 100  # 480
WINDOW_CHARS = MAX_CHARS * 10 // 100  # 320
MIN_CODE_CHUNK = MAX_CHARS * 35 // 100  # 1120

# Line-anchored starts of top-level declarations, per code family.
_JS = r"^(?:export\s+(?:default\s+)?)?(?:import\b|(?:async\s+)?function\b|class\b|interface\b|type\s+\w|enum\b|(?:const|let)\s+\w+\s*=\s*(?:async\s*)?(?:\(|function\b))"
_STRUCTURAL = {
    "js": re.compile(_JS, re.M),
    "py": re.compile(r"^(?:@\w|def\s|class\s|async\s+def\s|import\s|from\s+\S+\s+import\s)", re.M),
    "go": re.compile(r"^(?:func|type|const|var|import)\b", re.M),
    "rs": re.compile(r"^(?:pub(?:\([^)]*\))?\s+)?(?:fn|struct|enum|trait|impl|use|mod)\b", re.M),
}
_CODE_FAMILY = {
    ".ts": "js",
    ".tsx": "js",
    ".js": "js",
    ".jsx": "js",
    ".py": "py",
    ".go": "go",
    ".rs": "rs",
}
_SENTENCE_END = re.compile(r"[.!?]\s+(?=[A-Z])")


@dataclass(frozen=True, slots=True)
class Chunk:
    seq: int
    pos: int  # code-point offset of the first character in the mirror
    end: int  # exclusive
    start_line: int  # 1-based, inclusive
    end_line: int


def code_family(rel_path: str) -> str | None:
    dot = rel_path.rfind(".")
    return _CODE_FAMILY.get(rel_path[dot:].lower()) if dot >= 0 else None


def _prose_break(text: str, target: int) -> int:
    lo, hi = max(0, target - WINDOW_CHARS), min(len(text), target + WINDOW_CHARS)
    idx = text.rfind("\n\n", lo, hi)
    if idx >= 0:
        return idx + 2
    last = None
    for last in _SENTENCE_END.finditer(text, lo, hi):  # noqa: B007 - we want the last match
        pass
    if last is not None:
        return last.end()
    for sep in ("\n", " "):
        idx = text.rfind(sep, lo, hi)
        if idx >= 0:
            return idx + 1
    return target


def _structural_break(breaks: list[int], pos: int, target: int) -> int | None:
    lo, hi = max(pos + MIN_CODE_CHUNK, target - WINDOW_CHARS), target + WINDOW_CHARS
    i, j = bisect.bisect_left(breaks, lo), bisect.bisect_right(breaks, hi)
    if i >= j:
        return None
    k = bisect.bisect_right(breaks, target, i, j)
    return breaks[k - 1] if k > i else breaks[i]


def chunk_text(text: str, family: str | None = None) -> list[Chunk]:
    n = len(text)
    line, line_pos = 1, 0  # line number of offset line_pos; chunk starts only move forward
    breaks = [m.start() for m in _STRUCTURAL[family].finditer(text)] if family else []
    chunks: list[Chunk] = []
    pos = 0
    while pos < n:
        target, structural = pos + MAX_CHARS, False
        if target >= n:
            end = n
        else:
            found = _structural_break(breaks, pos, target) if breaks else None
            if found is not None:
                end, structural = found, True
            else:
                end = _prose_break(text, target)
            if end <= pos or end - pos > MAX_CHARS + WINDOW_CHARS:
                end, structural = pos + MAX_CHARS, False
        line += text.count("\n", line_pos, pos)
        line_pos = pos
        if not text[pos:end].isspace():
            end_line = line + text.count("\n", pos, end - 1)
            chunks.append(
                Chunk(seq=len(chunks), pos=pos, end=end, start_line=line, end_line=end_line)
            )
        if end >= n:
            break
        pos = max(end if structural else end - OVERLAP_CHARS, pos + 1)
    return chunks
