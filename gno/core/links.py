"""Wiki and Markdown link parsing with mirror positions (engine.md §7.1).

Lines and columns are 1-based; columns count code points; ends are exclusive.
Frontmatter, fenced code, inline code and HTML comments never yield links.

Forms: ``[[target]]``, ``[[target|text]]``, ``[[target#anchor]]``,
``[[collection:target]]`` (a lowercase collection name before the colon); Logseq's
``[text]([[target]])`` is one wiki link with that text (not a Markdown link to a file
called ``[[target]]``), ``{{embed [[target]]}}`` links its target and
``{{embed ((block-id))}}`` links nothing (a block id names no document). Markdown
``[text](path#anchor)`` keeps the anchor out of the target. Every pattern is a
single pass over negated character classes: no backtracking on hostile input.
"""

from __future__ import annotations

import bisect
import posixpath
import re
import unicodedata
from dataclasses import dataclass

from gno.core.regions import Regions

_WIKI = re.compile(r"\[\[([^\[\]\n|]+?)(?:\|([^\[\]\n]+?))?\]\]")
# Starts at '[' (a leading lookbehind would run at every offset); '![image](...)' is
# filtered in code.
_MARKDOWN = re.compile(r"\[([^\[\]\n]*)\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"\n]*\")?\s*\)")
_LOGSEQ = re.compile(r"\[([^\[\]\n]*)\]\(\[\[([^\[\]\n]+)\]\]\)")
_COLLECTION_PREFIX = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
MAX_LINK_TEXT = 256


@dataclass(frozen=True)
class Link:
    link_type: str  # "wiki" | "markdown"
    target_ref: str
    target_ref_norm: str
    target_anchor: str | None
    target_collection: str | None
    link_text: str | None
    start_line: int
    start_col: int
    end_line: int
    end_col: int


def _resolve_markdown(target: str, source_rel_path: str) -> str | None:
    if "\\" in target or target.startswith(("/", "//", "#")) or _SCHEME.match(target):
        return None
    path = target.split("#", 1)[0]
    if not path:
        return None
    lowered = path.lower()
    if not any(bad in lowered for bad in ("%2f", "%5c", "%00")):
        path = path.replace("%20", " ").replace("%28", "(").replace("%29", ")")
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(source_rel_path), path))
    if resolved.startswith("../") or resolved == "..":
        return None
    return resolved


def _display(text: str | None, target: str) -> str | None:
    if not text or text == target:
        return None
    return text[:MAX_LINK_TEXT]


def parse_links(mirror: str, source_rel_path: str, regions: Regions | None = None) -> list[Link]:
    if "[" not in mirror:
        return []
    regions = regions or Regions(mirror)

    # (offset, line, line start) of the last position asked: each pass asks in increasing
    # order, so counting newlines from there keeps a note of many links linear (counting
    # from the top for every link took minutes on a few MB of one-link lines).
    cursor = [0, 1, 0]

    def position(offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset; only computed for real links."""
        last, line, line_start = cursor if offset >= cursor[0] else (0, 1, 0)
        if newlines := mirror.count("\n", last, offset):
            line += newlines
            line_start = mirror.rfind("\n", last, offset) + 1
        cursor[:] = offset, line, line_start
        return line, offset - line_start + 1

    found: list[tuple[int, Link]] = []
    logseq_spans: list[tuple[int, int]] = []

    def wiki(start: int, end: int, raw: str, alias: str | None) -> None:
        raw = raw.strip()
        if not raw or raw.startswith("//") or _URL.match(raw) or regions.contains(start):
            return
        collection = None
        if m := _COLLECTION_PREFIX.match(raw):
            collection, raw = m.group(0)[:-1], raw[m.end() :]
        target, _, anchor = raw.partition("#")
        target = target.strip()
        if not target:  # [[#Heading]]: a place in this document, not a link to another
            return
        norm = unicodedata.normalize("NFC", target).lower().strip()
        (sl, sc), (el, ec) = position(start), position(end)
        display = _display(alias.strip() if alias else None, target)
        link = Link(
            "wiki", target, norm, anchor.strip() or None, collection, display, sl, sc, el, ec
        )
        found.append((start, link))

    if "([[" in mirror:
        for m in _LOGSEQ.finditer(mirror):
            logseq_spans.append(m.span())
            wiki(m.start(), m.end(), m.group(2), m.group(1))
    logseq_starts = [start for start, _ in logseq_spans]

    def in_logseq(pos: int) -> bool:
        i = bisect.bisect_right(logseq_starts, pos) - 1
        return i >= 0 and pos < logseq_spans[i][1]

    for m in _WIKI.finditer(mirror):
        if not in_logseq(m.start()):
            wiki(m.start(), m.end(), m.group(1), m.group(2))
    for m in _MARKDOWN.finditer(mirror):
        if m.start() and mirror[m.start() - 1] == "!":
            continue
        if in_logseq(m.start()):
            continue
        raw = m.group(2)
        resolved = _resolve_markdown(raw, source_rel_path)
        if resolved is None or regions.contains(m.start()):
            continue
        target, _, anchor = raw.partition("#")
        (sl, sc), (el, ec) = position(m.start()), position(m.end())
        found.append(
            (
                m.start(),
                Link(
                    "markdown",
                    target,
                    resolved,
                    anchor or None,
                    None,
                    _display(m.group(1), target),
                    sl,
                    sc,
                    el,
                    ec,
                ),
            )
        )
    return [link for _, link in sorted(found, key=lambda item: item[0])]
