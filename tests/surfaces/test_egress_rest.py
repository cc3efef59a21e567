"""Egress enforcement on REST and the SDK's remote transport, on a real server reached
from a non-loopback address of this machine (``egress_peers``): a local_only collection's
content never reaches that caller, every request from off the machine leaves exactly one
content-free receipt, a loopback caller is never judged, and the answers validate against
the contract schemas."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.egress_policy_set_input import EgressPolicySetInput

from gno.app import App
from gno.core.egress import zone_of
from gno.errors import EgressDeniedError
from gno.paths import resolve_paths
from gno.services.collections import collection_add
from gno.services.egress import egress_policy_set
from tests.conftest import sync, write_tree
from tests.live_server import live_server
from tests.surfaces.egress_peers import (
    assert_valid,
    local_addresses,
    non_loopback_address,
    served_on,
)

SECRET = "hunter2"
TOKEN = "t" * 40


@pytest.fixture
def home(make_app: Any) -> Iterator[App]:
    """Two collections: ``notes`` (never classified: local_only) and ``shared``."""
    app, root = make_app({"plan.md": f"# Plan\n\nThe zebra password is {SECRET}.\n"})
    shared = write_tree(root.parent / "src-shared", {"open.md": "# Open\n\nzebra crossing\n"})
    collection_add(app, CollectionAddInput(path=str(shared), name="shared"))
    sync(app)
    yield app


def receipts(app: App) -> list[dict[str, Any]]:
    import json

    return [json.loads(text) for _, text in app.store().egress_audit_page(None, 1000)]


def relax(app: App, collection: str, target: str) -> None:
    current = app.store().egress_policies().get(collection)
    revision = current[1] if current else 0
    egress_policy_set(
        app,
        EgressPolicySetInput.model_validate(
            {"collection": collection, "policy": target, "confirmRevision": revision}
        ),
    )


@pytest.fixture(params=[0, 2], ids=["threads", "search-processes"])
def served(home: App, request: pytest.FixtureRequest) -> Iterator[tuple[str, App]]:
    """``gno serve``'s app (API token set) on a non-loopback address of this machine, with
    searches on threads and in search processes (which must never skip the egress check)."""
    from gno.rest.app import ServeOptions, create_app
    from gno.rest.security import Gates

    owner = App(resolve_paths())
    options = ServeOptions(
        gates=Gates(token=TOKEN),
        mcp=None,
        watch=False,
        web_ui=False,
        search_processes=request.param,
    )
    api = create_app(owner, options=options)
    with served_on(api, non_loopback_address()) as url:
        yield url, home


def test_rest_denies_local_only_content_to_a_non_loopback_caller(
    served: tuple[str, App],
) -> None:
    url, app = served
    headers = {"X-GNO-Token": TOKEN}
    with httpx.Client(base_url=url, headers=headers, timeout=30) as http:
        for method, path, body in (
            ("POST", "/api/search", {"query": "zebra"}),
            ("POST", "/api/search", {"query": "zebra", "collection": "notes"}),
            ("GET", "/api/doc?uri=gno://notes/plan.md", None),
            ("GET", "/api/collections/notes/egress-policy", None),
            ("GET", "/api/doc-asset?uri=gno://notes/plan.md", None),  # hand-written route
        ):
            before = len(receipts(app))
            answer = http.request(method, path, json=body)
            assert answer.status_code == 403, (path, answer.text)
            assert SECRET not in answer.text and "zebra" not in answer.text
            error = answer.json()["error"]
            assert_valid("gno://schemas/api-error@1.0", answer.json())
            assert error["code"] == "EGRESS_DENIED"
            assert error["details"]["reason"] == "POLICY_LOCAL_ONLY"
            assert error["details"]["audit"]["effectivePolicy"] == "local_only"
            after = receipts(app)
            assert len(after) == before + 1  # audited exactly once
            newest = after[0]
            assert_valid("gno://schemas/egress-audit-receipt@1.0", newest)
            assert newest["decision"] == "denied" and newest["surface"] == "rest"
            assert newest["auditId"] == error["details"]["auditId"]
            assert SECRET not in str(newest) and "zebra" not in str(newest)


def test_rest_serves_a_remote_collection_to_an_authenticated_caller(
    served: tuple[str, App],
) -> None:
    url, app = served
    relax(app, "shared", "remote")
    with httpx.Client(base_url=url, headers={"X-GNO-Token": TOKEN}, timeout=30) as http:
        # Naming the collection keeps the request to it: allowed, and receipted.
        ok = http.post("/api/search", json={"query": "zebra", "collection": "shared"})
        assert ok.status_code == 200, ok.text
        assert "crossing" in ok.text and SECRET not in ok.text
        assert receipts(app)[0]["decision"] == "allowed"
        # Without a collection the request may reach notes: the most restrictive wins.
        mixed = http.post("/api/search", json={"query": "zebra"})
        assert mixed.status_code == 403 and SECRET not in mixed.text
    zone = zone_of(url.split("//")[1].rsplit(":", 1)[0].strip("[]"))
    assert {r["destinationZone"] for r in receipts(app)} == {zone}


def test_rest_without_a_token_is_not_authenticated(home: App) -> None:
    from gno.rest.app import ServeOptions, create_app

    relax(home, "shared", "remote")
    api = create_app(App(resolve_paths()), options=ServeOptions(mcp=None, watch=False))
    with (
        served_on(api, non_loopback_address()) as url,
        httpx.Client(base_url=url, timeout=30) as http,
    ):
        answer = http.post("/api/search", json={"query": "zebra", "collection": "shared"})
    assert answer.status_code == 403, answer.text
    assert answer.json()["error"]["details"]["reason"] == "AUTHENTICATION_REQUIRED"
    assert len(receipts(home)) == 1


def test_sdk_remote_gets_egress_denied_and_no_content(served: tuple[str, App]) -> None:
    from gno import Gno

    url, app = served
    with Gno(url=url, token=TOKEN) as client:
        with pytest.raises(EgressDeniedError) as denied:
            client.search(query="zebra")
        assert SECRET not in str(denied.value) and "zebra" not in str(denied.value)
        with pytest.raises(EgressDeniedError):
            client.get(ref="gno://notes/plan.md")
    mine = [r for r in receipts(app) if r["surface"] == "sdk"]
    assert [r["operation"] for r in mine] == ["get", "search"]  # newest first, once each


def test_loopback_callers_are_never_judged(home: App) -> None:
    """The same server on 127.0.0.1: content flows, nothing is recorded."""
    from gno.rest.app import ServeOptions, create_app

    api = create_app(App(resolve_paths()), options=ServeOptions(mcp=None, watch=False))
    with live_server(api) as (url, _), httpx.Client(base_url=url, timeout=30) as http:
        answer = http.post("/api/search", json={"query": "zebra"})
        assert answer.status_code == 200 and SECRET in answer.text
    assert receipts(home) == []


def test_policy_routes_and_audit_routes(home: App, tmp_path: Path) -> None:
    from gno.rest.app import ServeOptions, create_app

    api = create_app(App(resolve_paths()), options=ServeOptions(mcp=None, watch=False))
    with live_server(api) as (url, _), httpx.Client(base_url=url, timeout=30) as http:
        got = http.get("/api/collections/notes/egress-policy")
        assert got.status_code == 200 and got.json()["policy"] == "local_only"
        assert_valid("gno://schemas/egress-policy@1.0", got.json())
        unconfirmed = http.put("/api/collections/notes/egress-policy", json={"policy": "lan"})
        assert unconfirmed.status_code == 400, unconfirmed.text
        confirmation = {
            "collection": "notes",
            "currentPolicy": "local_only",
            "currentRevision": 0,
            "targetPolicy": "lan",
            "acknowledged": True,
        }
        body = {"policy": "lan", "confirmation": confirmation}
        relaxed = http.put("/api/collections/notes/egress-policy", json=body)
        assert relaxed.status_code == 200, relaxed.text
        assert_valid("gno://schemas/egress-policy-set-result@1.0", relaxed.json())
        assert relaxed.json()["current"] == {"policy": "lan", "revision": 1, "source": "explicit"}
        # The same confirmation again (replayed) names revision 0: stale now.
        tightened = http.put("/api/collections/notes/egress-policy", json={"policy": "local_only"})
        assert tightened.status_code == 200
        replayed = http.put("/api/collections/notes/egress-policy", json=body)
        assert replayed.status_code == 409 and replayed.json()["error"]["code"] == "CONFLICT"
        forged = {**confirmation, "collection": "shared", "currentRevision": 2}
        refused = http.put(
            "/api/collections/notes/egress-policy", json={"policy": "lan", "confirmation": forged}
        )
        assert refused.status_code == 409
        assert http.get("/api/collections/notes/egress-policy").json()["revision"] == 2
        unknown = http.get("/api/collections/nope/egress-policy")
        assert unknown.status_code == 404
        check = http.post(
            "/api/egress/check",
            json={
                "action": "serve",
                "destinationZone": "remote",
                "caller": {"authenticated": True, "operationAuthorized": True},
                "contentClass": "snippet",
            },
        )
        assert check.status_code == 200 and check.json()["allowed"] is False
        assert_valid("gno://schemas/egress-decision@1.0", check.json())
        listed = http.get("/api/egress/audits")
        assert listed.status_code == 200 and listed.json()["receipts"] == []
        bad = http.get("/api/egress/audits", params={"cursor": "not-a-cursor"})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "VALIDATION"
        status = http.get("/api/egress/audits/status")
        assert_valid("gno://schemas/egress-audit-status@1.0", status.json())
        missing = http.get("/api/egress/audits/egr_000000000000000000000000")
        assert missing.status_code == 404
        purge = http.delete("/api/egress/audits")
        assert purge.status_code == 400  # confirm=true is required
        purged = http.delete("/api/egress/audits", params={"confirm": "true"})
        assert purged.status_code == 200 and purged.json()["deleted"] == 0


def test_lan_zone_from_a_private_address_of_this_machine(home: App) -> None:
    """A real socket on a private-network address (e.g. an IPv6 unique-local one): `lan`
    content goes to an authenticated caller there, `local_only` content does not."""
    from gno.rest.app import ServeOptions, create_app
    from gno.rest.security import Gates

    lan = [a for a in local_addresses() if zone_of(a) == "lan"]
    if not lan:
        pytest.skip("this machine has no private-network address to serve from")
    relax(home, "shared", "lan")
    options = ServeOptions(gates=Gates(token=TOKEN), mcp=None, watch=False, web_ui=False)
    api = create_app(App(resolve_paths()), options=options)
    with (
        served_on(api, lan[0]) as url,
        httpx.Client(base_url=url, headers={"X-GNO-Token": TOKEN}, timeout=30) as http,
    ):
        ok = http.post("/api/search", json={"query": "zebra", "collection": "shared"})
        assert ok.status_code == 200 and "crossing" in ok.text, ok.text
        denied = http.post("/api/search", json={"query": "zebra", "collection": "notes"})
        assert denied.status_code == 403 and SECRET not in denied.text
    found = receipts(home)
    assert [(r["destinationZone"], r["decision"]) for r in found] == [
        ("lan", "denied"),
        ("lan", "allowed"),
    ]
    assert found[1]["reason"] == "LAN_POLICY_AUTHENTICATED"
