"""Line-level replacement and removal of gno's ``[mcp_servers.gno*]`` tables.

tomlkit keeps comments, but it files the comment lines above a table header
under the *previous* table; deleting or replacing gno's table through tomlkit
therefore drops the comment that introduces the next one. So gno cuts its own
table lines out of the text instead: a table runs from its header to the next
header, minus the blank and comment lines just above that next header. The
caller verifies the result with tomlkit and falls back to tomlkit when the text
is laid out in a way these rules do not cover (inline tables, dotted keys).
"""

from __future__ import annotations

import itertools
import re


def _is_header(line: str) -> bool:
    stripped = line.lstrip(" \t")
    return stripped.startswith("[")


def _is_gap(line: str) -> bool:
    """Blank or comment-only: text that belongs to whatever table comes next."""
    stripped = line.strip()
    return stripped == "" or stripped.startswith("#")


def _header_pattern(container: str, name: str) -> re.Pattern[str]:
    def key(k: str) -> str:
        return rf"""(?:{re.escape(k)}|"{re.escape(k)}"|'{re.escape(k)}')"""

    return re.compile(
        rf"^[ \t]*\[[ \t]*{key(container)}[ \t]*\.[ \t]*{key(name)}[ \t]*(?:\.[^\]]*)?\][ \t]*(?:#.*)?$"
    )


def entry_span(lines: list[str], container: str, name: str) -> tuple[int, int] | None:
    """First and past-last line of gno's tables, when they form one group (only
    blank or comment lines between them); None when there are none or they are
    scattered among other tables."""
    pattern = _header_pattern(container, name.strip())
    blocks: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        if not pattern.match(line.rstrip("\r\n")):
            continue
        end = next((j for j in range(i + 1, len(lines)) if _is_header(lines[j])), len(lines))
        while end > i + 1 and _is_gap(lines[end - 1]):
            end -= 1
        blocks.append((i, end))
    if not blocks:
        return None
    for (_, prev_end), (start, _) in itertools.pairwise(blocks):
        if not all(_is_gap(line) for line in lines[prev_end:start]):
            return None
    return blocks[0][0], blocks[-1][1]


def splice(text: str, container: str, name: str, replacement: str) -> str | None:
    """``text`` with gno's table group replaced by ``replacement`` (lines ending in a
    newline; "" removes the group and a blank line it leaves doubled). None: no group."""
    lines = text.splitlines(keepends=True)
    span = entry_span(lines, container, name)
    if span is None:
        return None
    start, end = span
    if not replacement:
        blank_after = end == len(lines) or lines[end].strip() == ""
        while start > 0 and lines[start - 1].strip() == "" and blank_after:
            start -= 1
            if end == len(lines):  # at the end of the file: drop every blank line before
                continue
            break
    return "".join([*lines[:start], replacement, *lines[end:]])
