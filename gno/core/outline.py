"""A document's outline for the ``outline_fts`` table (the ``outlineLeg`` stage of
``gno query``, issue 12): the words a page is named and sectioned by. Pure.

The title column gets the title and the frontmatter's ``linkTitle``; the outline column the
frontmatter's ``description`` and every Markdown heading outside code fences. Both are
pieces of the mirror text already given to ``documents_fts`` (``index_text`` applied), so a
term found here is also found in the body: the outline table changes how questions rank
pages, never which pages a search can find.
"""

from __future__ import annotations

from gno.core.journal import atx_headings

FRONT_KEYS = ("linkTitle", "description")


def frontmatter_fields(markdown: str) -> dict[str, str]:
    """One-line ``linkTitle`` and ``description`` values of a YAML frontmatter block."""
    if not markdown.startswith("---\n"):
        return {}
    end = markdown.find("\n---", 3)
    if end < 0:
        return {}
    found: dict[str, str] = {}
    for line in markdown[4:end].splitlines():
        key, sep, value = line.partition(":")
        value = value.strip().strip("'\"")
        if sep and key in FRONT_KEYS and value and value not in (">", "|", ">-", "|-"):
            found[key] = value
    return found


def headings(markdown: str) -> list[str]:
    """ATX headings outside fenced code and outside the frontmatter, in order, as the
    journal reads them (``core.journal.atx_headings``: linear scans, CommonMark's closing
    ``#`` sequence, ``C#`` kept)."""
    start_line = 0
    if markdown.startswith("---\n") and (end := markdown.find("\n---", 3)) >= 0:
        start_line = markdown.count("\n", 0, end + 1) + 1  # through the closing line
    return [text for _, text in atx_headings(markdown, start_line)]


def outline_fields(title: str | None, markdown: str) -> tuple[str, str]:
    """(title column, outline column) of one document."""
    front = frontmatter_fields(markdown)
    names = " ".join(x for x in (title, front.get("linkTitle")) if x)
    return names, "\n".join(
        [*([front["description"]] if "description" in front else []), *headings(markdown)]
    )
