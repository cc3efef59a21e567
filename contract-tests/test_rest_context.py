"""POST /api/context and /api/context/verify on a real `gno serve`: JSON Capsules that
validate, Markdown with format md, GNO's lowercase context codes with their statuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from contract_helpers import assert_valid
from rest_helpers import build_corpus, running


def test_context_routes(tmp_path: Path) -> None:
    env = build_corpus(tmp_path, vectors=False)
    with running(env) as server:
        url = server.url
        body = {"goal": "lighthouse keeper", "budgetTokens": 12000, "depthPolicy": "fast"}
        built = httpx.post(f"{url}/api/context", json=body, timeout=30)
        assert built.status_code == 200, built.text
        capsule = built.json()
        assert_valid("gno://schemas/context-capsule-v1@1.1", capsule)
        again = httpx.post(f"{url}/api/context", json=body, timeout=30).json()
        assert again["capsuleId"] == capsule["capsuleId"]  # the same request, the same Capsule

        md = httpx.post(f"{url}/api/context", json=body | {"format": "md"}, timeout=30)
        assert md.status_code == 200
        assert md.headers["content-type"].startswith("text/markdown")
        assert capsule["capsuleId"] in md.text

        checked = httpx.post(f"{url}/api/context/verify", json={"capsule": capsule}, timeout=30)
        assert checked.status_code == 200, checked.text
        assert_valid("gno://schemas/context-capsule-verification@1.0", checked.json())
        assert checked.json()["contentStatus"] == "unchanged"

        forged = capsule | {"goal": "something else"}
        bad = httpx.post(f"{url}/api/context/verify", json={"capsule": forged}, timeout=30)
        assert (bad.status_code, bad.json()["error"]["code"]) == (400, "identity_mismatch")
        _compiled_routes(url, capsule, forged)
        cases = [
            (body | {"budgetTokens": 0}, 400, "invalid_budget"),
            (body | {"goal": "   "}, 400, "invalid_goal"),
            (body | {"collections": ["nope"]}, 400, "invalid_filter"),
            (body | {"goal": "qqqxyzzy nothingmatches"}, 404, "no_evidence"),
        ]
        for sent, status, code in cases:
            answer = httpx.post(f"{url}/api/context", json=sent, timeout=30)
            assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), sent
        unknown = httpx.post(f"{url}/api/context", json=body | {"bogus": 1}, timeout=30)
        assert unknown.status_code == 400  # closed input


def _compiled_routes(url: str, capsule: dict[str, Any], forged: dict[str, Any]) -> None:
    """POST /api/context/compiled/preview and /check: valid receipts, context codes."""
    preview_url, check_url = (
        f"{url}/api/context/compiled/preview",
        f"{url}/api/context/compiled/check",
    )
    body = {"capsule": capsule, "budgetTokens": 12000}
    shown = httpx.post(preview_url, json=body, timeout=30)
    assert shown.status_code == 200, shown.text
    preview = shown.json()
    assert_valid("gno://schemas/context-compiled-preview@1.0", preview)
    assert preview["budget"]["usedBytes"] <= 12000 and preview["included"]
    markdown = preview["markdown"]
    checked = httpx.post(check_url, json={"capsule": capsule, "markdown": markdown}, timeout=30)
    assert checked.status_code == 200, checked.text
    assert_valid("gno://schemas/context-compiled-check@1.0", checked.json())
    assert checked.json()["status"] == "current"
    edited = {"capsule": capsule, "markdown": markdown + "\nmy own line\n"}
    assert httpx.post(check_url, json=edited, timeout=30).json()["status"] == "modified"
    cases = [
        (preview_url, body | {"budgetTokens": 0}, 400, "invalid_budget"),
        (preview_url, body | {"budgetTokens": 10}, 400, "invalid_budget"),
        (preview_url, body | {"capsule": forged}, 400, "identity_mismatch"),
        (check_url, {"capsule": {"schemaVersion": "1.1"}, "markdown": ""}, 400, "invalid_input"),
    ]
    for route, sent, status, code in cases:
        answer = httpx.post(route, json=sent, timeout=30)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), sent
    for route, sent in ((preview_url, body | {"bogus": 1}), (check_url, {"capsule": capsule})):
        assert httpx.post(route, json=sent, timeout=30).status_code == 400  # closed, required


def test_ask_route(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.fake_openai import FakeOpenAI

    env = build_corpus(tmp_path, vectors=False)
    env["GNO_GEN_MODEL"] = f"file:{tmp_path / 'missing-gen.gguf'}"
    with running(env) as server:
        body = {"query": "lighthouse keeper"}
        refused = httpx.post(f"{server.url}/api/ask", json=body, timeout=30)
        assert (refused.status_code, refused.json()["error"]["code"]) == (503, "UNAVAILABLE")
        unknown = httpx.post(f"{server.url}/api/ask", json=body | {"bogus": 1}, timeout=30)
        assert unknown.status_code == 400  # closed body
    with FakeOpenAI(mode="ok") as fake:
        fake.chat_reply = lambda _: "The keeper tends the lighthouse [1]."
        env["GNO_GEN_MODEL"] = f"{fake.url}/v1#fake-gen"
        with running(env) as server:
            answered = httpx.post(f"{server.url}/api/ask", json=body | {"limit": 50}, timeout=60)
            assert answered.status_code == 200, answered.text
            payload = answered.json()
            assert_valid("gno://schemas/ask@1.0", payload)
            assert payload["answer"] == "The keeper tends the lighthouse [1]."
            assert len(payload["results"]) <= 20  # GNO clamps ask's limit to 20
            status = httpx.get(f"{server.url}/api/capabilities", timeout=30).json()
            assert status["answer"] is True


def test_watched_capsule_is_reverified_after_a_sync(tmp_path: Path) -> None:
    from contract_helpers import gno_ok, run_gno
    from test_rest_watch import EventStream, poll

    env = build_corpus(tmp_path, vectors=False)
    out = tmp_path / "cap.json"
    args = ["context", "build", "zephyrquartz", "--budget", "12000", "--fast", "--json"]
    assert run_gno(env, *args, "--output", str(out)).returncode == 0
    capsule = json.loads(out.read_text())
    registered = gno_ok(env, "context", "watch", str(out), "--label", "secret label", "--json")
    reg = registered["registration"]["registrationId"]
    assert [
        r["registrationId"] for r in gno_ok(env, "context", "watches", "--json")["registrations"]
    ] == [reg]
    with running(env) as server:
        stream = EventStream(server.url)
        rel = capsule["evidence"][0]["uri"].split("/", 3)[3]
        root = next(
            Path(c["path"])
            for c in json.loads(run_gno(env, "collection", "list", "--json").stdout)
            if capsule["evidence"][0]["uri"].startswith(f"gno://{c['name']}/")
        )
        (root / rel).write_text("# Rewritten\n\nNothing of the old text.\n", encoding="utf-8")
        assert httpx.post(f"{server.url}/api/sync", json={}, timeout=30).status_code == 202

        def reverified() -> dict[str, Any] | None:
            return next(
                (d for n, d in stream.events if d.get("type") == "capsule-reverified"), None
            )

        event = poll(reverified, "the capsule-reverified event")
        assert_valid("gno://schemas/capsule-reverified-event@1.0", event)
        assert event["registrationId"] == reg and event["contentStatus"] == "stale"
        assert "secret label" not in json.dumps(event) and "uri" not in event
    receipt = gno_ok(env, "context", "reverify", reg, "--json")
    assert (
        receipt["operationStatus"] == "completed" and receipt["receipt"]["contentStatus"] == "stale"
    )
    gno_ok(env, "context", "unwatch", reg, "--json")
    assert gno_ok(env, "context", "watches", "--json")["registrations"] == []
    gone = run_gno(env, "context", "reverify", reg, "--json")
    assert gone.returncode == 1


def test_watched_capsule_is_reverified_under_the_daemon(tmp_path: Path) -> None:
    """`gno daemon` serves no /api/events, but its watcher's sync re-verifies a watched
    Capsule all the same: the registration records the new content status."""
    import time

    from contract_helpers import gno_ok, run_gno

    env = build_corpus(tmp_path, vectors=False)
    out = tmp_path / "cap.json"
    args = ["context", "build", "zephyrquartz", "--budget", "12000", "--fast", "--json"]
    assert run_gno(env, *args, "--output", str(out)).returncode == 0
    capsule = json.loads(out.read_text())
    reg = gno_ok(env, "context", "watch", str(out), "--json")["registration"]["registrationId"]
    uri = capsule["evidence"][0]["uri"]
    root = next(
        Path(c["path"])
        for c in json.loads(run_gno(env, "collection", "list", "--json").stdout)
        if uri.startswith(f"gno://{c['name']}/")
    )
    with running(env, "--no-sync-on-start", command="daemon"):

        def status() -> str | None:
            listed = gno_ok(env, "context", "watches", "--json")["registrations"]
            return next(r["lastContentStatus"] for r in listed if r["registrationId"] == reg)

        assert status() is None
        (root / uri.split("/", 3)[3]).write_text("# Rewritten\n\nNothing old.\n", encoding="utf-8")
        deadline = time.monotonic() + 60
        while status() != "stale":
            assert time.monotonic() < deadline, "the daemon never re-verified the Capsule"
            time.sleep(0.2)
