"""Graph expansion: neighbours of the best hits over the typed edge layer of the graph
tools (links resolved at read time, frontmatter relations), ranked."""

from __future__ import annotations

from gno.services.filters import Filters
from gno.services.graph import graph_neighbours
from tests.conftest import sync

FILES = {
    "hub.md": "# Hub\n\nThe zephyrquartz hub. See [[Spoke One]] and [two](deep/spoke-two.md).\n",
    "spoke-one.md": "---\ntitle: Spoke One\n---\nFirst spoke text.\n",
    "deep/spoke-two.md": "# Spoke Two\n\nSecond spoke text.\n",
    "fan.md": "# Fan\n\nI point back at [[hub]] twice: [[Hub]].\n",
    "stranger.md": "# Stranger\n\nUnlinked text.\n",
    "nested/dup/note.md": "# Note A\n\nOne note.\n",
    "other/note.md": "# Note B\n\nAnother note.\n",
    "asker.md": "# Asker\n\nWhich [[note]] is it?\n",
    "ranks.md": "# Ranks\n\n[[some/Spoke One]], [[x/deep/spoke-two]] and [[Spoke One.md]].\n",
    "needs.md": "---\nrelations:\n  depends_on: [hub.md]\n---\n# Needs\n\nNo link in the text.\n",
}


def _mirror(store, rel_path: str) -> str:
    return store.document_by_path("notes", rel_path).mirror_hash


def _doc(store, rel_path: str) -> int:
    return store.document_by_path("notes", rel_path).id


