"""Minimal edits of one member of a JSONC file, leaving every other byte alone.

Client configs (Cursor, Zed, OpenCode, …) are JSON with comments and trailing
commas. Loading them into a dict and dumping it back would drop the comments and
reformat the file, so gno never does that: it finds the text span of the one
member it owns (``"gno"`` inside ``"mcpServers"``, say) and splices text in or out.

Finding spans needs no parser of our own: comments and trailing commas are
overwritten with spaces of the same length (newlines kept), which yields plain
JSON with the same offsets. The standard library parses that (validation) and
``raw_decode`` measures each member's value. Every edit is checked afterwards:
the new text must parse, and differ from the old only at the edited path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"
MISSING: Any = object()
# The json module recurses once per level; a client config nests a handful deep.
MAX_DEPTH = 100


class JsoncError(ValueError):
    """The text is not JSON with comments (message names line and column)."""


@dataclass(frozen=True)
class _Member:
    key: str
    key_start: int
    value_start: int
    value_end: int
    comma: int | None  # the separator or trailing comma after the value
    trailing: bool  # that comma is the last one before the closing brace


def _blank(text: str) -> tuple[str, set[int]]:
    """``text`` with comments, a leading BOM and trailing commas turned into spaces
    (line breaks kept, so offsets and line numbers stay), and where the trailing
    commas were. Nesting deeper than ``MAX_DEPTH`` is refused here, before the json
    module would exhaust the stack."""
    out = list(text)
    commas: list[int] = []
    depth = 0
    i, n = 0, len(text)
    if text.startswith("\ufeff"):
        out[0] = " "
        i = 1
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise JsoncError(f"unterminated /* comment at {_where(text, i)}")
            end += 2
        else:
            if c == ",":
                commas.append(i)
            elif c in "[{":
                depth += 1
                if depth > MAX_DEPTH:
                    raise JsoncError(f"nested deeper than {MAX_DEPTH} levels at {_where(text, i)}")
            elif c in "]}":
                depth -= 1
            i += 1
            continue
        for j in range(i, end):
            if out[j] not in "\r\n":
                out[j] = " "
        i = end
    plain = "".join(out)
    trailing = set()
    for k in commas:
        j = _skip(plain, k + 1)
        if j < n and plain[j] in "}]":
            trailing.add(k)
            out[k] = " "
    return "".join(out), trailing


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line}, column {pos - _line_start(text, pos) + 1}"


def _skip(plain: str, i: int) -> int:
    while i < len(plain) and plain[i] in _SPACE:
        i += 1
    return i


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _indent_before(text: str, pos: int) -> str | None:
    """The indentation of ``pos``'s line when only whitespace precedes ``pos`` on it."""
    head = text[_line_start(text, pos) : pos]
    return head if head.strip(" \t") == "" else None


def _end_of_line(plain: str, i: int) -> int | None:
    """Where the line break after ``i`` is, when only blanks (or comments) come first."""
    while i < len(plain) and plain[i] in " \t":
        i += 1
    if i == len(plain) or plain[i] in "\r\n":
        return i
    return None


