"""GET /api/metadata (issue 17 item 3): the typed frontmatter metadata registry on a real
`gno serve`, and `gno metadata --json` on the CLI, over one indexed folder."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from contract_helpers import indexed_notes, run_gno
from rest_helpers import running

NOTES = {
    "a.md": "---\npriority: 3\ndue: 2026-12-24\ntags: [work, q4]\nstatus: open\n---\n# A\n\nalpha\n",
    "b.md": "---\npriority: 1\ndue: not a date\ntags: [work]\n---\n# B\n\nbeta\n",
    "c.md": "# C\n\nno frontmatter\n",
}


def build(tmp_path: Path) -> dict[str, str]:
    return indexed_notes(tmp_path, NOTES)


def test_metadata_registry_over_rest_and_cli(tmp_path: Path) -> None:
    env = build(tmp_path)
    with running(env) as srv:
        answer = httpx.get(f"{srv.url}/api/metadata", params={"collection": "notes"}, timeout=30)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        bad = httpx.get(f"{srv.url}/api/metadata", params={"values": 0}, timeout=30)
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "VALIDATION"
        missing = httpx.get(f"{srv.url}/api/metadata", params={"collection": "nope"}, timeout=30)
        assert missing.status_code == 404
    assert body["collection"] == "notes" and body["documentCount"] == 2
    keys = {k["key"]: k for k in body["keys"]}
    assert keys["priority"]["type"] == "number" and keys["priority"]["documentCount"] == 2
    assert keys["due"]["types"] == ["date", "string"]  # one real date, one text
    assert keys["tags"]["type"] == "list"
    assert keys["tags"]["values"][0] == {"value": "work", "count": 2}
    assert keys["status"] == {
        "key": "status",
        "type": "string",
        "types": ["string"],
        "documentCount": 1,
        "values": [{"value": "open", "count": 1}],
    }
    done = run_gno(env, "metadata", "--values", "1", "--json")
    assert done.returncode == 0, done.stderr
    cli = json.loads(done.stdout)
    assert all(len(k["values"]) <= 1 for k in cli["keys"])
    assert {k["key"] for k in cli["keys"]} == set(keys)
