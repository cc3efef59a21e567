"""Graph read handlers on real indexes built by real syncs: links, backlinks, tags,
impact, graph query, neighbours and path, the graph report, similar; hostile input."""

from __future__ import annotations

import pydantic
import pytest
from gno_contracts.models.backlinks_input import BacklinksInput
from gno_contracts.models.graph_input import GraphInput
from gno_contracts.models.graph_neighbors_input import GraphNeighborsInput
from gno_contracts.models.graph_path_input import GraphPathInput
from gno_contracts.models.graph_query_input import GraphQueryInput
from gno_contracts.models.impact_input import ImpactInput
from gno_contracts.models.links_input import LinksInput
from gno_contracts.models.similar_input import SimilarInput
from gno_contracts.models.tags_input import TagsInput

from gno.errors import DocumentNotFoundError, NotFoundError, UnavailableError, ValidationError
from gno.services.graph_nodes import neighbors, path
from gno.services.graph_report import graph
from gno.services.graph_walks import graph_query, impact
from gno.services.links import backlinks, links, tags
from gno.services.similar import similar
from tests.conftest import sync

FILES = {
    "hub.md": "---\ntags: [project/gno, hub]\n---\n# Hub\n\nSee [[Spoke One]] and [two](deep/spoke-two.md).\n",
    "spoke-one.md": "---\ntitle: Spoke One\ntags: [project/gno]\n---\nBack to [[hub]].\n",
    "deep/spoke-two.md": "---\nrelations:\n  depends_on: [hub.md]\n---\n# Spoke Two\n\nUp: [hub](../hub.md).\n",
    "fan.md": "# Fan\n\n[[hub]] twice: [[Hub]]; self: [[fan]]; gone: [[nowhere]]; out: [x](../../outside.md)\n",
    "lonely.md": "# Lonely\n\nNo links.\n",
    "chain/a.md": "# A\n\n[[chain/b]]\n",
    "chain/b.md": "# B\n\n[[chain/c]]\n",
    "chain/c.md": "# C\n\n[[chain/a]] [[hub]]\n",
}


@pytest.fixture
def app(make_app):
    app, _ = make_app(FILES)
    sync(app)
    return app


def test_links_positional_and_resolved(app) -> None:
    out = links(app, LinksInput(ref="notes/fan.md"))
    targets = [(x.targetRef, x.resolved) for x in out.links]
    assert targets == [("hub", True), ("Hub", True), ("fan", True), ("nowhere", False)]
    assert out.meta.totalLinks == 4 and out.meta.resolvedCount == 3
    assert out.links[0].resolvedUri == "gno://notes/hub.md"
    wiki = links(app, LinksInput(ref="notes/hub.md", type="markdown"))
    assert [x.targetRef for x in wiki.links] == ["deep/spoke-two.md"]


def test_a_link_leaving_the_collection_is_dropped(app) -> None:
    stored = (
        app.store()
        .conn.execute("SELECT count(*) FROM doc_links WHERE target_ref LIKE '%outside%'")
        .fetchone()[0]
    )
    assert stored == 0


def test_links_as_typed_edges(app) -> None:
    out = links(app, LinksInput(ref="notes/deep/spoke-two.md", edgeType="depends_on"))
    assert [(x.targetUri, x.confidence.value, x.edgeSource.value) for x in out.links] == [
        ("gno://notes/hub.md", "manual", "frontmatter-relation")
    ]
    assert out.meta.semantic
    with pytest.raises(ValidationError):
        links(app, LinksInput(ref="notes/hub.md", type="wiki", edgeType="mentions"))
    with pytest.raises(ValidationError):
        links(app, LinksInput(ref="notes/hub.md", edgeType="mentions", relation="related_to"))
    with pytest.raises(ValidationError):
        links(app, LinksInput(ref="notes/hub.md", edgeType="Not-Snake"))


