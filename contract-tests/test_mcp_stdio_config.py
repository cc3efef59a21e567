"""`gno mcp` (stdio) reads its tool profile from `index.yml` as GNO does (issue 11 item 2):
`--tool-profile`, else `gateway.toolProfile`, else `full`. `gateway.enableWrite` is the HTTP
gateway's (GNO: stdio writes need `--enable-write` or `GNO_MCP_ENABLE_WRITE=1`), so it
opens nothing on stdio.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from contract_helpers import GNO, NOTES, gno_env, run_gno, write_tree

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

CORE_READ = [
    "gno_query", "gno_search", "gno_get", "gno_multi_get", "gno_context",
    "gno_changes", "gno_recall",
]  # fmt: skip


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("mcp-stdio-config")
    notes = write_tree(root / "corpus" / "notes", NOTES)
    env = gno_env(root)
    for args in (["init", str(notes), "--name", "notes"], ["update"]):
        done = run_gno(env, *args)
        assert done.returncode == 0, done.stderr
    config = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    raw = yaml.safe_load(config.read_text())
    raw["gateway"] = {"toolProfile": "core", "enableWrite": True}
    config.write_text(yaml.safe_dump(raw))
    return env


def _listed(env: dict[str, str], *args: str) -> list[str]:
    names: list[str] = []

    async def session() -> None:
        params = StdioServerParameters(command=str(GNO), args=["mcp", *args], env=env)
        async with Client(params) as client:
            names.extend(tool.name for tool in (await client.list_tools()).tools)

    anyio.run(session)
    return names


def test_gateway_tool_profile_applies_to_stdio(env: dict[str, str]) -> None:
    assert _listed(env) == CORE_READ  # gateway.enableWrite: true adds no write tool here


def test_the_flag_wins_over_the_config(env: dict[str, str]) -> None:
    full = _listed(env, "--tool-profile", "full")
    assert len(full) > len(CORE_READ) and "gno_peek" in full
    assert "gno_capture" not in full  # still no writes without --enable-write
    with_writes = _listed(env, "--enable-write")
    assert with_writes == [*CORE_READ, "gno_capture", "gno_remember"]


def test_a_bad_profile_in_the_config_is_refused(env: dict[str, str], tmp_path: Path) -> None:
    config = tmp_path / "index.yml"
    raw: dict[str, Any] = yaml.safe_load((Path(env["GNO_CONFIG_DIR"]) / "index.yml").read_text())
    raw["gateway"] = {"toolProfile": "huge"}
    config.write_text(yaml.safe_dump(raw))
    done = run_gno(env, "--config", str(config), "mcp")
    assert done.returncode == 1 and "huge" in done.stderr
