"""Bounded graph walks (engine.md §7.6, §8.1). Pure: nodes are ints, edges opaque ids.

``walk`` is a breadth-first traversal that never exceeds its caps: depth, returned
nodes (root included), returned edges, nodes per frontier, nodes ever visited, and
a work budget of examined steps (so a hub with 10,000 links costs at most that
budget). The first edge that reaches a node is its evidence edge; neighbours are
taken in the order the caller gives, so the result is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field

MAX_WORK = 200_000  # examined steps per walk

# A step from a node: (edge id, the node on the other end)
Step = tuple[int, int]


@dataclass(frozen=True)
class Caps:
    """The bounds of one walk."""

    max_depth: int
    max_nodes: int
    max_edges: int
    frontier_limit: int
    visited_limit: int


@dataclass
class Walk:
    """What a walk reached, how, and why it stopped early."""

    depth: dict[int, int] = field(default_factory=dict)  # node -> hops from the root
    parent: dict[int, tuple[int, int]] = field(default_factory=dict)  # node -> (edge, prev)
    order: list[int] = field(default_factory=list)  # discovery order, root first
    edges: list[tuple[int, int]] = field(default_factory=list)  # (edge id, depth)
    truncated: bool = False
    reasons: list[str] = field(default_factory=list)

    def cut(self, reason: str) -> None:
        self.truncated = True
        if reason not in self.reasons:
            self.reasons.append(reason)

    def path(self, node: int) -> list[int]:
        """Edge ids from ``node`` back to the root."""
        edges = []
        while node in self.parent:
            edge, node = self.parent[node]
            edges.append(edge)
        return edges


def walk(
    root: int,
    steps: Callable[[int], Sequence[Step]],
    caps: Caps,
    *,
    cross_edges: bool = False,
) -> Walk:
    """Breadth-first from ``root``; ``cross_edges`` also returns edges between nodes
    already found (graph query), otherwise only the edges that found a node (impact)."""
    result = Walk(depth={root: 0}, order=[root])
    seen_edges: set[int] = set()
    frontier, work = [root], 0
    for depth in range(1, caps.max_depth + 1):
        nxt: list[int] = []
        for node in frontier:
            for edge, other in steps(node):
                work += 1
                if work > MAX_WORK:
                    result.cut("work budget reached")
                    return result
                if edge in seen_edges:
                    continue
                if other in result.depth:
                    if cross_edges and other != node:
                        if len(result.edges) >= caps.max_edges:
                            result.cut("maxEdges reached")
                            return result
                        seen_edges.add(edge)
                        result.edges.append((edge, depth))
                    continue
                if len(result.depth) >= caps.visited_limit:
                    result.cut("visitedLimit reached")
                    return result
                if len(result.order) >= caps.max_nodes:
                    result.cut("maxNodes reached")
                    return result
                if len(result.edges) >= caps.max_edges:
                    result.cut("maxEdges reached")
                    return result
                if len(nxt) >= caps.frontier_limit:
                    result.cut("frontierLimit reached")
                    continue
                seen_edges.add(edge)
                result.depth[other] = depth
                result.parent[other] = (edge, node)
                result.order.append(other)
                result.edges.append((edge, depth))
                nxt.append(other)
        frontier = nxt
        if not frontier:
            return result
    # Stopped by depth: truncated only if something lay beyond it.
    if any(other not in result.depth for node in frontier for _, other in steps(node)[:64]):
        result.cut("maxDepth reached")
    return result


def shortest_path(
    start: int, goal: int, steps: Callable[[int], Sequence[Step]], max_depth: int
) -> list[tuple[int, int]] | None:
    """(edge id, node reached) hops of a shortest path, or None within ``max_depth``."""
    if start == goal:
        return []
    parent: dict[int, tuple[int, int]] = {start: (-1, -1)}
    frontier, work = [start], 0
    for _ in range(max_depth):
        nxt = []
        for node in frontier:
            for edge, other in steps(node):
                work += 1
                if work > MAX_WORK:
                    return None
                if other in parent:
                    continue
                parent[other] = (edge, node)
                if other == goal:
                    hops = []
                    while other != start:
                        edge, prev = parent[other]
                        hops.append((edge, other))
                        other = prev
                    return hops[::-1]
                nxt.append(other)
        frontier = nxt
        if not frontier:
            return None
    return None


# ------------------------------------------------------------------ communities

MAX_SWEEPS = 8


def label_propagation(
    nodes: Iterable[str], edges: Iterable[tuple[str, str, float]]
) -> dict[str, str]:
    """Deterministic label propagation: node -> community label (a member's key).

    Nodes are visited in sorted order for at most MAX_SWEEPS sweeps; each takes the
    label with the largest summed edge strength among its neighbours (undirected),
    ties to the lexicographically smaller label. Input order never matters.
    """
    keys = sorted(set(nodes))
    adjacency: dict[str, dict[str, float]] = {k: {} for k in keys}
    for a, b, strength in sorted(edges):
        if a == b or a not in adjacency or b not in adjacency:
            continue
        adjacency[a][b] = adjacency[a].get(b, 0.0) + strength
        adjacency[b][a] = adjacency[b].get(a, 0.0) + strength
    label = {k: k for k in keys}
    for _ in range(MAX_SWEEPS):
        changed = False
        for key in keys:
            weights: dict[str, float] = {}
            for other, strength in sorted(adjacency[key].items()):
                weights[label[other]] = weights.get(label[other], 0.0) + strength
            if not weights:
                continue
            best = min(weights, key=lambda lab: (-round(weights[lab], 9), lab))
            if best != label[key]:
                label[key], changed = best, True
        if not changed:
            break
    return label


def group(labels: dict[str, str]) -> list[list[str]]:
    groups: dict[Hashable, list[str]] = {}
    for key in sorted(labels):
        groups.setdefault(labels[key], []).append(key)
    return list(groups.values())
