"""Collection file selection rules (engine.md §2.1), as pure functions.

``pattern`` is a glob over POSIX relative paths (``**`` spans directories, ``*``
and ``?`` stay inside one segment, ``[...]`` classes, ``{a,b}`` alternatives);
like GNO, wildcards never match names starting with '.', so hidden files and
folders are skipped. ``exclude`` entries with glob characters match the whole
path; plain entries match any path component, the full path or a leading
directory prefix. ``include`` is an extension allowlist.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gno.core.globmatch import Glob
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


def compile_globs(pattern: str) -> Glob:
    """The linear-time matcher of ``pattern`` (``gno.core.globmatch``); bounds are checked there."""
    if pattern.startswith("/") or ".." in pattern.split("/"):
        raise ValidationError(f"Pattern must be relative and must not contain '..': {pattern}")
    return Glob(pattern)


def split_globs(value: str) -> list[str]:
    """Split a comma-separated list of globs at the commas that separate them: commas inside
    ``{a,b}`` groups or ``[...]`` classes belong to the glob (``{a[0-9].md,b.md}`` is one)."""
    parts: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(value):
        ch = value[i]
        if ch == "[":
            close = value.find("]", i + 2)  # a ']' right after '[' is a member
            i = close if close > 0 else i
        elif ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif ch == "," and not depth:
            parts.append(value[start:i])
            start = i + 1
        i += 1
    parts.append(value[start:])
    return [part.strip() for part in parts if part.strip()]


def normalize_extension(ext: str) -> str:
    ext = ext.strip().lower()
    return ext if ext.startswith(".") else "." + ext


@dataclass(frozen=True)
class FileRules:
    """A collection's file selection: pattern, extensions and excludes, compiled."""

    pattern: Glob
    include: frozenset[str]  # lowercase extensions with the dot
    exclude_globs: tuple[Glob, ...]
    exclude_names: frozenset[str]
    nested_names: tuple[str, ...] = ()  # the plain entries with a "/" (matched as prefixes)

    @classmethod
    def build(
        cls, pattern: str, include: Iterable[str], exclude: Iterable[str], supported: Iterable[str]
    ) -> FileRules:
        include_set = frozenset(normalize_extension(e) for e in include if e.strip()) or frozenset(
            supported
        )
        globs: list[Glob] = []
        names: list[str] = []
        for entry in exclude:
            entry = entry.strip().strip("/")
            if not entry:
                continue
            if GLOB_CHARS & set(entry):
                globs.append(compile_globs(entry))
            else:
                names.append(entry)
        nested = tuple(name for name in dict.fromkeys(names) if "/" in name)
        return cls(compile_globs(pattern), include_set, tuple(globs), frozenset(names), nested)

    def dir_excluded(self, rel_dir: str, name: str) -> bool:
        """Cheap pruning while walking: a directory named like a plain exclude entry."""
        return name in self.exclude_names or rel_dir in self.exclude_names

    def excluded(self, rel_path: str) -> bool:
        if not self.exclude_names.isdisjoint(rel_path.split("/")):
            return True
        for entry in self.nested_names:
            if rel_path == entry or rel_path.startswith(entry + "/"):
                return True
        return any(g.match(rel_path) for g in self.exclude_globs)

    def accepts(self, rel_path: str) -> bool:
        name = rel_path.rsplit("/", 1)[-1]
        dot = name.rfind(".")
        if dot <= 0 or name[dot:].lower() not in self.include:
            return False
        return self.pattern.match(rel_path) and not self.excluded(rel_path)
