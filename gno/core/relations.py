"""Typed edges a document declares or implies (engine.md §7.3). Pure.

Wiki links are ``mentions`` edges, Markdown links ``related_to`` (confidence
``parsed``); frontmatter ``relations: {edge_type: [targets]}`` adds ``manual``
edges. Edge types are lower snake case; anything else is dropped.
"""

from __future__ import annotations

import re

WIKI_EDGE = "mentions"
MARKDOWN_EDGE = "related_to"
EDGE_TYPE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
MAX_RELATIONS = 256  # per document
MAX_TARGET = 1024

# (link type or "relation") -> (edge source, confidence)
EDGE_SOURCES = {
    "wiki": ("wikilink", "parsed"),
    "markdown": ("markdown-link", "parsed"),
    "relation": ("frontmatter-relation", "manual"),
}


def link_edge_type(link_type: str) -> str:
    return WIKI_EDGE if link_type == "wiki" else MARKDOWN_EDGE


def frontmatter_relations(mirror: str) -> list[tuple[str, str]]:
    """(edge type, target ref) pairs of the frontmatter's ``relations`` map, in order,
    without duplicates, at most MAX_RELATIONS."""
    if not mirror.startswith("---"):
        return []
    # sync's: a graph read needs only the edge types above, not the frontmatter parser
    from gno.core.frontmatter import normalize_key, parse_frontmatter
    from gno.core.frontmatter_span import frontmatter_span

    # Only a block that names the key is parsed again. The block is the parser's, however
    # long: a fixed 64 KiB prefix dropped the relations of a frontmatter with a long field.
    if mirror.find("relations", 0, frontmatter_span(mirror)[1]) < 0:
        return []

    data = parse_frontmatter(mirror).data.get("relations")
    if not isinstance(data, dict):
        return []
    found: dict[tuple[str, str], None] = {}
    for key, value in data.items():
        edge_type = normalize_key(str(key))
        if not EDGE_TYPE.match(edge_type):
            continue
        targets = value if isinstance(value, list) else [value]
        for target in targets:
            if not isinstance(target, str):
                continue
            target = target.strip().removeprefix("[[").removesuffix("]]").strip()
            if target and len(target) <= MAX_TARGET:
                found[edge_type, target] = None
            if len(found) >= MAX_RELATIONS:
                return list(found)
    return list(found)
