"""What a sync records of the content-type rules for the graph reads: each type's graph
hints and the temporal types (``schema_meta`` key ``RULES_META``). Kept apart from
``gno.core.content_types`` so a graph read parses it without importing the rules'
machinery (hashlib, datetime: ~5 ms of every `gno links`)."""

from __future__ import annotations

import json

GRAPH_HINTS = ("mentions", "works_at", "attended", "decided", "related_to")

RULES_META = "content_type_rules"
# A document is classified by a rule (not by the built-in heuristics) from these sources.
RULE_SOURCES = ("frontmatter-type", "prefix")


def parse_rules_meta(text: str | None) -> tuple[dict[str, tuple[str, ...]], frozenset[str]]:
    """(type id -> graph hints, temporal type ids) from ``rules_meta`` text; empty when
    absent or unreadable (an index no sync with rules has touched)."""
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}, frozenset()
    if not isinstance(data, dict):
        return {}, frozenset()
    raw_hints = data.get("hints")
    edges = {
        str(k): tuple(h for h in v if h in GRAPH_HINTS)
        for k, v in (raw_hints.items() if isinstance(raw_hints, dict) else ())
        if isinstance(v, list) and v and all(h in GRAPH_HINTS for h in v)
    }
    raw_temporal = data.get("temporal")
    temporal = (
        frozenset(str(t) for t in raw_temporal) if isinstance(raw_temporal, list) else frozenset()
    )
    return edges, temporal
