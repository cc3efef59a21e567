"""Content-type graph hints as typed edges (issue 17 item 2, engine.md §1.6, §7.3): the
links of a document whose content type has ``graphHints`` take the first hint as their
edge type (confidence ``configured``) in the one typed edge layer that links, backlinks,
graph query, impact and query's graph expansion read; a hints change re-ingests the
documents it concerns and the edges follow."""

from __future__ import annotations

from typing import Any

from gno_contracts.models.backlinks_input import BacklinksInput
from gno_contracts.models.graph_query_input import GraphQueryInput
from gno_contracts.models.impact_input import ImpactInput
from gno_contracts.models.links_input import LinksInput
from gno_contracts.models.query_input import QueryInput

from gno.app import App
from gno.config import load_config, save_config
from gno.paths import resolve_paths
from gno.services.graph_walks import graph_query, impact
from gno.services.links import backlinks, links
from gno.services.query import run_pipeline
from tests.conftest import sync

FILES = {
    "people/ada.md": "# Ada\n\nAda builds engines at [[Acme]]; see [the engine](../notes/engine.md).\n",
    "companies/acme.md": "# Acme\n\nAcme makes orreries.\n",
    "notes/engine.md": "# Engine\n\nThe engine, as [[Ada]] described it.\n",
}
PERSON = {"id": "person", "prefixes": ["people/"], "preset": "person", "graphHints": ["works_at"]}


def configure(app: App, rules: list[dict[str, Any]]) -> App:
    config = load_config(app.paths.config_file)
    config.raw["contentTypes"] = rules
    save_config(app.paths.config_file, config)
    return App(resolve_paths())


def out_edges(app: App, ref: str) -> set[tuple[str, str, str]]:
    proj = app.store().projection()
    doc = next(d for d in proj.docs.values() if d.rel_path == ref)
    return {
        (proj.docs[e.target].rel_path, e.edge_type, e.confidence) for e in proj.out.get(doc.id, ())
    }


def test_hints_retype_links_in_every_graph_tool(make_app):
    app, _ = make_app(FILES)
    sync(app)
    assert out_edges(app, "people/ada.md") == {
        ("companies/acme.md", "mentions", "parsed"),
        ("notes/engine.md", "related_to", "parsed"),
    }
    app = configure(app, [PERSON])
    sync(app)
    assert out_edges(app, "people/ada.md") == {
        ("companies/acme.md", "works_at", "configured"),
        ("notes/engine.md", "works_at", "configured"),
    }
    # a document without a hinted type keeps its link types
    assert out_edges(app, "notes/engine.md") == {("people/ada.md", "mentions", "parsed")}

    found = links(app, LinksInput(ref="notes/people/ada.md", edgeType="works_at"))
    assert {(i.targetUri, i.confidence.value) for i in found.links} == {
        ("gno://notes/companies/acme.md", "configured"),
        ("gno://notes/notes/engine.md", "configured"),
    }
    assert links(app, LinksInput(ref="notes/people/ada.md", edgeType="mentions")).links == []
    back = backlinks(app, BacklinksInput(ref="notes/companies/acme.md", edgeType="works_at"))
    assert [b.sourceUri for b in back.backlinks] == ["gno://notes/people/ada.md"]

    walked = graph_query(app, GraphQueryInput(ref="notes/people/ada.md", edgeType="works_at"))
    dumped = walked.model_dump(mode="json")
    assert {e["edgeType"] for e in dumped["edges"]} == {"works_at"}
    assert dumped["root"]["graphHints"] == ["works_at"]
    assert {n["uri"] for n in dumped["nodes"]} == {
        "gno://notes/people/ada.md",
        "gno://notes/companies/acme.md",
        "gno://notes/notes/engine.md",
    }
    hit = impact(app, ImpactInput(ref="notes/companies/acme.md")).model_dump(mode="json")
    paths = {i["document"]["uri"]: i["evidencePath"] for i in hit["impacted"]}
    assert paths["gno://notes/people/ada.md"][0]["edgeType"] == "works_at"

    # query's graph expansion walks the same typed layer from its seeds
    run = run_pipeline(app, app.store(), QueryInput(query="orreries", rerank=False))
    assert run.graph is not None and run.graph.edges.get("explicit", 0) >= 1
    ada = app.store().document_by_path("notes", "people/ada.md")
    assert ada is not None and ada.mirror_hash in run.graph.mirrors


def test_changing_the_hint_reingests_and_retypes(make_app):
    app, _ = make_app(FILES)
    app = configure(app, [PERSON])
    sync(app)
    app = configure(app, [PERSON | {"graphHints": ["attended", "works_at"]}])
    result = sync(app).collections[0]
    assert result.filesUpdated == 1  # people/ada.md: its rule's fingerprint changed
    assert {t for _, t, _ in out_edges(app, "people/ada.md")} == {"attended"}
    app = configure(app, [])
    sync(app)
    assert {t for _, t, _ in out_edges(app, "people/ada.md")} == {"mentions", "related_to"}