def test_neighbours_in_both_directions(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    store = app.store()
    found = graph_neighbours(store, [_mirror(store, "hub.md")], Filters(), 20).mirrors
    names = {
        _mirror(store, p): p
        for p in ("spoke-one.md", "deep/spoke-two.md", "fan.md", "stranger.md", "needs.md")
    }
    assert {names[m] for m in found} == {"spoke-one.md", "deep/spoke-two.md", "fan.md", "needs.md"}
    assert names[found[0]] == "fan.md"  # two links to the seed outweigh one


def test_seeds_are_not_their_own_neighbours(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    store = app.store()
    seeds = [_mirror(store, "hub.md"), _mirror(store, "fan.md")]
    found = graph_neighbours(store, seeds, Filters(), 20).mirrors
    assert not set(found) & set(seeds)
    assert _mirror(store, "spoke-one.md") in found


def test_confidence_of_resolution(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    store = app.store()
    proj = store.projection()
    edges = {(e.source, e.target): e.graph_confidence for e in proj.edges}
    assert edges[_doc(store, "hub.md"), _doc(store, "spoke-one.md")] == "explicit"  # title
    assert edges[_doc(store, "hub.md"), _doc(store, "deep/spoke-two.md")] == "explicit"  # path
    assert edges[_doc(store, "fan.md"), _doc(store, "hub.md")] == "explicit"  # backlink, stem
    # [[note]] matches two paths by suffix: both kept, ambiguous
    assert edges[_doc(store, "asker.md"), _doc(store, "nested/dup/note.md")] == "ambiguous"
    assert edges[_doc(store, "asker.md"), _doc(store, "other/note.md")] == "ambiguous"


def test_expansion_and_graph_tools_agree_on_every_seed(make_app) -> None:
    """For each document as the only seed, the expansion's candidates are exactly its
    one-hop neighbours in `gno graph query` (same typed edges, relations included)."""
    from gno_contracts.models.graph_query_input import GraphQueryInput

    from gno.services.graph_walks import graph_query

    app, _ = make_app(FILES)
    sync(app)
    store = app.store()
    for rel_path in FILES:
        found = graph_neighbours(store, [_mirror(store, rel_path)], Filters(), 20).mirrors
        walked = graph_query(app, GraphQueryInput(ref=f"notes/{rel_path}", maxDepth=1))
        near = {_mirror(store, n.relPath) for n in walked.nodes[1:]}
        assert set(found) == near, rel_path
    needs = graph_neighbours(store, [_mirror(store, "hub.md")], Filters(), 20).mirrors
    assert _mirror(store, "needs.md") in needs  # a frontmatter relation is an edge too


def test_owner_filters_apply_to_neighbours(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    store = app.store()
    only_deep = Filters(exclude=["spoke one", "fan", "needs"])
    found = graph_neighbours(store, [_mirror(store, "hub.md")], only_deep, 20).mirrors
    assert found == [_mirror(store, "deep/spoke-two.md")]


def test_inactive_documents_are_not_neighbours(make_app) -> None:
    app, root = make_app(FILES)
    sync(app)
    (root / "fan.md").unlink()
    sync(app)
    store = app.store()
    found = graph_neighbours(store, [_mirror(store, "hub.md")], Filters(), 20).mirrors
    assert all(store.documents_with_mirrors([m]) for m in found)
    assert len(found) == 3  # the two spokes and needs.md


def _query(app, text: str, **kwargs):
    from gno_contracts.models.query_input import QueryInput

    from gno.services.query import query

    return query(app, QueryInput(query=text, limit=10, **kwargs))


def test_query_brings_linked_documents(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    result = _query(app, "zephyrquartz")
    uris = [r.uri for r in result.results]
    assert uris[0] == "gno://notes/hub.md"  # the only lexical hit stays first
    assert {"gno://notes/spoke-one.md", "gno://notes/fan.md"} <= set(uris[1:])
    assert "gno://notes/stranger.md" not in uris
    summary = result.meta.graphExpansion
    assert summary.seedCount == 1 and summary.candidateCount == 4  # + needs.md (relation)
    assert summary.edgeConfidence.explicit == 5  # two links out, two back, one relation

    plain = _query(app, "zephyrquartz", noGraph=True)
    assert [r.uri for r in plain.results] == ["gno://notes/hub.md"]
    assert plain.meta.graphExpansion is None
    assert [r.uri for r in _query(app, "zephyrquartz", fast=True).results] == ["gno://notes/hub.md"]


def _touching(proj, doc_id: int | None = None) -> set[tuple[int, int, str, str, str]]:
    """The projection's edges (those touching ``doc_id`` when given) as comparable tuples."""
    return {
        (e.source, e.target, e.edge_type, e.edge_source, e.graph_confidence)
        for e in proj.edges
        if doc_id is None or doc_id in (e.source, e.target)
    }


def test_a_second_query_in_one_index_state_keeps_the_whole_projection(make_app) -> None:
    """A resident process's first graph stage resolves only its seeds; its second in the
    same index state builds the full projection and keeps it, so every later one reads it;
    after a change the next stage is a seed projection again."""
    from gno.app import App

    app, root = make_app(FILES)
    sync(app)
    store = App(app.paths).store()
    hub, spoke = _doc(store, "hub.md"), _doc(store, "spoke-one.md")
    first = store.seed_projection([hub])
    assert not store.projection_kept()
    second = store.seed_projection([spoke])
    assert store.projection_kept()
    assert _touching(first, hub) == _touching(second, hub)
    assert store.seed_projection([hub]) is second  # kept, not rebuilt
    (root / "late.md").write_text("# Late\n\nSee [[hub]].\n")
    sync(app)
    after = store.seed_projection([hub])
    assert not store.projection_kept() and after is not second
    assert _touching(after, hub) == _touching(App(app.paths).store().projection(), hub)


def test_seed_projection_has_exactly_the_full_projections_edges_of_its_seeds(make_app) -> None:
    """What `gno query`'s graph stage resolves (only the links that can touch the seeds:
    written by one, naming one by path or title, or by a `/`-tail of its path in any ASCII
    case) is the full projection's edges of those seeds, also after the index changed
    (the store keeps the active documents per index state)."""
    from gno.app import App

    files = FILES | {"tails.md": "# Tails\n\n[[X/DEEP/Spoke-Two]] and [[Nested/Dup/NOTE]].\n"}
    app, root = make_app(files)
    sync(app)
    # Connections of their own that the syncs below do not use, kept across the change:
    # ``seeded`` never builds the full projection (which seed_projection would answer
    # with), ``kept`` only that; each is compared with a store that has nothing cached.
    kept, seeded = App(app.paths).store(), App(app.paths).store()
    for changed in (False, True):
        if changed:
            (root / "late.md").write_text("# Late\n\nSee [[Spoke One]] and [[hub]].\n")
            (root / "fan.md").unlink()
            sync(app)
        whole = App(app.paths).store().projection()
        assert _touching(kept.projection()) == _touching(whole)
        for rel_path in sorted({*files, "late.md"} - ({"fan.md"} if changed else {"late.md"})):
            doc = _doc(seeded, rel_path)
            seeded._seeded = None  # each call as a one-shot `gno query`'s (see the next test)
            seed = seeded.seed_projection([doc])
            assert _touching(seed, doc) == _touching(whole, doc), rel_path
            # the link groups naming it too: what `gno backlinks` lists
            assert seed.link_refs.get(doc) == whole.link_refs.get(doc), rel_path
        assert seeded._projection is None  # every answer above was a seed projection
        tails = _doc(seeded, "tails.md")
        assert len(_touching(whole, tails)) == 2  # both tails resolve, case folded
