"""Content-type graph hints as typed edges on the surfaces (issue 17): with a ``person``
type whose ``graphHints`` start with ``works_at``, a person note's links are ``works_at``
edges (confidence ``configured``) for `gno links/backlinks --edge-type` and `gno graph
query` on the CLI, and for gno_links / gno_graph_query over MCP stdio — real processes,
outputs valid against their schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from contract_helpers import GNO, assert_valid, gno_env, gno_ok, run_gno, write_tree

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

FILES = {
    "people/ada.md": "# Ada\n\nAda builds engines at [[Acme]].\n",
    "companies/acme.md": "# Acme\n\nAcme makes orreries.\n",
}
PERSON = {"id": "person", "prefixes": ["people/"], "preset": "person", "graphHints": ["works_at"]}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("hints")
    notes = write_tree(root / "notes", FILES)
    env = gno_env(root)
    for args in (["init"], ["collection", "add", str(notes), "--name", "notes"]):
        done = run_gno(env, *args)
        assert done.returncode == 0, done.stderr
    config = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    data = yaml.safe_load(config.read_text())
    data["contentTypes"] = [PERSON]
    config.write_text(yaml.safe_dump(data))
    done = run_gno(env, "update")
    assert done.returncode == 0, done.stderr
    return env


def test_cli(env: dict[str, str]) -> None:
    found = gno_ok(env, "links", "notes/people/ada.md", "--edge-type", "works_at", "--json")
    assert [(i["targetUri"], i["confidence"]) for i in found["links"]] == [
        ("gno://notes/companies/acme.md", "configured")
    ]
    assert (
        gno_ok(env, "links", "notes/people/ada.md", "--edge-type", "mentions", "--json")["links"]
        == []
    )
    back = gno_ok(env, "backlinks", "notes/companies/acme.md", "--edge-type", "works_at", "--json")
    assert [b["sourceUri"] for b in back["backlinks"]] == ["gno://notes/people/ada.md"]
    walked = gno_ok(env, "graph", "query", "notes/people/ada.md", "--json")
    assert {e["edgeType"] for e in walked["edges"]} == {"works_at"}
    assert walked["root"]["graphHints"] == ["works_at"]


def test_mcp(env: dict[str, str]) -> None:
    target = StdioServerParameters(
        command=str(GNO), args=["mcp"], env=env, cwd=str(Path(env["GNO_CONFIG_DIR"]).parent)
    )
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(target, mode="legacy") as client:
            seen["impact"] = await client.call_tool(
                "gno_impact", {"ref": "notes/companies/acme.md"}
            )
            seen["query"] = await client.call_tool(
                "gno_graph_query", {"ref": "notes/companies/acme.md", "edgeType": "works_at"}
            )

    anyio.run(session)
    impact = seen["impact"].structured_content
    assert_valid("gno://schemas/impact@1.0", impact)
    (ada,) = impact["impacted"]
    assert ada["document"]["uri"] == "gno://notes/people/ada.md"
    assert [(s["edgeType"], s["confidence"]) for s in ada["evidencePath"]] == [
        ("works_at", "configured")
    ]
    walked = seen["query"].structured_content
    assert_valid("gno://schemas/graph-query@1.0", walked)
    assert [e["edgeType"] for e in walked["edges"]] == ["works_at"]
