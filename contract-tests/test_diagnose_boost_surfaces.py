"""`query-diagnose` payload versions on every surface (issue 11 item 4, surfaces.md §5.7): a
target a content-type `searchBoost` moved answers the `1.2` branch with its
`contentTypeBoost` receipt; any other target keeps GNO's byte-identical `1.0` branch. CLI
(`gno query diagnose --json`), REST (`POST /api/query/diagnose`) and MCP (`gno_query_diagnose`
over `/mcp`) answer the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from contract_helpers import assert_valid, gno_env, run_gno, write_tree
from rest_helpers import Server, running

httpx = pytest.importorskip("httpx")
mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402

SCHEMA = "gno://schemas/query-diagnose@1.4"
FILES = {
    "people/ada.md": "# Ada\n\nAda wrote about the orrery engine.\n",
    "notes/engine.md": "# Engine\n\nNotes on the orrery engine.\n",
    "notes/gears.md": "# Gears\n\nThe orrery gears and the orrery engine.\n",
}
BOOSTED, PLAIN = "notes/people/ada.md", "notes/notes/engine.md"


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve process")


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("diagnose-boost")
    notes = write_tree(root / "corpus" / "notes", FILES)
    env = gno_env(root)
    assert run_gno(env, "init", str(notes), "--name", "notes").returncode == 0
    config = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    raw = yaml.safe_load(config.read_text())
    raw["contentTypes"] = [
        {"id": "person", "prefixes": ["people/"], "preset": "person", "searchBoost": 2.0}
    ]
    config.write_text(yaml.safe_dump(raw))
    done = run_gno(env, "update")
    assert done.returncode == 0, done.stderr
    return env


@pytest.fixture(scope="module")
def server(env: dict[str, str]) -> Iterator[Server]:
    with running(env) as srv:
        yield srv


def _check(payload: dict[str, Any], boosted: bool) -> None:
    assert_valid(SCHEMA, payload)
    assert payload["target"]["status"] == "diagnosed", payload["target"]
    if boosted:
        assert payload["schemaVersion"] == "1.2"
        receipt = payload["contentTypeBoost"]
        assert receipt["contentType"] == "person" and receipt["configuredFactor"] == 2.0
        assert receipt["cappedContribution"] == 0.05
    else:
        assert payload["schemaVersion"] == "1.0" and "contentTypeBoost" not in payload


@pytest.mark.parametrize("target", [BOOSTED, PLAIN])
def test_cli_answers_the_branch_of_the_target(env: dict[str, str], target: str) -> None:
    import json

    done = run_gno(env, "query", "diagnose", "orrery", "--target", target, "--json")
    assert done.returncode == 0, done.stderr
    _check(json.loads(done.stdout), target == BOOSTED)


def test_rest_and_mcp_answer_the_same_branches(server: Server) -> None:
    for target in (BOOSTED, PLAIN):
        answer = httpx.post(
            f"{server.url}/api/query/diagnose",
            json={"query": "orrery", "target": target},
            timeout=60,
        )
        assert answer.status_code == 200, answer.text
        _check(answer.json(), target == BOOSTED)

    async def session() -> None:
        async with Client(f"{server.url}/mcp") as client:
            for target in (BOOSTED, PLAIN):
                got = await client.call_tool(
                    "gno_query_diagnose", {"query": "orrery", "target": target}
                )
                assert not got.is_error, got.content[0].text
                _check(got.structured_content, target == BOOSTED)

    anyio.run(session)
