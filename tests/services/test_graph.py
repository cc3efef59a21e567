"""Graph expansion: links resolved at read time, neighbours of the best hits ranked."""

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
        _mirror(store, p): p for p in ("spoke-one.md", "deep/spoke-two.md", "fan.md", "stranger.md")
    }
    assert {names[m] for m in found} == {"spoke-one.md", "deep/spoke-two.md", "fan.md"}
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
    edges = {
        (s, t): c for s, t, c in store.link_edges([_doc(store, "hub.md"), _doc(store, "asker.md")])
    }
    assert edges[_doc(store, "hub.md"), _doc(store, "spoke-one.md")] == "explicit"  # title
    assert edges[_doc(store, "hub.md"), _doc(store, "deep/spoke-two.md")] == "explicit"  # path
    assert edges[_doc(store, "fan.md"), _doc(store, "hub.md")] == "explicit"  # backlink, stem
    # [[note]] matches two paths by suffix: both kept, ambiguous
    assert edges[_doc(store, "asker.md"), _doc(store, "nested/dup/note.md")] == "ambiguous"
    assert edges[_doc(store, "asker.md"), _doc(store, "other/note.md")] == "ambiguous"


def test_owner_filters_apply_to_neighbours(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    store = app.store()
    only_deep = Filters(exclude=["spoke one", "fan"])
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
    assert len(found) == 2


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
    assert summary.seedCount == 1 and summary.candidateCount == 3
    assert summary.edgeConfidence.explicit == 4  # two outgoing links, two backlinks

    plain = _query(app, "zephyrquartz", noGraph=True)
    assert [r.uri for r in plain.results] == ["gno://notes/hub.md"]
    assert plain.meta.graphExpansion is None
    assert [r.uri for r in _query(app, "zephyrquartz", fast=True).results] == ["gno://notes/hub.md"]