def test_backlinks_by_position_and_type(app) -> None:
    out = backlinks(app, BacklinksInput(ref="notes/hub.md"))
    assert [(x.sourceUri, x.startLine) for x in out.backlinks] == [
        ("gno://notes/chain/c.md", 3),
        ("gno://notes/deep/spoke-two.md", 7),
        ("gno://notes/fan.md", 3),
        ("gno://notes/fan.md", 3),
        ("gno://notes/spoke-one.md", 5),
    ]
    typed = backlinks(app, BacklinksInput(ref="notes/hub.md", relation="depends_on"))
    assert [x.sourceUri for x in typed.backlinks] == ["gno://notes/deep/spoke-two.md"]
    with pytest.raises(NotFoundError):
        backlinks(app, BacklinksInput(ref="notes/hub.md", collection="nope"))


def test_tags(app) -> None:
    out = tags(app, TagsInput())
    assert [(t.tag, t.count) for t in out.tags] == [("project/gno", 2), ("hub", 1)]
    assert tags(app, TagsInput(prefix="project/")).meta.prefix == "project"
    assert [t.tag for t in tags(app, TagsInput(prefix="project")).tags] == ["project/gno"]
    assert tags(app, TagsInput(prefix="proj")).tags == []  # whole segments only
    with pytest.raises(ValidationError):
        tags(app, TagsInput(prefix="Bad Tag!"))


@pytest.mark.parametrize("handler", ["links", "backlinks", "impact", "graph_query", "similar"])
def test_unknown_refs_are_not_found(app, handler: str) -> None:
    calls = {
        "links": lambda: links(app, LinksInput(ref="notes/missing.md")),
        "backlinks": lambda: backlinks(app, BacklinksInput(ref="#abcdef12")),
        "impact": lambda: impact(app, ImpactInput(ref="notes/missing.md")),
        "graph_query": lambda: graph_query(app, GraphQueryInput(ref="notes/missing.md")),
        "similar": lambda: similar(app, SimilarInput(ref="notes/missing.md")),
    }
    with pytest.raises(DocumentNotFoundError):
        calls[handler]()


@pytest.mark.parametrize(
    "caps",
    [{"maxDepth": 0}, {"maxDepth": 7}, {"maxNodes": 1001}, {"maxEdges": 0}, {"visitedLimit": 5001}],
)
def test_caps_out_of_range_are_rejected_by_the_input_model(caps) -> None:
    with pytest.raises(pydantic.ValidationError):
        ImpactInput(ref="notes/hub.md", **caps)


def test_impact_lists_linkers_with_one_evidence_path(app) -> None:
    out = impact(app, ImpactInput(ref="notes/hub.md"))
    by_uri = {x.document.uri: x for x in out.impacted}
    assert set(by_uri) == {
        "gno://notes/chain/c.md",
        "gno://notes/deep/spoke-two.md",
        "gno://notes/fan.md",
        "gno://notes/spoke-one.md",
        "gno://notes/chain/b.md",
        "gno://notes/chain/a.md",
    }
    b = by_uri["gno://notes/chain/b.md"]
    assert b.depth == 2
    assert [(s.source.uri, s.target.uri) for s in b.evidencePath] == [
        ("gno://notes/chain/b.md", "gno://notes/chain/c.md"),
        ("gno://notes/chain/c.md", "gno://notes/hub.md"),
    ]
    depths = [x.depth for x in out.impacted]
    assert depths == sorted(depths)
    assert not out.meta.truncated and out.meta.returnedNodes == 7
    capped = impact(app, ImpactInput(ref="notes/hub.md", maxDepth=1, maxNodes=3))
    assert capped.meta.truncated and capped.meta.returnedNodes <= 3


