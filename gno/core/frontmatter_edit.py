"""Change one top-level entry of a note's frontmatter and nothing else (pure): ``tags``
(``set_tags``), or any key (``replace_entry``: a memory fact's ``memory`` mapping).
The entry is found as a YAML loader reads the block; two top-level entries of the key are
refused (``VALIDATION``): keys are unique, and which one is meant cannot be told.

The file is handled as text decoded with ``surrogateescape``, so any byte sequence
comes back unchanged. Only the top-level ``tags:`` entry is replaced (its key line
and the indented or ``-`` lines under it), written as a block list; every other
byte of the file — other keys, comments, quoting, line ends (LF or CRLF), the body
— stays as it was. A file without frontmatter gets a block holding only ``tags``;
removing the last tag from a block that then holds nothing removes the block, so
adding a tag and removing it again restores the original bytes.
"""

from __future__ import annotations

import json
import re

from gno.core.frontmatter import MAX_FRONTMATTER_DEPTH
from gno.core.tags import is_valid_tag
from gno.core.yaml_depth import nesting_depth
from gno.errors import FrontmatterError, ValidationError


def _key_line(key: str) -> re.Pattern[str]:
    """The line opening the top-level entry ``key`` (plain or quoted)."""
    k = re.escape(key)
    return re.compile(rf"""^(?:{k}|"{k}"|'{k}')[ \t]*:""")


_TAGS_KEY = _key_line("tags")
_FENCE = re.compile(r"^---[ \t]*\r?$")
BOM = "\ufeff"
UNREADABLE = "\ufffd"  # what a byte that is no UTF-8 reads as in ``yaml_readable``
_ESCAPED = re.compile("[\udc80-\udcff]")  # such a byte, decoded with surrogateescape


# An edit reads the block several times (its tags, where the entry is, which anchors it
# defines) and re-indexes the note after: a 3 MB block took 15 s. A larger block than a
# note gno writes may hold (1 MiB, ``note_files.MAX_CONTENT_BYTES``) is refused instead.
MAX_EDIT_FRONTMATTER_CHARS = 1024 * 1024


def check_edit_size(size: int) -> None:
    """Refuse (``VALIDATION``, nothing written) to rewrite a frontmatter block of ``size``
    code points, fences included, past ``MAX_EDIT_FRONTMATTER_CHARS``."""
    if size > MAX_EDIT_FRONTMATTER_CHARS:
        raise FrontmatterError(
            f"The frontmatter is {size} characters; gno edits a block of at most "
            f"{MAX_EDIT_FRONTMATTER_CHARS}: edit it by hand"
        )


def yaml_readable(text: str) -> str:
    """``text`` as a YAML parser takes it: each byte that is no UTF-8 (a surrogate of
    ``surrogateescape``, which no parser reads) as U+FFFD, one code point for one, so
    offsets and structure stay (such a byte is never YAML syntax)."""
    return _ESCAPED.sub(UNREADABLE, text)


