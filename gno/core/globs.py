"""Collection file selection rules (engine.md §2.1), as pure functions.

``pattern`` is a glob over POSIX relative paths (``**`` spans directories, ``*``
and ``?`` stay inside one segment, ``[...]`` classes, ``{a,b}`` alternatives);
like GNO, wildcards never match names starting with '.', so hidden files and
folders are skipped. ``exclude`` entries with glob characters match the whole
path; plain entries match any path component, the full path or a leading
directory prefix. ``include`` is an extension allowlist.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from gno.errors import ValidationError

DEFAULT_PATTERN = "**/*"
DEFAULT_EXCLUDES = (
    ".git",
    "node_modules",
    ".venv",
    ".idea",
    "dist",
    "build",
    "__pycache__",
    ".DS_Store",
    "Thumbs.db",
)
GLOB_CHARS = set("*?[]{}")


def _split_braces(pattern: str) -> list[str]:
    """Expand every {a,b} group (nested groups too)."""
    start = pattern.find("{")
    if start < 0:
        return [pattern]
    depth = 0
    for end in range(start, len(pattern)):
        if pattern[end] == "{":
            depth += 1
        elif pattern[end] == "}":
            depth -= 1
            if depth == 0:
                break
    else:
        raise ValidationError(f"Unbalanced '{{' in pattern: {pattern}")
    options, depth, current = [], 0, ""
    for ch in pattern[start + 1 : end]:
        if ch == "," and depth == 0:
            options.append(current)
            current = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        current += ch
    options.append(current)
    head, tail = pattern[:start], pattern[end + 1 :]
    return [expanded for option in options for expanded in _split_braces(head + option + tail)]


def _segment_regex(segment: str) -> str:
    out, i = [], 0
    if segment[:1] in ("*", "?", "["):
        out.append(r"(?!\.)")  # wildcards never match a leading dot
    while i < len(segment):
        ch = segment[i]
        if ch == "*":
            out.append(r"[^/]*")
        elif ch == "?":
            out.append(r"[^/]")
        elif ch == "[":
            close = segment.find("]", i + 1)
            if close < 0:
                raise ValidationError(f"Unbalanced '[' in pattern: {segment}")
            body = segment[i + 1 : close]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = close
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def glob_regex(pattern: str) -> str:
    segments = pattern.split("/")
    out = []
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if segment == "**":
            out.append(r"(?:(?!\.)[^/]+/)*" + (r"(?!\.)[^/]+" if last else ""))
        else:
            out.append(_segment_regex(segment) + ("" if last else "/"))
    return "".join(out)


def compile_globs(pattern: str) -> re.Pattern[str]:
    if pattern.startswith("/") or ".." in pattern.split("/"):
        raise ValidationError(f"Pattern must be relative and must not contain '..': {pattern}")
    alternatives = [glob_regex(p) for p in _split_braces(pattern)]
    return re.compile("^(?:" + "|".join(alternatives) + ")$")


def normalize_extension(ext: str) -> str:
    ext = ext.strip().lower()
    return ext if ext.startswith(".") else "." + ext


@dataclass(frozen=True)
class FileRules:
    pattern: re.Pattern[str]
    include: frozenset[str]  # lowercase extensions with the dot
    exclude_globs: tuple[re.Pattern[str], ...]
    exclude_names: frozenset[str]

    @classmethod
    def build(
        cls, pattern: str, include: Iterable[str], exclude: Iterable[str], supported: Iterable[str]
    ) -> FileRules:
        include_set = frozenset(normalize_extension(e) for e in include if e.strip()) or frozenset(
            supported
        )
        globs, names = [], []
        for entry in exclude:
            entry = entry.strip().strip("/")
            if not entry:
                continue
            if GLOB_CHARS & set(entry):
                globs.append(compile_globs(entry))
            else:
                names.append(entry)
        return cls(compile_globs(pattern), include_set, tuple(globs), frozenset(names))

    def dir_excluded(self, rel_dir: str, name: str) -> bool:
        """Cheap pruning while walking: a directory named like a plain exclude entry."""
        return name in self.exclude_names or rel_dir in self.exclude_names

    def excluded(self, rel_path: str) -> bool:
        parts = rel_path.split("/")
        if self.exclude_names.intersection(parts):
            return True
        for entry in self.exclude_names:
            if "/" in entry and (rel_path == entry or rel_path.startswith(entry + "/")):
                return True
        return any(g.match(rel_path) for g in self.exclude_globs)

    def accepts(self, rel_path: str) -> bool:
        name = rel_path.rsplit("/", 1)[-1]
        dot = name.rfind(".")
        if dot <= 0 or name[dot:].lower() not in self.include:
            return False
        return bool(self.pattern.match(rel_path)) and not self.excluded(rel_path)
