"""Line-level insertion, replacement and removal of gno's block in a YAML file.

ruamel.yaml keeps comments on a round trip, but it files a comment (or blank
line) that introduces the next top-level key under the last item before it, so
a server appended through ruamel lands *below* that comment. gno edits lines
instead: ``mcpServers:`` at column 0 opens a block that runs until the next
line at column 0, minus the blank and comment lines just above it; gno's entry
is the ``gno:`` key inside, with its more-indented lines. The caller renders the
new block with ruamel and verifies every result, falling back to ruamel's own
round trip for layouts these rules do not cover (flow style, anchors).
"""

from __future__ import annotations

import re


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_gap(line: str) -> bool:
    stripped = line.strip()
    return stripped == "" or stripped.startswith("#")


def _key_line(lines: list[str], key: str, indent: int, lo: int, hi: int) -> int | None:
    names = "|".join(re.escape(k) for k in (key, f'"{key}"', f"'{key}'"))
    pattern = re.compile(rf"^ {{{indent}}}(?:{names})[ \t]*:[ \t]*(?:#.*)?$")
    return next((i for i in range(lo, hi) if pattern.match(lines[i].rstrip("\r\n"))), None)


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """Past-last line of the value under the key at ``start``: the lines after it
    that are more indented (or gaps), without the gaps at its end."""
    end = last = start + 1
    while end < len(lines) and (_is_gap(lines[end]) or _indent(lines[end]) > indent):
        end += 1
        if not _is_gap(lines[end - 1]):
            last = end
    return last


def _child_indent(lines: list[str], start: int, end: int) -> int | None:
    return next((_indent(line) for line in lines[start + 1 : end] if not _is_gap(line)), None)


def servers_indent(text: str, container: str) -> int | None:
    """How far the servers under ``container:`` are indented (None: none there yet)."""
    lines = text.splitlines(keepends=True)
    head = _key_line(lines, container, 0, 0, len(lines))
    if head is None:
        return None
    return _child_indent(lines, head, _block_end(lines, head, 0))


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    return lines


def put(text: str, container: str, name: str, block: str) -> str | None:
    """``text`` with the ``name:`` block under ``container:`` replaced by ``block``
    (indented, lines ending in a newline), or ``block`` added as the container's
    last entry. None when there is no ``container:`` line to work from."""
    lines = _lines(text)
    head = _key_line(lines, container, 0, 0, len(lines))
    if head is None:
        return None
    end = _block_end(lines, head, 0)
    indent = _child_indent(lines, head, end)
    found = None if indent is None else _key_line(lines, name, indent, head + 1, end)
    if found is None:
        return "".join([*lines[:end], block, *lines[end:]])
    stop = _block_end(lines, found, indent or 0)
    return "".join([*lines[:found], block, *lines[stop:]])


def remove(text: str, container: str, name: str) -> str | None:
    """``text`` without the ``name:`` block. A container left with nothing in it
    goes too (a bare ``mcpServers:`` would be null), unless comments remain in it:
    then it becomes ``container: {}``. None when the block is not found."""
    lines = _lines(text)
    head = _key_line(lines, container, 0, 0, len(lines))
    if head is None:
        return None
    end = _block_end(lines, head, 0)
    indent = _child_indent(lines, head, end)
    found = None if indent is None else _key_line(lines, name, indent, head + 1, end)
    if found is None:
        return None
    stop = _block_end(lines, found, indent or 0)
    rest = lines[head + 1 : found] + lines[stop:end]
    if any(not _is_gap(line) for line in rest):
        return "".join([*lines[:found], *lines[stop:]])
    if any(line.strip() for line in rest):  # only comments left
        newline = "\r\n" if lines[head].endswith("\r\n") else "\n"
        return "".join([*lines[:head], f"{container}: {{}}{newline}", *rest, *lines[end:]])
    start = head
    if end == len(lines):  # the block gno appended at the end, with its blank line
        while start > 0 and lines[start - 1].strip() == "":
            start -= 1
    return "".join([*lines[:start], *lines[end:]])
