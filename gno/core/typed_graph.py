"""The typed edge layer of an index, resolved in memory (engine.md §7.2–7.3). Pure.

Built from the active documents, their stored links (grouped: one row per source,
link type, target and collection, with the number of links) and their frontmatter
relations. Every resolved link becomes one edge per target document:

- wiki link → ``mentions`` (edge source ``wikilink``), Markdown link → ``related_to``
  (``markdown-link``); typed confidence ``parsed``, or ``inferred`` when the target was
  found by a suffix rank or is ambiguous;
- frontmatter relation → its own type, confidence ``manual``
  (``frontmatter-relation``);
- a link written by a document whose content type has graph hints (``hints``: document
  id → the type's hints) takes the first hint as its edge type instead, confidence
  ``configured`` (engine.md §1.6, §7.3; ``inferred`` still wins for a link found by a
  suffix rank or ambiguous); its edge source stays the link's.

Self-links are dropped; links that name no active document are counted as unresolved.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from gno.core.link_resolver import Doc, Resolution, Resolver
from gno.core.relations import EDGE_SOURCES, link_edge_type


@dataclass(frozen=True, slots=True)
class TypedEdge:
    """One edge of the typed graph between two documents."""

    id: int
    source: int
    target: int
    edge_type: str
    confidence: str  # parsed | manual | inferred (typed layer)
    edge_source: str  # wikilink | markdown-link | frontmatter-relation
    link_type: str  # wiki | markdown | relation
    graph_confidence: str  # explicit | inferred | ambiguous (graph@1.0)
    resolution: str  # audit.resolution of graph@1.0
    match_count: int
    weight: float  # links between the pair behind this edge (a similarity edge: its score)


# (source doc id, link type, target_ref_norm, target collection, number of links)
LinkGroup = tuple[int, str, str, str, int]
# (source doc id, edge type, target ref, source collection)
RelationRow = tuple[int, str, str, str]


@dataclass
class Projection:
    """The typed graph built from the link rows: edges by end, unresolved counts."""

    resolver: Resolver
    edges: list[TypedEdge] = field(default_factory=list)
    out: dict[int, list[TypedEdge]] = field(default_factory=dict)
    inbound: dict[int, list[TypedEdge]] = field(default_factory=dict)
    unresolved: dict[str, int] = field(default_factory=lambda: {"wiki": 0, "markdown": 0})
    unresolved_by_collection: dict[str, dict[str, int]] = field(default_factory=dict)
    # target -> (source, link type, target_ref_norm, collection) of the link groups naming it
    link_refs: dict[int, set[tuple[int, str, str, str]]] = field(default_factory=dict)
    # document -> its content type's graph hints (graph query nodes' ``graphHints``)
    graph_hints: dict[int, tuple[str, ...]] = field(default_factory=dict)

    @property
    def docs(self) -> dict[int, Doc]:
        return self.resolver.docs


def build_projection(
    docs: Iterable[Doc],
    links: Iterable[LinkGroup],
    relations: Iterable[RelationRow],
    hints: Mapping[int, Sequence[str]] | None = None,
) -> Projection:
    resolver = Resolver(docs)
    proj = Projection(resolver)
    proj.graph_hints = {doc: tuple(h) for doc, h in (hints or {}).items() if h}
    active = resolver.docs
    pending: list[tuple[int, str, str, Resolution, int]] = []
    for source, link_type, norm, collection, count in links:
        if source not in active:
            continue
        found = (
            resolver.markdown(collection, norm)
            if link_type == "markdown"
            else resolver.wiki(collection, norm)
        )
        if not found.targets:
            if link_type in proj.unresolved:
                proj.unresolved[link_type] += count
                own = active[source].collection
                per = proj.unresolved_by_collection.setdefault(own, {"wiki": 0, "markdown": 0})
                per[link_type] += count
            continue
        hinted = (hints or {}).get(source)
        edge_type = hinted[0] if hinted else link_edge_type(link_type)
        pending.append((source, link_type, edge_type, found, count))
        for target in found.targets:
            proj.link_refs.setdefault(target, set()).add((source, link_type, norm, collection))
    for rel_source, edge_type, rel_target, rel_collection in relations:
        if rel_source not in active:
            continue
        found = resolver.relation(rel_collection, rel_target)
        if found.targets:
            pending.append((rel_source, "relation", edge_type, found, 1))
    # One edge per (source, target, type, edge source); weights add up.
    kinds: dict[tuple[int, int, str, str], tuple[str, str, Resolution]] = {}
    weights: defaultdict[tuple[int, int, str, str], int] = defaultdict(int)
    for source, link_type, edge_type, found, count in pending:
        edge_source, typed = EDGE_SOURCES[link_type]
        if link_type != "relation" and found.confidence != "explicit":
            typed = "inferred"
        elif link_type != "relation" and hints and hints.get(source):
            typed = "configured"
        for target in found.targets:
            if target != source:
                key = (source, target, edge_type, edge_source)
                kinds.setdefault(key, (typed, link_type, found))
                weights[key] += count
    out: defaultdict[int, list[TypedEdge]] = defaultdict(list)
    inbound: defaultdict[int, list[TypedEdge]] = defaultdict(list)
    for n, key in enumerate(sorted(kinds)):
        typed, link_type, found = kinds[key]
        edge = TypedEdge(
            n, key[0], key[1], key[2], typed, key[3], link_type, found.confidence,
            found.audit, len(found.targets), weights[key],
        )  # fmt: skip
        proj.edges.append(edge)
        out[edge.source].append(edge)
        inbound[edge.target].append(edge)
    proj.out, proj.inbound = dict(out), dict(inbound)
    return proj
