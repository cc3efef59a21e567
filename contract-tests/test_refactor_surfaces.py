"""Rename and move on every surface, against the schemas: `gno rename`/`gno move` (CLI),
gno_rename_note/gno_move_note (MCP over stdio, only with writes enabled) and
POST /api/docs/{id}/refactor-plan, /rename, /move (a real `gno serve`)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from contract_helpers import GNO, assert_valid, gno_env, gno_err, gno_ok, run_gno, write_tree
from rest_helpers import running

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

PREVIEW = "gno://schemas/file-refactor-preview@1.0"
APPLY = "gno://schemas/file-refactor-apply-result@1.0"
FILES = {
    "old.md": "# Old\n\nBody.\n",
    "links.md": "[[old]] and [it](old.md#part) and [[old.md|alias]]\n",
    "sub/more.md": "[up](../old.md)\n",
}


def _corpus(tmp_path: Path) -> tuple[dict[str, str], Path]:
    root = write_tree(tmp_path / "notes", FILES)
    env = gno_env(tmp_path)
    for args in (["init", str(root), "--name", "notes"], ["update", "--json"]):
        done = run_gno(env, *args)
        assert done.returncode == 0, done.stderr
    return env, root


def test_cli_preview_apply_stale_and_bad_input(tmp_path: Path) -> None:
    env, root = _corpus(tmp_path)
    plan = gno_ok(env, "rename", "notes/old.md", "new.md", "--json")
    assert_valid(PREVIEW, plan)
    assert plan["canApply"] and plan["target"]["uri"] == "gno://notes/new.md"
    moved = gno_ok(env, "move", "notes/old.md", "archive", "--json")
    assert_valid(PREVIEW, moved)
    assert moved["target"]["relPath"] == "archive/old.md"
    done = gno_ok(
        env,
        "rename",
        "notes/old.md",
        "new.md",
        "--apply",
        "--plan-digest",
        plan["planDigest"],
        "--json",
    )
    assert_valid(APPLY, done)
    assert done["status"] == "applied"
    # [[old]] and [[old.md]] still name it by its title "Old": unchanged
    assert (root / "links.md").read_text() == "[[old]] and [it](new.md#part) and [[old.md|alias]]\n"
    stale = run_gno(
        env,
        "rename",
        "notes/new.md",
        "x.md",
        "--apply",
        "--plan-digest",
        plan["planDigest"],
        "--json",
    )
    assert stale.returncode == 1
    assert_valid(APPLY, json.loads(stale.stdout))
    assert json.loads(stale.stdout)["status"] == "stale_plan"
    before = sorted(p.name for p in root.rglob("*"))
    for args in (
        ("rename", "notes/new.md", "../out.md"),
        ("rename", "notes/new.md", "/abs.md"),
        ("move", "notes/new.md", "../outside"),
        ("move", "notes/new.md", ".git"),
        ("rename", "notes/new.md", "nul.md"),
    ):
        gno_err(env, 1, *args, "--json")  # the CLI envelope says VALIDATION for exit 1
    assert (
        "--plan-digest"
        in gno_err(env, 1, "rename", "notes/new.md", "x.md", "--apply", "--json")["message"]
    )
    assert sorted(p.name for p in root.rglob("*")) == before


@contextlib.asynccontextmanager
async def _client(env: dict[str, str], cwd: Path, write: bool) -> AsyncIterator[Any]:
    params = StdioServerParameters(
        command=str(GNO),
        args=["mcp", *(["--enable-write"] if write else [])],
        env=env,
        cwd=str(cwd),
    )
    async with Client(params, mode="legacy") as client:
        yield client


def test_mcp_tools_only_with_writes_and_valid_results(tmp_path: Path) -> None:
    env, root = _corpus(tmp_path)

    async def session() -> None:
        async with _client(env, tmp_path, write=False) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert not names & {"gno_rename_note", "gno_move_note"}
            with pytest.raises(MCPError) as unknown:  # without the gate the tool does not exist
                await client.call_tool("gno_rename_note", {"ref": "notes/old.md", "name": "x.md"})
            assert unknown.value.code == -32602
        assert (root / "old.md").exists()
        async with _client(env, tmp_path, write=True) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert listed["gno_move_note"].annotations.read_only_hint is False
            args = {"action": "preview", "ref": "gno://notes/old.md", "folderPath": "archive"}
            plan = (await client.call_tool("gno_move_note", args)).structured_content
            assert_valid(PREVIEW, plan)
            missing = await client.call_tool(
                "gno_move_note", args | {"action": "apply", "confirm": True}
            )
            assert missing.is_error  # no digest: refused before anything changes
            assert (root / "old.md").exists()
            applied = await client.call_tool(
                "gno_move_note",
                args
                | {
                    "action": "apply",
                    "schemaVersion": "1.0",
                    "planDigest": plan["planDigest"],
                    "confirmation": "apply",
                    "confirm": True,
                },
            )
            result = applied.structured_content
            assert_valid(APPLY, result)
            assert result["status"] == "applied"
            assert (root / "archive/old.md").exists() and not (root / "old.md").exists()
            assert (root / "sub/more.md").read_text() == "[up](../archive/old.md)\n"

    anyio.run(session)


def test_rest_plan_rename_move_and_stale(tmp_path: Path) -> None:
    env, root = _corpus(tmp_path)
    with running(env) as server:
        doc = httpx.get(f"{server.url}/api/doc", params={"uri": "gno://notes/old.md"}).json()
        docid = doc["docid"].lstrip("#")
        plan = httpx.post(
            f"{server.url}/api/docs/{docid}/refactor-plan",
            json={"operation": "rename", "name": "renamed.md"},
        )
        assert plan.status_code == 200, plan.text
        body = plan.json()
        assert_valid("gno://schemas/api-refactor-plan@1.0", body)
        assert body["nextRelPath"] == "renamed.md" and body["nextUri"] == "gno://notes/renamed.md"
        apply_body = {
            "name": "renamed.md",
            "schemaVersion": "1.0",
            "planDigest": body["planDigest"],
            "confirmation": "apply",
        }
        (root / "links.md").write_text(FILES["links.md"] + "changed\n")  # stale now
        stale = httpx.post(f"{server.url}/api/docs/{docid}/rename", json=apply_body)
        assert stale.status_code == 409, stale.text
        error = stale.json()["error"]
        assert error["code"] == "STALE_PLAN"
        assert_valid(APPLY, error["details"])
        assert (root / "old.md").exists()
        fresh = httpx.post(
            f"{server.url}/api/docs/{docid}/refactor-plan",
            json={"operation": "rename", "name": "renamed.md"},
        ).json()
        done = httpx.post(
            f"{server.url}/api/docs/{docid}/rename",
            json=apply_body | {"planDigest": fresh["planDigest"]},
        )
        assert done.status_code == 200, done.text
        answer = done.json()
        assert_valid("gno://schemas/api-doc-refactor@1.0", answer)
        assert answer["apply"]["status"] == "applied" and answer["uri"] == "gno://notes/renamed.md"
        assert (root / "renamed.md").exists()
        new_id = answer["docId"].lstrip("#")
        move_plan = httpx.post(
            f"{server.url}/api/docs/{new_id}/refactor-plan",
            json={"operation": "move", "folderPath": "archive"},
        ).json()
        moved = httpx.post(
            f"{server.url}/api/docs/{new_id}/move",
            json={
                "folderPath": "archive",
                "schemaVersion": "1.0",
                "planDigest": move_plan["planDigest"],
                "confirmation": "apply",
            },
        )
        assert moved.status_code == 200, moved.text
        assert (root / "archive/renamed.md").exists()
        bad = httpx.post(
            f"{server.url}/api/docs/{new_id}/refactor-plan",
            json={"operation": "move", "folderPath": "../escape"},
        )
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "INVALID_PATH"
        no_confirm = httpx.post(
            f"{server.url}/api/docs/{new_id}/rename",
            json={"name": "x.md", "schemaVersion": "1.0", "planDigest": "0" * 64},
        )
        assert no_confirm.status_code == 400


def _branch(schema: dict[str, Any], prefix: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A standalone schema as it appears inside another: its ``$defs`` renamed with a prefix."""
    body = {k: v for k, v in schema.items() if k not in ("$schema", "$id", "$defs")}

    def renamed(node: Any) -> Any:
        text = json.dumps(node).replace('"#/$defs/', f'"#/$defs/{prefix}_')
        return json.loads(text)

    return renamed(body), {f"{prefix}_{k}": renamed(v) for k, v in schema["$defs"].items()}


@pytest.mark.parametrize(
    ("container", "branches"),
    [
        (
            "file-refactor-result",
            {"preview": "FileRefactorPreview", "apply": "FileRefactorApplyResult"},
        ),
        ("api-doc-refactor", {"apply": "FileRefactorApplyResult"}),
    ],
)
def test_embedded_copies_equal_the_standalone_schemas(
    container: str, branches: dict[str, str]
) -> None:
    """The MCP union and the REST answer carry the two contract schemas verbatim."""
    here = Path(__file__).resolve().parents[1] / "schemas" / "output"
    outer = json.loads((here / f"{container}.schema.json").read_text())
    files = {"preview": "file-refactor-preview", "apply": "file-refactor-apply-result"}
    for prefix, title in branches.items():
        body, defs = _branch(
            json.loads((here / f"{files[prefix]}.schema.json").read_text()), prefix
        )
        assert outer["$defs"][title] == body
        for name, definition in defs.items():
            assert outer["$defs"][name] == definition
