"""Where a Markdown document's frontmatter block ends, found without parsing it: what a search
hit's snippet needs (gno/services/results.py), kept apart from the parser
(gno/core/frontmatter.py) so a search does not build the parser's types and patterns."""

from __future__ import annotations

import re

FRONTMATTER_RE = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.S)


def frontmatter_span(text: str) -> tuple[int, int]:
    """(last line, end offset) of the frontmatter block without parsing it; (0, 0) if none."""
    match = FRONTMATTER_RE.match(text)
    return (text.count("\n", 0, match.end()), match.end()) if match else (0, 0)
