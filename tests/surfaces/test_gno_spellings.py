"""Spellings GNO's own docs and tools use that gno must take as GNO does (the fidelity audit,
spec/fidelity-audit.md): an agent or a copy-pasted example written against GNO works
unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import sync

# A chain a -> b -> c -> d -> e of wiki links: depth 2 from `a` reaches c, depth 4 reaches e.
CHAIN = {
    "a.md": "# A\n\nSee [[B]].\n",
    "b.md": "# B\n\nSee [[C]].\n",
    "c.md": "# C\n\nSee [[D]].\n",
    "d.md": "# D\n\nSee [[E]].\n",
    "e.md": "# E\n\nThe end.\n",
}


@pytest.fixture
def chain(make_app: Any) -> Any:
    app, _ = make_app(CHAIN)
    sync(app)
    return app


def _graph_query(app: Any, arguments: dict[str, Any]) -> Any:
    from gno.mcp.tools import call, tools

    return call(app, tools("full")["gno_graph_query"], {"ref": "notes/a.md", **arguments})


def test_gno_graph_query_takes_depth_as_gno_does(chain: Any) -> None:
    """GNO's gno_graph_query takes `maxDepth` or its alias `depth`; gno dropped `depth` as an
    unknown key and walked the default 2 hops."""
    for arguments in ({"depth": 4}, {"maxDepth": 4}, {"depth": 4, "maxDepth": 4}):
        outcome = _graph_query(chain, arguments)
        assert not outcome.is_error, outcome.text
        assert outcome.structured["meta"]["maxDepth"] == 4
        reached = {node["relPath"] for node in outcome.structured["nodes"]}
        assert reached == set(CHAIN), arguments
    outcome = _graph_query(chain, {"depth": 1})
    assert {node["relPath"] for node in outcome.structured["nodes"]} == {"a.md", "b.md"}


def test_gno_graph_query_depth_and_max_depth_must_agree(chain: Any) -> None:
    outcome = _graph_query(chain, {"depth": 3, "maxDepth": 4})
    assert outcome.is_error
    assert outcome.structured["error"] == "VALIDATION"
    assert "maxDepth and depth must match" in outcome.structured["message"]
    outcome = _graph_query(chain, {"depth": 7})
    assert outcome.is_error and outcome.structured["error"] == "VALIDATION"


TAGGED = {
    "sec.md": "---\ntags: [security, ops]\n---\n# Auth\n\nauthentication keys rotate\n",
    "plan.md": "---\ntags: [planning]\n---\n# Plan\n\nauthentication rollout plan\n",
    "note.md": "# Note\n\nauthentication without tags\n",
}


def test_rest_list_filters_take_lists_as_gnos_docs_send_them(make_app: Any) -> None:
    """GNO's REST guide queries with `"tagsAny": ["security"]`; gno took only comma strings
    and answered that copy-pasted example 400."""
    import httpx

    from gno.rest.app import ServeOptions, create_app
    from tests.live_server import live_server

    app, _ = make_app(TAGGED)
    sync(app)
    api = create_app(app.derive(), options=ServeOptions(mcp=None, watch=False, web_ui=False))
    with live_server(api) as (url, _server):

        def uris(route: str, **body: Any) -> set[str]:
            answer = httpx.post(f"{url}{route}", json={"query": "authentication", **body})
            assert answer.status_code == 200, answer.text
            return {hit["uri"] for hit in answer.json()["results"]}

        for route in ("/api/search", "/api/query"):
            assert uris(route, tagsAny=["security"]) == {"gno://notes/sec.md"}
            assert uris(route, tagsAny=["security", "planning"]) == uris(
                route, tagsAny="security,planning"
            )
            assert uris(route, tagsAny=["security", "planning"]) == {
                "gno://notes/sec.md",
                "gno://notes/plan.md",
            }
            assert uris(route, tagsAll=["security", "ops"]) == {"gno://notes/sec.md"}
            assert uris(route, exclude=["rollout"]) == uris(route, exclude="rollout")
            assert "gno://notes/plan.md" not in uris(route, exclude=["rollout"])
            assert uris(route, category=["prose"]) == uris(route, category="prose")
            bad = httpx.post(f"{url}{route}", json={"query": "authentication", "tagsAny": [1]})
            assert bad.status_code == 400 and bad.json()["error"]["code"] == "VALIDATION"
            many = [f"t{i}" for i in range(257)]
            bad = httpx.post(f"{url}{route}", json={"query": "authentication", "tagsAny": many})
            assert bad.status_code == 400 and "at most 256" in bad.json()["error"]["message"]


def test_gno_graph_path_text_counts_hops_as_gno_writes_it(chain: Any) -> None:
    """GNO's text is `Graph path (k hops):` then the URIs; gno printed `(root=4 hops)`."""
    from gno.mcp.tools import call, tools

    outcome = call(chain, tools("full")["gno_graph_path"], {"from": "A", "to": "E"})
    assert not outcome.is_error, outcome.text
    assert outcome.text.splitlines() == [
        "Graph path (4 hops):",
        " -> ".join(f"gno://notes/{name}" for name in CHAIN),
    ]


def test_rest_collections_carry_gnos_model_and_policy_fields(make_app: Any) -> None:
    """GNO's GET /api/collections items add effectiveModels, modelSources, activePresetId
    and egressPolicy to the collection-list entry; gno answered the bare entry."""
    import httpx

    from gno.rest.app import ServeOptions, create_app
    from tests.live_server import live_server
    from tests.surfaces.egress_peers import assert_valid

    app, _ = make_app(TAGGED, embedModel="http://127.0.0.1:9/v1#tiny")
    api = create_app(app.derive(), options=ServeOptions(mcp=None, watch=False, web_ui=False))
    with live_server(api) as (url, _server):
        answer = httpx.get(f"{url}/api/collections")
    assert answer.status_code == 200, answer.text
    [item] = answer.json()
    assert_valid("gno://schemas/api-collection-list@1.0", answer.json())
    assert item["models"] == {"embed": "http://127.0.0.1:9/v1#tiny"}
    assert item["effectiveModels"]["embed"] == "http://127.0.0.1:9/v1#tiny"
    assert item["modelSources"] == {
        "embed": "override",
        "rerank": "default",
        "expand": "default",
        "gen": "default",
    }
    assert item["activePresetId"] == "slim-tuned"
    assert item["egressPolicy"]["collection"] == "notes"
    assert item["egressPolicy"]["policy"] == "local_only"