def test_graph_query_follows_direction_and_type(app) -> None:
    out = graph_query(app, GraphQueryInput(ref="notes/chain/a.md", direction="out", maxDepth=6))
    # neighbours in edge order: type (mentions < related_to), then URIs
    assert [n.relPath for n in out.nodes] == [
        "chain/a.md",
        "chain/b.md",
        "chain/c.md",
        "hub.md",
        "spoke-one.md",
        "deep/spoke-two.md",
    ]
    assert [n.depth for n in out.nodes] == [0, 1, 2, 3, 4, 4]
    typed = graph_query(
        app, GraphQueryInput(ref="notes/hub.md", direction="in", edgeType="depends_on")
    )
    assert [n.relPath for n in typed.nodes] == ["hub.md", "deep/spoke-two.md"]
    assert typed.meta.edgeType == "depends_on"
    one = graph_query(app, GraphQueryInput(ref="notes/hub.md", maxNodes=1))
    assert one.meta.returnedNodes == 1 and one.meta.truncated


def test_cycle_and_self_link_terminate(app) -> None:
    out = graph_query(app, GraphQueryInput(ref="notes/chain/a.md", direction="both", maxDepth=6))
    assert len({n.id for n in out.nodes}) == len(out.nodes)
    assert all(e.source != e.target for e in out.edges)
    assert ("fan.md", "fan.md") not in {(e.source, e.target) for e in out.edges}


def _neighbors(app, ref: str, direction: str = "both") -> dict:
    inp = GraphNeighborsInput(ref=ref, direction=direction)
    return neighbors(app, inp).model_dump(mode="json", exclude_unset=True)


def _path(app, start: str, goal: str, **extra: int) -> dict:
    inp = GraphPathInput.model_validate({"from": start, "to": goal, **extra})
    return path(app, inp).model_dump(mode="json", exclude_unset=True)


def test_neighbors_and_path(app) -> None:
    near = _neighbors(app, "Spoke One", "out")  # a bare title is a graph node
    assert [n["node"]["relPath"] for n in near["neighbors"]] == ["hub.md"]
    edge = near["neighbors"][0]["edge"]
    assert (edge["type"], edge["confidence"], edge["weight"]) == ("wiki", "explicit", 1)
    assert near["meta"]["totalNeighbors"] == 1 and near["meta"]["direction"] == "out"
    both = _neighbors(app, "notes/hub.md")
    assert {(n["direction"], n["node"]["relPath"]) for n in both["neighbors"]} >= {
        ("out", "spoke-one.md"),
        ("in", "fan.md"),
    }
    found = _path(app, "chain/a.md", "spoke-one.md")
    assert found["meta"]["found"] and [n["relPath"] for n in found["path"]["nodes"]] == [
        "chain/a.md",
        "chain/c.md",
        "hub.md",
        "spoke-one.md",
    ]
    assert set(found) == {"from", "to", "path", "meta"}  # the wire name, not from_
    assert _path(app, "lonely.md", "hub.md")["path"] is None
    with pytest.raises(pydantic.ValidationError):
        _path(app, "hub.md", "fan.md", maxDepth=13)
    with pytest.raises(DocumentNotFoundError):  # NOT_FOUND, exit 2 like every unknown ref
        _neighbors(app, "No Such Node")


def test_graph_report(app) -> None:
    out = graph(app, GraphInput())
    assert out.report.hubs[0].relPath == "hub.md"
    assert out.report.isolated.total == 1 and out.report.isolated.examples[0].relPath == "lonely.md"
    assert out.report.unresolvedLinks.total == 1 and out.report.unresolvedLinks.byType.wiki == 1
    assert out.meta.returnedNodes == 7  # linked only
    assert {x.relPath for x in out.report.bridgeCandidates} >= {"hub.md", "chain/a.md"}
    assert out.report.communities.total >= 1 and not out.report.communities.skipped
    ids = {n.id for n in out.nodes}
    assert all(link.source in ids and link.target in ids for link in out.links)
    small = graph(app, GraphInput(limit=2, edgeLimit=1))
    assert small.meta.truncated and len(small.nodes) == 2 and len(small.links) <= 1
    assert small.report.edgeConfidence == out.report.edgeConfidence  # counted before limits
    with pytest.raises(NotFoundError):
        graph(app, GraphInput(collection="nope"))


