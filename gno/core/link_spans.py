"""Where a link's destination sits in a document's text, and replacing it there.

A refactor edits only destinations: a wiki link's target (without its collection prefix,
anchor or alias), a Markdown link's path (without its anchor). Offsets are code points
here; plans publish them in UTF-16 code units (GNO's coordinate space).
"""

from __future__ import annotations

from collections.abc import Sequence


def utf16_offset(text: str, index: int) -> int:
    """Code-point index → UTF-16 code units before it."""
    prefix = text[:index]
    return len(prefix) + sum(1 for ch in prefix if ord(ch) > 0xFFFF)


def line_offsets(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def wiki_target_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Code-point span of a wiki link's target (no collection prefix, anchor, alias)."""
    open_at = text.find("[[", start, end)
    if open_at < 0:
        return None
    close = text.find("]]", open_at + 2, end)
    if close < 0:
        return None
    i = open_at + 2
    j = close
    bar = text.find("|", i, j)
    if bar >= 0:
        j = bar
    hash_at = text.find("#", i, j)
    if hash_at >= 0:
        j = hash_at
    while i < j and text[i].isspace():
        i += 1
    colon = text.find(":", i, j)
    if colon > i and text[i:colon] == text[i:colon].lower() and "/" not in text[i:colon]:
        prefix = text[i:colon]
        if prefix and (prefix[0].isalnum()) and all(c.isalnum() or c in "_-" for c in prefix):
            i = colon + 1
    while j > i and text[j - 1].isspace():
        j -= 1
    return (i, j) if j > i else None


def markdown_target_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Code-point span of a Markdown link's path (without ``#anchor``)."""
    paren = text.find("](", start, end)
    if paren < 0:
        return None
    i = paren + 2
    while i < end and text[i].isspace():
        i += 1
    if i < end and text[i] == "<":
        i += 1
    j = i
    while j < end and not text[j].isspace() and text[j] not in "<>()#":
        j += 1
    return (i, j) if j > i else None


def encode_markdown_path(path: str) -> str:
    return path.replace("%", "%25").replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def apply_edits(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with each (start, end, replacement) code-point span replaced; spans must
    not overlap (links never do)."""
    out: list[str] = []
    last = 0
    for start, end, replacement in sorted(edits):
        out.append(text[last:start])
        out.append(replacement)
        last = end
    out.append(text[last:])
    return "".join(out)
