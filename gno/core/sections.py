"""A document's sections and durable section targets (pure: mirror text in, values out).

``outline`` lists the Markdown headings of a mirror (ATX and setext, outside frontmatter
and fenced code) with the anchors the Web UI gives them, so ``#anchor`` links agree
everywhere: lowercase, only letters, digits, spaces and hyphens kept, runs of spaces as
one hyphen, ``section`` when nothing is left, ``-1``, ``-2`` … for repeats.

A section runs from its heading to the line before the next heading of the same or a
higher level. A *target* remembers a section by what survives edits elsewhere: its
heading path (the titles from the top), its occurrence among sections with that path and
a hash of its body (the lines under the heading, trailing spaces and blank edges
dropped). ``resolve`` finds it again conservatively:

- ``exact``: the same path and body, wherever the lines moved;
- ``recovered``: the same body under a heading that was renamed or moved (one match);
- ``stale``: the heading is there but its body changed (not safe to cite);
- ``ambiguous``: several sections fit equally; ``missing``: none does.

Only exact and recovered come with a citation (current anchor and line range).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import unicodedata
from dataclasses import dataclass
from typing import Literal

from gno.core.regions import fence_spans

Status = Literal["exact", "recovered", "stale", "ambiguous", "missing"]
MAX_SECTIONS = 10_000  # a pathological file is outlined this far, never further
MAX_TITLE = 512


@dataclass(frozen=True)
class Section:
    anchor: str
    level: int
    line: int  # 1-based mirror line of the heading
    end_line: int  # last line of the section (inclusive)
    title: str
    path: tuple[str, ...]  # titles from the top-level heading down to this one
    occurrence: int  # index among earlier sections with the same path
    body_hash: str


@dataclass(frozen=True)
class Resolution:
    status: Status
    reason: str
    section: Section | None = None  # exact and recovered only
    candidates: tuple[Section, ...] = ()


def slug(title: str) -> str:
    """The Web UI's anchor for a heading title (markdown.js ``headingNode``)."""
    plain = "".join(c for c in title if c not in "`*_~[]").lower()
    kept = "".join(
        c for c in plain if c.isspace() or c == "-" or unicodedata.category(c)[0] in "LN"
    )
    return "-".join(kept.split()) or "section"


def _atx(line: str) -> tuple[int, str] | None:
    indent = len(line) - len(line.lstrip(" "))
    if indent > 3 or not line[indent:].startswith("#"):
        return None
    j = indent
    while j < len(line) and line[j] == "#":
        j += 1
    level = j - indent
    if level > 6 or (j < len(line) and line[j] not in " \t"):
        return None
    body = line[j:].strip()
    k = len(body)
    while k > 0 and body[k - 1] == "#":
        k -= 1
    if k == 0 or body[k - 1] == " ":
        body = body[:k].strip()
    return level, body


def _setext(line: str) -> int | None:
    stripped = line.strip()
    if not stripped or len(line) - len(line.lstrip(" ")) > 3:
        return None
    if set(stripped) == {"="}:
        return 1
    if set(stripped) == {"-"}:
        return 2
    return None


def _headings(lines: list[str], first: int, code: set[int]) -> list[tuple[int, int, str]]:
    """(line index, level, title) of every heading from line index ``first``."""
    found: list[tuple[int, int, str]] = []
    paragraph: int | None = None  # index of the first line of the open paragraph
    for i in range(first, len(lines)):
        if len(found) >= MAX_SECTIONS:
            break
        line = lines[i]
        if i in code:
            paragraph = None
            continue
        if not line.strip():
            paragraph = None
            continue
        atx = _atx(line)
        if atx is not None:
            found.append((i, atx[0], atx[1]))
            paragraph = None
            continue
        level = _setext(line)
        if level is not None and paragraph is not None:
            title = " ".join(x.strip() for x in lines[paragraph:i])
            found.append((paragraph, level, title))
            paragraph = None
            continue
        if level == 2:  # "---" after a blank line is a thematic break, not text
            continue
        if paragraph is None:
            paragraph = i
    return found


def _body_hash(lines: list[str]) -> str:
    body = [line.rstrip() for line in lines]
    while body and not body[0]:
        body.pop(0)
    while body and not body[-1]:
        body.pop()
    return hashlib.sha256("\n".join(body).encode("utf-8", "surrogatepass")).hexdigest()


def outline(mirror: str, body_start_line: int = 0) -> list[Section]:
    """The sections of a mirror; ``body_start_line`` lines (the frontmatter) are skipped."""
    lines = mirror.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # the newline that ends the last line starts no line of its own
    offsets = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
    code: set[int] = set()
    for start, end in fence_spans(mirror):
        first = bisect.bisect_right(offsets, start) - 1
        code.update(range(first, bisect.bisect_right(offsets, end)))
    heads = _headings(lines, body_start_line, code)
    seen_anchor: dict[str, int] = {}
    seen_path: dict[tuple[str, ...], int] = {}
    stack: list[tuple[int, str]] = []  # (level, title) of the open ancestors
    sections: list[Section] = []
    for n, (i, level, raw_title) in enumerate(heads):
        title = raw_title[:MAX_TITLE]
        end = len(lines) - 1
        for j, next_level, _ in heads[n + 1 :]:
            if next_level <= level:
                end = j - 1
                break
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        path = tuple(t for _, t in stack)
        anchor = slug(title)
        count = seen_anchor.get(anchor, 0)
        seen_anchor[anchor] = count + 1
        occurrence = seen_path.get(path, 0)
        seen_path[path] = occurrence + 1
        sections.append(
            Section(
                anchor=f"{anchor}-{count}" if count else anchor,
                level=level,
                line=i + 1,
                end_line=max(i, end) + 1,
                title=title,
                path=path,
                occurrence=occurrence,
                body_hash=_body_hash(lines[i + 1 : end + 1]),
            )
        )
    return sections


def section_at_line(sections: list[Section], line: int) -> Section | None:
    """The innermost section holding ``line`` (None before the first heading)."""
    best = None
    for section in sections:
        if section.line <= line <= section.end_line:
            best = section  # later sections starting at or before the line are deeper
    return best


def resolve(
    sections: list[Section], path: tuple[str, ...], occurrence: int, body_hash: str
) -> Resolution:
    """Find a target's section again (the module docstring gives the rules)."""
    same_path = [s for s in sections if s.path == path]
    placed = next((s for s in same_path if s.occurrence == occurrence), None)
    if placed is not None and placed.body_hash == body_hash:
        return Resolution("exact", "unchanged", placed)
    same_body = [s for s in sections if s.body_hash == body_hash]
    if len(same_body) == 1:
        return Resolution("recovered", "heading_changed", same_body[0])
    if len(same_body) > 1:
        return Resolution("ambiguous", "duplicate_content", candidates=tuple(same_body))
    if placed is not None:
        return Resolution("stale", "content_changed", candidates=(placed,))
    same_title = [s for s in sections if path and s.title == path[-1]]
    if len(same_title) == 1:
        return Resolution("stale", "moved_and_changed", candidates=tuple(same_title))
    if len(same_title) > 1:
        return Resolution("ambiguous", "duplicate_heading", candidates=tuple(same_title))
    return Resolution("missing", "section_missing")