def test_communities_are_the_same_whatever_the_order_files_were_indexed(make_app) -> None:
    app1, _ = make_app(FILES, name="one")
    sync(app1)
    first = graph(app1, GraphInput()).report.communities
    reordered = dict(reversed(list(FILES.items())))
    app2, _ = make_app(reordered, name="two")
    sync(app2, collection="two")
    second = graph(app2, GraphInput(collection="two")).report.communities

    def by_path(c) -> list[list[str]]:
        return sorted(sorted(n.relPath for n in top.topNodes) for top in c.top)

    assert by_path(first) == by_path(second)
    assert first.assignments.keys() == second.assignments.keys()


def test_similar_without_vectors_names_the_fix(app) -> None:
    with pytest.raises(UnavailableError) as err:  # 503 UNAVAILABLE, exit 2
        similar(app, SimilarInput(ref="notes/hub.md"))
    assert "gno embed" in str(err.value) or "sqlite-vec" in str(err.value)
    assert (err.value.http_status, err.value.exit_code) == (503, 2)


def test_a_hub_with_ten_thousand_inbound_links_stays_within_caps(make_app) -> None:
    files = {"hub.md": "# Hub\n"}
    files |= {f"f/{i:04}.md": f"# F{i}\n\n" + "[[hub]] " * 10 for i in range(1000)}
    app, _ = make_app(files)
    sync(app)
    assert backlinks(app, BacklinksInput(ref="notes/hub.md")).meta.totalBacklinks == 10_000
    out = impact(app, ImpactInput(ref="notes/hub.md"))
    assert out.meta.truncated and out.meta.returnedNodes == 100 and len(out.impacted) == 99
    assert [x.document.relPath for x in out.impacted[:2]] == ["f/0000.md", "f/0001.md"]
    query = graph_query(app, GraphQueryInput(ref="notes/hub.md", maxNodes=1000, visitedLimit=5000))
    assert query.meta.returnedNodes <= 1000
    report = graph(app, GraphInput(limit=50))
    assert report.meta.returnedNodes == 50 and report.report.hubs[0].degree == 1000


def _seed_vectors(app, vectors: dict[str, list[float]]) -> None:
    """Chunk vectors for the active embedding model, stored as ``gno embed`` stores them."""
    import hashlib
    import struct

    store = app.store()
    assert store.load_vec(), "sqlite-vec is needed"
    dims = len(next(iter(vectors.values())))
    model_id = store.embed_model(app.embed_model_uri(), f"test:{dims}", dims)
    texts, chunks = {}, []
    for ref, vector in vectors.items():
        collection, rel_path = ref.split("/", 1)
        mirror = store.document_by_path(collection, rel_path).mirror_hash
        blob = struct.pack(f"<{dims}f", *vector)
        text_hash = hashlib.sha256(blob).hexdigest()
        texts[text_hash] = blob
        seqs = store.conn.execute(
            "SELECT seq FROM content_chunks WHERE mirror_hash = ?", (mirror,)
        ).fetchall()
        chunks += [(mirror, seq, text_hash) for (seq,) in seqs]
    with store.write():
        store.save_embeddings(model_id, texts, chunks)


def test_similar_ranks_by_the_mean_chunk_vector(make_app) -> None:
    make_app({"d.md": "# D\n"}, name="other")
    app, _ = make_app({"a.md": "# A\n", "b.md": "# B\n", "c.md": "# C\n"})
    sync(app)  # both collections
    near, far = [1.0, 0.1, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]
    _seed_vectors(
        app,
        {
            "notes/a.md": near,
            "notes/b.md": [0.9, 0.2, 0.0, 0.0],
            "notes/c.md": far,
            "other/d.md": near,
        },
    )
    out = similar(app, SimilarInput(ref="notes/a.md"))
    assert [x.relPath for x in out.similar] == ["b.md"]
    assert 0.95 < out.similar[0].score <= 1
    wide = similar(app, SimilarInput(ref="notes/a.md", crossCollection=True, threshold=0.0))
    assert [x.uri for x in wide.similar] == [
        "gno://other/d.md",
        "gno://notes/b.md",
        "gno://notes/c.md",
    ]
    assert similar(app, SimilarInput(ref="notes/a.md", threshold=0.999)).similar == []


