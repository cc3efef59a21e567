"""Property: `impact` and `graph query` never exceed a cap, on a real index of a dense
link graph with cycles, self-links, wiki and Markdown links and relations; every answer
is deterministic (the same input twice gives the same output)."""

from __future__ import annotations

import random

from gno_contracts.models.graph_query_input import GraphQueryInput
from gno_contracts.models.impact_input import ImpactInput
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.services.graph_walks import graph_query, impact
from tests.conftest import sync

DOCS = 60


def _files() -> dict[str, str]:
    rnd = random.Random(20)
    files = {}
    for i in range(DOCS):
        targets = [*rnd.sample(range(DOCS), 6), i]  # a self-link too
        body = " ".join(
            f"[[n{t:02}]]" if k % 2 else f"[m](n{t:02}.md)" for k, t in enumerate(targets)
        )
        head = f"---\nrelations:\n  depends_on: [n{(i + 1) % DOCS:02}.md]\n---\n" if i % 3 else ""
        files[f"n{i:02}.md"] = f"{head}# N{i}\n\n{body}\n"
    return files


def test_impact_and_graph_query_stay_within_caps(make_app) -> None:
    app, _ = make_app(_files())
    sync(app)

    @settings(max_examples=60, deadline=None)
    @given(
        root=st.integers(0, DOCS - 1),
        depth=st.integers(1, 6),
        nodes=st.integers(1, 40),
        edges=st.integers(1, 80),
        frontier=st.integers(1, 20),
        visited=st.integers(1, 60),
        direction=st.sampled_from(["out", "in", "both"]),
    )
    def check(
        root: int, depth: int, nodes: int, edges: int, frontier: int, visited: int, direction: str
    ) -> None:
        ref = f"notes/n{root:02}.md"
        inp = ImpactInput(
            ref=ref,
            maxDepth=depth,
            maxNodes=nodes,
            maxEdges=edges,
            frontierLimit=frontier,
            visitedLimit=visited,
        )
        out = impact(app, inp)
        assert len(out.impacted) + 1 <= nodes and out.meta.returnedNodes <= nodes
        assert out.meta.returnedEdges <= edges
        assert all(1 <= x.depth <= depth == out.meta.maxDepth for x in out.impacted)
        assert all(len(x.evidencePath) == x.depth for x in out.impacted)
        assert out == impact(app, inp)
        query = GraphQueryInput(
            ref=ref,
            direction=direction,
            maxDepth=depth,
            maxNodes=nodes,
            frontierLimit=frontier,
            visitedLimit=visited,
        )
        walked = graph_query(app, query)
        assert len(walked.nodes) <= nodes and len(walked.edges) <= 50 * nodes
        assert all(n.depth <= depth for n in walked.nodes)
        assert all(e.source != e.target for e in walked.edges)
        assert walked == graph_query(app, query)

    check()