class JsoncDocument:
    """One JSONC text; ``set`` and ``remove`` return the edited text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.plain, self._trailing = _blank(text)
        self.empty = self.plain.strip(_SPACE) == ""
        try:
            self.data = {} if self.empty else json.loads(self.plain)
        except json.JSONDecodeError as exc:
            raise JsoncError(f"{exc.msg} at {_where(text, exc.pos)}") from None
        if not isinstance(self.data, dict):
            raise JsoncError("the top level is not an object")
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.unit = self._indent_unit()

    # ------------------------------------------------------------------ reading

    def get(self, path: list[str]) -> Any:
        node: Any = self.data
        for key in path:
            if not isinstance(node, dict) or key not in node:
                return MISSING
            node = node[key]
        return node

    def _members(self, open_brace: int) -> tuple[list[_Member], int]:
        """The members of the object whose ``{`` is at ``open_brace``, and its ``}``."""
        plain = self.plain
        members: list[_Member] = []
        i = _skip(plain, open_brace + 1)
        while plain[i] != "}":
            key, key_end = _DECODER.raw_decode(plain, i)
            value_start = _skip(plain, _skip(plain, key_end) + 1)  # past the colon
            _, value_end = _DECODER.raw_decode(plain, value_start)
            comma, trailing = None, False
            j = value_end
            while j < len(plain) and plain[j] in _SPACE:
                if j in self._trailing:
                    comma, trailing = j, True
                    break
                j += 1
            if plain[j] == ",":
                comma = j
            members.append(_Member(key, i, value_start, value_end, comma, trailing))
            i = _skip(plain, comma + 1) if comma is not None else _skip(plain, value_end)
        return members, i

    def _object_at(self, path: list[str]) -> int:
        """Offset of the ``{`` of the object at ``path`` (which must exist)."""
        brace = _skip(self.plain, 0)
        for key in path:
            member = [m for m in self._members(brace)[0] if m.key == key][-1]
            brace = member.value_start
        return brace

    def _indent_unit(self) -> str:
        if self.empty:
            return "  "
        members, _ = self._members(_skip(self.plain, 0))
        for m in members:
            indent = _indent_before(self.text, m.key_start)
            if indent:
                return indent
        return "  "

    # ------------------------------------------------------------------ writing

    def _render(self, value: Any, indent: str | None) -> str:
        """JSON for ``value``, continuation lines indented under ``indent`` (None: one line)."""
        if indent is None:
            return json.dumps(value, ensure_ascii=False)
        body = json.dumps(value, indent=self.unit, ensure_ascii=False)
        return body.replace("\n", self.newline + indent)

    def _member_text(self, key: str, value: Any, indent: str | None) -> str:
        return f"{json.dumps(key, ensure_ascii=False)}: {self._render(value, indent)}"

    def set(self, path: list[str], value: Any) -> str:
        """The text with ``path`` set to ``value``; missing parent objects are created."""
        if self.empty:  # no object yet; comments already there stay on top
            nested: Any = value
            for key in reversed(path):
                nested = {key: nested}
            head = self.text.rstrip(_SPACE)
            head = head + self.newline if head else ""
            return self._checked(head + self._render(nested, "") + self.newline, path, value)
        depth = 0  # how much of the path exists as objects
        while depth < len(path) - 1 and isinstance(self.get(path[: depth + 1]), dict):
            depth += 1
        brace = self._object_at(path[:depth])
        existing = [m for m in self._members(brace)[0] if m.key == path[depth]]
        if depth == len(path) - 1 and existing:
            member = existing[-1]
            indent = _indent_before(self.text, member.key_start)
            edits = [(member.value_start, member.value_end, self._render(value, indent))]
        else:
            if existing:  # a parent that is not an object: refuse, do not overwrite
                raise JsoncError(f"{'.'.join(path[: depth + 1])} is not an object")
            nested = value
            for key in reversed(path[depth + 1 :]):
                nested = {key: nested}
            edits = self._insert(brace, path[depth], nested)
        return self._checked(_apply(self.text, edits), path, value)

    def _insert(self, brace: int, key: str, value: Any) -> list[tuple[int, int, str]]:
        members, close = self._members(brace)
        nl = self.newline
        if not members:
            outer = _indent_before(self.text, brace) or self._line_indent(brace)
            inner = outer + self.unit
            member = self._member_text(key, value, inner)
            if self.text[brace + 1 : close].strip(_SPACE) == "":  # `{}` or `{ \n }`
                return [(brace + 1, close, f"{nl}{inner}{member}{nl}{outer}")]
            return [(brace + 1, brace + 1, f"{nl}{inner}{member}")]  # comments stay below
        last = members[-1]
        indent = _indent_before(self.text, last.key_start)
        after = last.comma + 1 if last.trailing and last.comma is not None else last.value_end
        if indent is None:  # a one-line object: stay on that line
            member = self._member_text(key, value, None)
            if last.trailing:
                return [(after, after, f" {member},")]
            return [(after, after, f", {member}")]
        eol = _end_of_line(self.plain, after)
        at = eol if eol is not None else after
        piece = f"{nl}{indent}{self._member_text(key, value, indent)}"
        if last.trailing:  # keep the file's trailing-comma style
            return [(at, at, piece + ",")]
        if at == last.value_end:
            return [(at, at, "," + piece)]
        return [(last.value_end, last.value_end, ","), (at, at, piece)]

    def _line_indent(self, pos: int) -> str:
        start = _line_start(self.text, pos)
        end = start
        while end < len(self.text) and self.text[end] in " \t":
            end += 1
        return self.text[start:end]

    def remove(self, path: list[str]) -> str:
        """The text without the member at ``path`` (unchanged when it is absent)."""
        if self.get(path) is MISSING:
            return self.text
        text = self.text
        while True:
            doc = JsoncDocument(text)
            if doc.get(path) is MISSING:
                break
            text = _apply(text, doc._removal(path))
        return self._checked(text, path, MISSING)

    def _removal(self, path: list[str]) -> list[tuple[int, int, str]]:
        brace = self._object_at(path[:-1])
        members, close = self._members(brace)
        index = max(i for i, m in enumerate(members) if m.key == path[-1])
        member = members[index]
        indent = _indent_before(self.text, member.key_start)
        start = _line_start(self.text, member.key_start) if indent is not None else member.key_start
        if index + 1 < len(members):  # a member follows: take ours and its comma
            assert member.comma is not None
            eol = _end_of_line(self.plain, member.comma + 1)
            if indent is not None and eol is not None:
                end = eol + (2 if self.plain.startswith("\r\n", eol) else 1)
            else:
                end, start = members[index + 1].key_start, member.key_start
            return [(start, end, "")]
        if index > 0:  # the last of several: the comma before ours goes too
            prev = members[index - 1]
            assert prev.comma is not None
            eol = _end_of_line(self.plain, prev.comma + 1)
            cut = eol if eol is not None else prev.comma + 1
            if member.trailing and member.comma is not None:
                return [(cut, member.comma + 1, "")]  # prev's comma becomes the trailing one
            return [(cut, member.value_end, ""), (prev.comma, prev.comma + 1, "")]
        end = member.comma + 1 if member.comma is not None else member.value_end
        eol = _end_of_line(self.plain, end)
        if indent is not None and eol is not None:  # whole lines, with a comment after ours
            end = eol + (2 if self.plain.startswith("\r\n", eol) else 1)
        else:
            start = member.key_start
        if (self.text[brace + 1 : start] + self.text[end:close]).strip(_SPACE) == "":
            return [(brace + 1, close, "")]  # nothing else inside: leave `{}`
        return [(start, end, "")]

    def _checked(self, new_text: str, path: list[str], value: Any) -> str:
        """Refuse an edit that changed anything but ``path`` (a bug, never a user error)."""
        try:
            after = JsoncDocument(new_text)
        except JsoncError as exc:
            raise AssertionError(f"JSONC edit of {'.'.join(path)} broke the file: {exc}") from None
        if after.get(path) != value and not (value is MISSING and after.get(path) is MISSING):
            raise AssertionError(f"JSONC edit of {'.'.join(path)} did not take")
        if _without(after.data, path) != _without(self.data, path):
            raise AssertionError(f"JSONC edit of {'.'.join(path)} touched other keys")
        return new_text


def _without(data: dict[str, Any], path: list[str]) -> Any:
    """``data`` with ``path`` removed, and emptied parents of it dropped too."""
    if not path:
        return None
    if path[0] not in data:
        return data
    rest = {k: v for k, v in data.items() if k != path[0]}
    if len(path) > 1 and isinstance(data[path[0]], dict):
        inner = _without(data[path[0]], path[1:])
        if inner:
            rest[path[0]] = inner
    return rest


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, replacement in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:start] + replacement + text[end:]
    return text
