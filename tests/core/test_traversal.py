"""Bounded walks never exceed a cap; communities do not depend on input order;
link resolution follows GNO's ranks."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.link_resolver import Doc, Resolver
from gno.core.traversal import Caps, group, label_propagation, shortest_path, walk
from gno.core.typed_graph import build_projection

edges_strategy = st.lists(
    st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=0, max_size=300
)
caps_strategy = st.builds(
    Caps,
    st.integers(1, 6),
    st.integers(1, 30),
    st.integers(1, 60),
    st.integers(1, 20),
    st.integers(1, 50),
)


def _steps(edges: list[tuple[int, int]]):
    adjacency: defaultdict[int, list[tuple[int, int]]] = defaultdict(list)
    for n, (a, b) in enumerate(edges):
        adjacency[a].append((n, b))
        adjacency[b].append((n, a))
    return lambda node: adjacency[node]


@settings(max_examples=300)
@given(edges_strategy, caps_strategy, st.booleans())
def test_walk_never_exceeds_a_cap(edges, caps: Caps, cross: bool) -> None:
    result = walk(0, _steps(edges), caps, cross_edges=cross)
    assert len(result.order) <= caps.max_nodes
    assert len(result.edges) <= caps.max_edges
    assert len(result.depth) <= max(1, caps.visited_limit)
    assert max(result.depth.values()) <= caps.max_depth
    per_depth: defaultdict[int, int] = defaultdict(int)
    for node in result.order[1:]:
        per_depth[result.depth[node]] += 1
        assert 1 <= len(result.path(node)) == result.depth[node]  # one evidence path
    assert all(count <= caps.frontier_limit for count in per_depth.values())
    assert len({e for e, _ in result.edges}) == len(result.edges)


@given(edges_strategy)
def test_walk_without_caps_reaches_the_component(edges) -> None:
    big = Caps(6, 10_000, 10_000, 10_000, 10_000)
    result = walk(0, _steps(edges), big)
    assert not result.truncated or "maxDepth reached" in result.reasons
    if not result.truncated:
        reached, frontier = {0}, [0]
        steps = _steps(edges)
        while frontier:
            frontier = [o for n in frontier for _, o in steps(n) if o not in reached]
            reached |= set(frontier)
        assert set(result.order) == reached


def test_cycles_and_a_hub_with_ten_thousand_links_stay_bounded() -> None:
    hub_edges = [(i, 0) for i in range(1, 10_001)] + [(0, 0), (1, 2), (2, 1)]
    caps = Caps(3, 100, 250, 100, 500)
    result = walk(0, _steps(hub_edges), caps)
    assert len(result.order) == 100 and result.truncated
    assert shortest_path(1, 2, _steps(hub_edges), 6) is not None


@given(
    st.lists(
        st.tuples(
            st.text("abcdef", min_size=1, max_size=3),
            st.text("abcdef", min_size=1, max_size=3),
            st.floats(0.01, 5),
        ),
        max_size=60,
    ),
    st.randoms(),
)
def test_communities_do_not_depend_on_insertion_order(edges, rnd) -> None:
    nodes = sorted({a for a, _, _ in edges} | {b for _, b, _ in edges})
    first = label_propagation(nodes, edges)
    shuffled_nodes, shuffled_edges = list(nodes), list(edges)
    rnd.shuffle(shuffled_nodes)
    rnd.shuffle(shuffled_edges)
    assert label_propagation(shuffled_nodes, shuffled_edges) == first
    assert sorted(map(sorted, group(first))) == sorted(map(sorted, group(first)))
    assert all(label in first for label in first.values())  # labels are member keys


def test_two_cliques_are_two_communities() -> None:
    edges = [(a, b, 1.0) for a in "abc" for b in "abc" if a < b]
    edges += [(a, b, 1.0) for a in "xyz" for b in "xyz" if a < b]
    edges.append(("c", "x", 0.01))
    groups = sorted(group(label_propagation("abcxyz", edges)))
    assert groups == [["a", "b", "c"], ["x", "y", "z"]]


def _docs(*specs: tuple[int, str, str | None]) -> list[Doc]:
    return [Doc(i, "n", path, f"#{i:08x}", f"gno://n/{path}", title) for i, path, title in specs]


def test_wiki_ranks_and_confidence() -> None:
    resolver = Resolver(
        _docs(
            (1, "people/alice.md", "Alice"),
            (2, "notes/alice-notes.md", "Notes"),
            (3, "a/dup.md", None),
            (4, "b/dup.md", None),
            (5, "deep/path/target.md", "Far"),
        )
    )
    assert (resolver.wiki("n", "alice").targets, resolver.wiki("n", "alice").confidence) == (
        (1,),
        "explicit",
    )
    assert resolver.wiki("n", "notes/alice-notes").confidence == "explicit"  # path + .md
    assert resolver.wiki("n", "people/alice").rank == 3  # ends with /title: before paths
    assert resolver.wiki("n", "people/alice").confidence == "inferred"
    suffix = resolver.wiki("n", "path/target")
    assert suffix.targets == (5,) and suffix.confidence == "inferred"
    assert resolver.wiki("n", "dup").confidence == "ambiguous"
    assert resolver.wiki("n", "dup").targets == (3, 4)
    assert resolver.wiki("other", "alice").targets == ()
    assert resolver.markdown("n", "people/alice.md").targets == (1,)
    assert resolver.relation("n", "#00000005").targets == (5,)
    assert resolver.relation("n", "gno://n/people/alice.md").targets == (1,)
    assert resolver.relation("n", "n:a/dup.md").targets == (3,)


def test_projection_drops_self_links_and_counts_unresolved() -> None:
    docs = _docs((1, "a.md", "A"), (2, "b.md", "B"))
    links = [
        (1, "wiki", "a", "n", 1),  # self
        (1, "wiki", "b", "n", 2),
        (1, "markdown", "nope.md", "n", 3),
        (2, "wiki", "ghost", "n", 1),
    ]
    proj = build_projection(docs, links, [(2, "depends_on", "a.md", "n")])
    assert [(e.source, e.target, e.edge_type, e.weight) for e in proj.edges] == [
        (1, 2, "mentions", 2),
        (2, 1, "depends_on", 1),
    ]
    assert proj.unresolved == {"wiki": 1, "markdown": 3}