def test_graph_report_adds_similarity_edges_from_first_chunks(make_app) -> None:
    files = {"a.md": "# A\n\n[[b]]\n", "b.md": "# B\n\n[[c]]\n", "c.md": "# C\n\n[[a]]\n"}
    app, _ = make_app(files)
    sync(app)
    without = graph(app, GraphInput(includeSimilar=True))
    assert not without.meta.similarAvailable and without.meta.warnings  # no vectors: says so
    _seed_vectors(
        app, {"notes/a.md": [1, 0, 0], "notes/b.md": [0.95, 0.1, 0], "notes/c.md": [0, 0, 1]}
    )
    out = graph(app, GraphInput(includeSimilar=True, threshold=0.8))
    similar_links = [x for x in out.links if x.type.value == "similar"]
    assert len(similar_links) == 1 and out.meta.includedSimilar and out.meta.similarAvailable
    link = similar_links[0]
    ids = {n.relPath: n.id for n in out.nodes}
    assert {link.source, link.target} == {ids["a.md"], ids["b.md"]}
    assert link.confidence.value == "similarity" and 0.8 <= link.weight <= 1
    assert out.report.edgeTypes.similar == 1 and out.report.audit.similarityEdges == 1
    assert not any(x.type.value == "similar" for x in graph(app, GraphInput()).links)


def test_hostile_relations_are_bounded_and_never_escape(make_app) -> None:
    many = "\n".join(f"    - t{i}.md" for i in range(600))
    files = {
        "a.md": "---\nrelations:\n  depends_on:\n" + many + "\n---\n# A\n",
        "c.md": "---\nrelations:\n  Works-At: [b.md]\n  '123': [b.md]\n  '!!!': [b.md]\n"
        "  self_ref: [c.md]\n  escapes: [../../etc/passwd, /etc/passwd, 'gno://other/x.md']\n---\n",
        "b.md": "# B\n",
        "t1.md": "# T1\n",
    }
    app, _ = make_app(files)
    sync(app)
    store = app.store()
    per_doc = dict(
        store.conn.execute(
            "SELECT d.rel_path, count(*) FROM doc_relations r JOIN documents d ON d.id = r.source_doc_id "
            "GROUP BY 1"
        ).fetchall()
    )
    assert per_doc["a.md"] == 256  # MAX_RELATIONS per document
    types = {t for (t,) in store.conn.execute("SELECT DISTINCT edge_type FROM doc_relations")}
    assert types == {"depends_on", "works_at", "self_ref", "escapes"}  # normalised; others dropped
    out = links(app, LinksInput(ref="notes/a.md", edgeType="depends_on"))
    assert [x.targetUri for x in out.links] == ["gno://notes/t1.md"]
    assert [
        x.targetUri for x in links(app, LinksInput(ref="notes/c.md", edgeType="works_at")).links
    ] == ["gno://notes/b.md"]
    assert links(app, LinksInput(ref="notes/c.md", edgeType="self_ref")).links == []
    assert links(app, LinksInput(ref="notes/c.md", edgeType="escapes")).links == []


def test_relations_after_a_long_frontmatter_field_are_kept(make_app) -> None:
    """The frontmatter is parsed whole (title, tags…), so its relations count wherever they
    sit in it: a `relations` key after 64 KiB of frontmatter was dropped unseen."""
    summary = "x" * 70_000
    files = {
        "a.md": f"---\ntitle: A\nsummary: {summary}\nrelations:\n  depends_on: [b.md]\n---\n# A\n",
        "b.md": "# B\n",
        "c.md": f"---\ntitle: C\n---\n# C\n\n{summary}\n\nrelations: not frontmatter\n",
    }
    app, _ = make_app(files)
    sync(app)
    out = links(app, LinksInput(ref="notes/a.md", edgeType="depends_on"))
    assert [x.targetUri for x in out.links] == ["gno://notes/b.md"]
    assert links(app, LinksInput(ref="notes/c.md", edgeType="depends_on")).links == []
