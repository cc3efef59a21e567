"""Where a Markdown document's frontmatter block ends, found without parsing it: what a search
hit's snippet needs (gno/services/results.py), kept apart from the parser
(gno/core/frontmatter.py) so a search does not build the parser's types and patterns."""

from __future__ import annotations

import re

FRONTMATTER_RE = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.S)
# The same block in a file's own text, before the mirror drops its byte-order marks and
# turns CRLF and CR into LF (core/mirror.py): where a rewrite of the file finds it.
_NL = r"(?:\r\n?|\n)"
_FILE_FRONTMATTER_RE = re.compile(rf"\A\ufeff*---[ \t]*{_NL}(.*?{_NL})?---[ \t]*(?:{_NL}|\Z)", re.S)


def frontmatter_span(text: str) -> tuple[int, int]:
    """(last line, end offset) of the frontmatter block without parsing it; (0, 0) if none."""
    match = FRONTMATTER_RE.match(text)
    return (text.count("\n", 0, match.end()), match.end()) if match else (0, 0)


def file_frontmatter_end(text: str) -> int:
    """Where the frontmatter block the index sees ends in the file's own text (a BOM
    before it, CRLF or CR line ends); 0 if none."""
    match = _FILE_FRONTMATTER_RE.match(text)
    return match.end() if match else 0