def _lines(text: str) -> list[str]:
    """Lines with their ``\\n`` kept (only LF splits: other separators are content)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _newline(lines: list[str]) -> str:
    return "\r\n" if lines and lines[0].endswith("\r\n") else "\n"


def _block(lines: list[str]) -> int | None:
    """Index of the closing fence when the text opens with a frontmatter block."""
    if not lines or not _FENCE.match(lines[0].rstrip("\n")):
        return None
    for i in range(1, len(lines)):
        if _FENCE.match(lines[i].rstrip("\n")):
            check_edit_size(sum(map(len, lines[: i + 1])))  # before any parse of it
            return i
    return None


def _entry_span(
    lines: list[str], close: int, key: re.Pattern[str] = _TAGS_KEY, name: str = "tags"
) -> tuple[int, int] | None:
    """[start, end) of the top-level ``key`` entry (tags) inside the block: its key line
    and the indented or ``-`` lines under it, with blank lines between them (a quoted
    multi-line value, as YAML writes one, holds blank lines), never a trailing one."""
    starts = _entry_starts(lines, close, key, name)
    if len(starts) > 1:  # YAML keys are unique: which one is meant cannot be told
        raise ValidationError(
            f"The frontmatter has {len(starts)} top-level {name!r} entries; a YAML key is "
            f"unique, so gno edits none: merge them into one by hand"
        )
    if not starts:
        return None
    i = starts[0]
    end = i + 1
    while end < close:
        ahead = end
        while ahead < close and not lines[ahead].strip():
            ahead += 1
        if ahead < close and (lines[ahead][:1] in (" ", "\t") or lines[ahead][:1] == "-"):
            end = ahead + 1
            continue
        break
    if anchor := _anchor_used_elsewhere(lines, close, i, end):
        raise ValidationError(
            f"The frontmatter's {name!r} entry defines the anchor &{anchor} that another "
            f"entry uses; a rewrite would leave that alias undefined: edit it by hand"
        )
    return i, end


def _anchor_used_elsewhere(lines: list[str], close: int, start: int, end: int) -> str | None:
    """An anchor defined in lines [start, end) of the block that an alias outside them
    names (replacing those lines drops its definition: the block is YAML no more)."""
    block = "".join(lines[1:close])
    if "&" not in block or "*" not in block:
        return None
    import yaml

    a = sum(map(len, lines[1:start]))
    b = a + sum(map(len, lines[start:end]))
    inside, used = set(), set()
    try:  # the events' marks count code points, as the lines do
        for event in yaml.parse(block, Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader)):
            name = getattr(event, "anchor", None)
            mark = event.start_mark
            within = mark is not None and a <= mark.index < b
            if isinstance(event, yaml.AliasEvent):
                if not within:
                    used.add(name)
            elif name is not None and within:
                inside.add(name)
    except (yaml.YAMLError, UnicodeError):  # no YAML: no anchors either
        return None
    return min(inside & used, default=None)


def _entry_starts(lines: list[str], close: int, key: re.Pattern[str], name: str) -> list[int]:
    """The lines opening a top-level ``name`` entry as a YAML loader reads the block (so a
    ``tags:`` line inside a multi-line quoted title is none); by the line rule alone when
    the block is not YAML gno parses (the line parser then reads it)."""
    found = _yaml_key_offsets(lines, close, name)
    if found is None:
        return [i for i in range(1, close) if key.match(lines[i])]
    starts, offset, i = [], sum(map(len, lines[:1])), 1
    for at in found:
        while i < close and offset + len(lines[i]) <= at:
            offset += len(lines[i])
            i += 1
        if i >= close or at != offset or not key.match(lines[i]):
            raise ValidationError(f"The frontmatter's {name!r} entry is not written as "
                                  f"'{name}:' on a line of its own; edit it by hand")  # fmt: skip
        starts.append(i)
    return starts


def _yaml_key_offsets(lines: list[str], close: int, name: str) -> list[int] | None:
    """Offsets (from the text's start) of the top-level keys ``name`` as PyYAML's base
    loader (the one ``parse_frontmatter`` uses) composes the block; None when it does not
    compose to a mapping or nests deeper than gno parses."""
    import yaml

    block = yaml_readable("".join(lines[1:close]))
    if nesting_depth(block) > MAX_FRONTMATTER_DEPTH:
        return None
    try:  # either composer's marks count code points, as the lines do
        node = yaml.compose(block, Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader))
    except (yaml.YAMLError, UnicodeError):  # no YAML
        return None
    if not isinstance(node, yaml.MappingNode):
        return None
    first = len(lines[0])
    return [
        first + k.start_mark.index
        for k, _ in node.value
        if isinstance(k, yaml.ScalarNode) and k.value == name
    ]


def _scalar(tag: str) -> str:
    """A tag as a YAML list item: plain when it is a valid tag (letters, digits, ``-``,
    ``.``, ``/``), else double-quoted — a tag a file spelled ``"a: b"``, ``"x # y"`` or
    with a line break stays one string, never a mapping, a comment or a broken block."""
    return tag if is_valid_tag(tag) else json.dumps(tag, ensure_ascii=False)


def _rendered(tags: list[str], nl: str) -> list[str]:
    return [f"tags:{nl}"] + [f"  - {_scalar(tag)}{nl}" for tag in tags]


def set_tags(text: str, tags: list[str]) -> str:
    """``text`` with its frontmatter tags replaced by ``tags`` (already validated tags:
    letters, digits, ``-``, ``.``, ``/`` — safe as plain YAML scalars)."""
    bom = BOM if text.startswith(BOM) else ""
    lines = _lines(text[len(bom) :])
    nl = _newline(lines)
    close = _block(lines)
    if close is None:
        if not tags:
            return text
        head = [f"---{nl}", *_rendered(tags, nl), f"---{nl}"]
        return bom + "".join(head + lines)
    span = _entry_span(lines, close)
    new = _rendered(tags, nl) if tags else []
    if span is None:
        if not tags:
            return text
        lines[close:close] = new
    else:
        lines[span[0] : span[1]] = new
        close += len(new) - (span[1] - span[0])
    if close == 1 and not tags:  # the block held only tags: remove it
        del lines[0:2]
    return bom + "".join(lines)


def replace_entry(text: str, key: str, entry: str) -> str:
    """``text`` with its frontmatter's top-level ``key`` entry (its key line and the
    indented lines under it) replaced by ``entry`` (YAML lines ending in LF, written with
    the file's own line ends); added at the end of the block when it has none, in a new
    block when the file has none. Every other byte — other keys, comments, the body —
    stays as it was."""
    bom = BOM if text.startswith(BOM) else ""
    lines = _lines(text[len(bom) :])
    nl = _newline(lines)
    new = [line + nl for line in entry.rstrip("\n").split("\n")]
    close = _block(lines)
    if close is None:
        return bom + "".join([f"---{nl}", *new, f"---{nl}", *lines])
    span = _entry_span(lines, close, _key_line(key), key)
    if span is None:
        lines[close:close] = new
    else:
        lines[span[0] : span[1]] = new
    return bom + "".join(lines)
