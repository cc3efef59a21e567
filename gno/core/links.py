"""Wiki and Markdown link parsing with mirror positions (engine.md §7.1).

Lines and columns are 1-based; columns count code points; ends are exclusive.
Frontmatter, fenced code, inline code and HTML comments never yield links.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from dataclasses import dataclass

from gno.core.regions import Regions

_WIKI = re.compile(r"\[\[([^\[\]\n|]+?)(?:\|([^\[\]\n]+?))?\]\]")
# Starts at '[' (a leading lookbehind would run at every offset); '![image](...)' is
# filtered in code.
_MARKDOWN = re.compile(r"\[([^\[\]\n]*)\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"\n]*\")?\s*\)")
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

    def position(offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset; only computed for real links."""
        line_start = mirror.rfind("\n", 0, offset) + 1
        return mirror.count("\n", 0, line_start) + 1, offset - line_start + 1

    found: list[tuple[int, Link]] = []
    for m in _WIKI.finditer(mirror):
        raw, alias = m.group(1).strip(), m.group(2)
        if not raw or raw.startswith("//") or _URL.match(raw) or regions.contains(m.start()):
            continue
        collection = None
        if re.match(r"^[a-z0-9][a-z0-9_-]{0,63}:", raw):
            collection, raw = raw.split(":", 1)
        target, _, anchor = raw.partition("#")
        norm = unicodedata.normalize("NFC", target).lower().strip()
        (sl, sc), (el, ec) = position(m.start()), position(m.end())
        found.append(
            (
                m.start(),
                Link(
                    "wiki",
                    target,
                    norm,
                    anchor or None,
                    collection,
                    _display(alias, target),
                    sl,
                    sc,
                    el,
                    ec,
                ),
            )
        )
    for m in _MARKDOWN.finditer(mirror):
        if m.start() and mirror[m.start() - 1] == "!":
            continue
        raw = m.group(2)
        resolved = _resolve_markdown(raw, source_rel_path)
        if resolved is None or regions.contains(m.start()):
            continue
        anchor = raw.split("#", 1)[1] if "#" in raw else None
        (sl, sc), (el, ec) = position(m.start()), position(m.end())
        found.append(
            (
                m.start(),
                Link(
                    "markdown",
                    raw,
                    resolved,
                    anchor or None,
                    None,
                    _display(m.group(1), raw),
                    sl,
                    sc,
                    el,
                    ec,
                ),
            )
        )
    return [link for _, link in sorted(found, key=lambda item: item[0])]
