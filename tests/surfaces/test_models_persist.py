"""Models stick without environment variables (issue 11 item 6): `gno models use` with a
preset or per-role URIs persists them in index.yml, so a process started from the MCP entry
`gno mcp install` wrote finds the same model; `gno query` says on stderr when it falls back
to keyword search."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.tiny_gguf import write_tiny_bert

GNO = [sys.executable, "-m", "gno.cli.entry"]


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    base = tmp_path / "home"
    base.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    return env | {
        "HOME": str(base),
        "XDG_CONFIG_HOME": str(base / ".config"),
        "XDG_DATA_HOME": str(base / ".local" / "share"),
        "XDG_CACHE_HOME": str(base / ".cache"),
        "HF_HUB_OFFLINE": "1",
    }


def gno(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GNO, *args], env=env, capture_output=True, text=True, timeout=120)


def indexed(env: dict[str, str], tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# Sampling\n\nthe trace sample query index\n")
    (root / "b.md").write_text("# Vectors\n\nthe document model vector\n")
    assert gno(env, "setup", str(root), "--no-semantic").returncode == 0


def test_models_use_with_a_role_uri_persists_in_index_yml(
    home: dict[str, str], tmp_path: Path
) -> None:
    indexed(home, tmp_path)
    model = write_tiny_bert(tmp_path / "tiny.gguf")
    done = gno(home, "models", "use", "--embed", f"file:{model}", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["activePreset"] == "custom" and answer["embedModelChanged"] is True
    assert answer["models"]["embed"] == f"file:{model}"
    listed = json.loads(gno(home, "models", "list", "--json").stdout)
    assert listed["embed"]["uri"] == f"file:{model}" and listed["embed"]["cached"] is True
    # a preset again replaces it; a bad URI changes nothing
    config = Path(home["XDG_CONFIG_HOME"]) / "gno" / "index.yml"
    before = config.read_text()
    bad = gno(home, "models", "use", "--embed", "relative/model.gguf")
    assert bad.returncode == 1 and "Unsupported model URI" in bad.stderr
    assert config.read_text() == before
    assert json.loads(gno(home, "models", "use", "slim", "--json").stdout)["activePreset"] == "slim"


def test_mcp_entry_finds_the_model_set_by_models_use(home: dict[str, str], tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters

    indexed(home, tmp_path)
    installed = gno(home, "mcp", "install", "-t", "claude-desktop", "--json")
    assert installed.returncode == 0, installed.stderr
    entry = json.loads(installed.stdout)["installed"]["serverEntry"]
    assert not any(k.endswith("_MODEL") for k in entry.get("env", {}))
    # the client starts the entry as written: its command, args and env (plus PATH/HOME)
    env = {"PATH": home["PATH"], "HOME": home["HOME"], **entry.get("env", {})}
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env)

    async def vsearch() -> Any:
        async with Client(params, mode="legacy") as client:
            return await client.call_tool("gno_vsearch", {"query": "trace sample"})

    before = anyio.run(vsearch)
    assert before.is_error  # the default preset's model is not on disk (offline)

    model = write_tiny_bert(tmp_path / "tiny.gguf")
    assert gno(home, "models", "use", "--embed", f"file:{model}").returncode == 0
    embedded = gno(home, "embed", "--json")
    assert embedded.returncode == 0 and json.loads(embedded.stdout)["embedded"] > 0
    after = anyio.run(vsearch)
    assert not after.is_error, after.content[0].text
    assert after.structured_content["results"], after.structured_content


def test_query_says_on_stderr_when_it_falls_back_to_bm25(
    home: dict[str, str], tmp_path: Path
) -> None:
    indexed(home, tmp_path)
    done = gno(home, "query", "trace sample")
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if "keyword (BM25) results only" in line]
    assert len(notes) == 1 and "gno models pull --embed && gno embed" in notes[0]
    assert "gno://notes/a.md" in done.stdout
    as_json = gno(home, "query", "trace sample", "--json")
    assert "BM25" not in as_json.stderr
    assert json.loads(as_json.stdout)["meta"]["mode"] == "bm25_only"
