"""query-diagnose@1.4 on every surface: the CLI (`gno query diagnose … --json` and its
terminal text), MCP (`gno_query_diagnose` over stdio with the SDK's client) and REST
(`POST /api/query/diagnose`) answer with `meta.retrieval.stages` — each model-free retrieval
stage active or skipped with its reason — and each answer validates against the schema. A
stage switched off in index.yml shows as skipped, reason `disabled`, on every surface."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import yaml
from contract_helpers import GNO, assert_valid, indexed_notes, run_gno
from rest_helpers import running

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

SCHEMA = "gno://schemas/query-diagnose@1.4"
IDS = [
    "shape",
    "queryText",
    "windows",
    "languageWeights",
    "outline",
    "feedback",
    "vectorFeedback",
    "language",
    "topBonus",
]
NOTES = {
    "a.md": "# Sampling\n\nTail sampling decisions follow policies. Policies decide.\n",
    "b.md": "# More sampling\n\nSampling decisions come from policies and policies only.\n",
    "target.md": "# Rules for keeping traces\n\nWrite policies: each of the policies keeps traces.\n",
} | {f"f{i}.md": f"# Note {i}\n\nCooking pasta number {i}.\n" for i in range(12)}
ARGS = {"query": "sampling decisions", "target": "notes/target.md"}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("diagstages")
    return indexed_notes(root, NOTES)


def set_retrieval(env: dict[str, str], **switches: bool) -> None:
    path = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    data = yaml.safe_load(path.read_text())
    data["retrieval"] = switches
    path.write_text(yaml.safe_dump(data))


def by_id(payload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    assert_valid(SCHEMA, payload)
    assert payload["schemaVersion"] == "1.0"  # the branch selector is unchanged (no boost)
    listed = payload["meta"]["retrieval"]["stages"]
    assert [s["id"] for s in listed] == IDS
    return {s["id"]: s for s in listed}


def cli(env: dict[str, str], *extra: str) -> Any:
    done = run_gno(env, "query", "diagnose", ARGS["query"], "--target", ARGS["target"], *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if extra else done.stdout


def rest(env: dict[str, str]) -> dict[str, Any]:
    with running(env, "--no-watch") as srv:
        answer = httpx.post(f"{srv.url}/api/query/diagnose", json=ARGS, timeout=60)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def mcp_call(env: dict[str, str]) -> dict[str, Any]:
    target = StdioServerParameters(
        command=str(GNO), args=["mcp"], env=env, cwd=str(Path(env["GNO_CONFIG_DIR"]).parent)
    )
    seen: list[Any] = []

    async def session() -> None:
        async with Client(target, mode="legacy") as client:
            seen.append(await client.call_tool("gno_query_diagnose", ARGS))

    anyio.run(session)
    assert not seen[0].is_error, seen[0].content
    return dict(seen[0].structured_content)


def test_every_surface_shows_the_stages_and_their_switches(env: dict[str, str]) -> None:
    set_retrieval(env, feedback=True)
    for payload in (cli(env, "--json"), rest(env), mcp_call(env)):
        stages = by_id(payload)
        assert stages["feedback"]["status"] == "active"
        assert stages["feedback"]["message"].startswith("terms: policies")
        assert stages["feedback"]["targetRank"] is not None
        assert stages["vectorFeedback"]["reason"] == "disabled"  # off by default
        assert stages["windows"]["reason"] == "no vectors"  # this index has none
    text = cli(env)
    assert "  feedback       active  terms: policies" in text
    assert "  shape          active  keyword" in text

    set_retrieval(env, feedback=False, shapeWeights=False, languagePreference=False,
                  halfTopBonus=False, outlineLeg=False)  # fmt: skip
    for payload in (cli(env, "--json"), rest(env), mcp_call(env)):
        stages = by_id(payload)
        for sid in ("shape", "outline", "feedback", "language", "topBonus"):
            assert (stages[sid]["status"], stages[sid]["reason"]) == ("skipped", "disabled")
        assert payload["meta"]["retrieval"]["topBonusFactor"] == 1
    assert "  feedback       skipped skipped: disabled" in cli(env)
