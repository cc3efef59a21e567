"""``recordImport`` (record-import@1.0) inside sync results on every surface (issue 17):
``gno update --json``, the REST sync job (`POST /api/sync`, `GET /api/jobs/:id`) and the MCP
sync job (`gno_sync`, `gno_job_status` over stdio with the SDK's client) — real processes
over a folder with a mailbox (complete snapshot) and a chat export with a broken line
(partial snapshot). The sync result's copy of the schema is the standalone schema."""

from __future__ import annotations

import email.message
import json
import mailbox
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from contract_helpers import GNO, assert_valid, gno_env, gno_ok, run_gno, schemas_by_id

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402


def make_exports(root: Path, round_: int) -> None:
    """A mailbox written by the standard library's ``mailbox`` and a JSON Lines chat
    export with one broken line."""
    path = root / "mail" / "inbox.mbox"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    box = mailbox.mbox(str(path))
    try:
        for n in (1, 2):
            msg = email.message.EmailMessage()
            msg["From"], msg["To"] = f"a{n}@example.org", "b@example.org"
            msg["Subject"], msg["Message-ID"] = f"Round {round_} subject {n}", f"<m{n}@example.org>"
            msg.set_content(f"Body {n} of round {round_}")
            box.add(msg)
        box.flush()
    finally:
        box.close()
    lines = [json.dumps({"id": 1, "text": f"chat round {round_}"}), "{broken"]
    lines.append(json.dumps({"id": 2, "text": "still here"}))
    (root / "chat.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    notes = tmp_path / "notes"
    make_exports(notes, 1)
    env = gno_env(tmp_path)
    env["GNO_ROOT_FOR_TEST"] = str(notes)
    for args in (["init"], ["collection", "add", str(notes), "--name", "notes"]):
        done = run_gno(env, *args)
        assert done.returncode == 0, done.stderr
    return env


def check_files(result: dict[str, Any], round_: int) -> None:
    assert_valid("gno://schemas/sync-result@1.0", result)
    files = {f["relPath"]: f for c in result["collections"] for f in c.get("files", [])}
    assert set(files) == {"mail/inbox.mbox", "chat.jsonl"}
    for entry in files.values():
        assert_valid("gno://schemas/record-import@1.0", entry["recordImport"])
    mail = files["mail/inbox.mbox"]
    assert mail["status"] == ("added" if round_ == 1 else "updated")
    assert mail["recordImport"]["snapshot"] == "complete"
    assert mail["recordImport"]["counts"]["added" if round_ == 1 else "updated"] == 2
    chat = files["chat.jsonl"]
    assert chat["status"] == "error" and chat["recordImport"]["snapshot"] == "partial"
    assert chat["recordImport"]["items"][0]["locator"] == "lines:2-2"


def test_schema_copy_in_sync_result_is_record_import() -> None:
    schemas = schemas_by_id()
    own = schemas["gno://schemas/record-import@1.0"]
    copy = schemas["gno://schemas/sync-result@1.0"]["$defs"]["RecordImport"]
    strip = ("$schema", "$id", "title", "description")
    assert {k: v for k, v in copy.items() if k not in strip} == {
        k: v for k, v in own.items() if k not in strip
    }


def test_cli_update_json(env: dict[str, str]) -> None:
    check_files(gno_ok(env, "update", "--json"), 1)


def test_rest_sync_job_result(env: dict[str, str]) -> None:
    from rest_helpers import running

    with running(env, "--no-watch") as srv, httpx.Client(base_url=srv.url, timeout=60) as http:
        receipt = http.post("/api/sync", json={"collection": "notes"})
        assert receipt.status_code == 202, receipt.text
        job_id = receipt.json()["jobId"]
        for _ in range(600):
            job = http.get(f"/api/jobs/{job_id}").json()
            if job["status"] not in ("running", "queued"):
                break
            time.sleep(0.1)
        assert job["status"] == "completed", job
        assert_valid("gno://schemas/api-job@1.0", job)
        check_files(job["result"], 1)


def test_mcp_sync_job_result(env: dict[str, str]) -> None:
    run_gno(env, "update")  # round 1 indexed; the MCP sync sees round 2
    make_exports(Path(env["GNO_ROOT_FOR_TEST"]), 2)
    target = StdioServerParameters(
        command=str(GNO),
        args=["mcp", "--enable-write"],
        env=env,
        cwd=str(Path(env["GNO_CONFIG_DIR"]).parent),
    )
    done: dict[str, Any] = {}

    async def session() -> None:
        async with Client(target, mode="legacy") as client:
            started = await client.call_tool("gno_sync", {"collection": "notes"})
            assert not started.is_error, started.content
            job_id = started.structured_content["jobId"]
            for _ in range(600):
                status = await client.call_tool("gno_job_status", {"jobId": job_id})
                payload = status.structured_content
                if payload["status"] != "running":
                    done.update(payload)
                    return
                await anyio.sleep(0.1)

    anyio.run(session)
    assert done["status"] == "completed", json.dumps(done)[:500]
    assert_valid("gno://schemas/mcp-job-status@1.0", done)
    check_files(done["typedResult"]["value"], 2)
    check_files(done["result"], 2)
