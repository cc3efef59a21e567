"""Egress state on a real index: policy changes through the handler (confirmations,
revisions, the epoch), receipts (append-only, retention, cursors), ``egressLineage`` in
results and Capsules, and the per-request gate — including the property that no sequence
of policy changes lets content of a local_only collection reach a caller off this
machine, each request audited exactly once."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw
import httpx
import pytest
import yaml
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.collection_remove_input import CollectionRemoveInput
from gno_contracts.models.collection_rename_input import CollectionRenameInput
from gno_contracts.models.context_input import ContextInput
from gno_contracts.models.egress_audit_list_input import EgressAuditListInput
from gno_contracts.models.egress_policy_set_input import EgressPolicySetInput
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gno.adapters.sqlite import egress as egress_tables
from gno.adapters.sqlite.egress import EgressLedger
from gno.app import App
from gno.core.egress import zone_of
from gno.errors import (
    ConflictError,
    EgressDeniedError,
    EgressPolicyChangedError,
    NotFoundError,
    ValidationError,
)
from gno.rest.egress_gate import EgressGate, McpEgressGate
from gno.rows import now_iso
from gno.services import egress
from gno.services.collections import collection_add, collection_remove, collection_rename
from tests.conftest import search, sync, write_tree


@pytest.fixture
def app(make_app: Any) -> Iterator[App]:
    app, _ = make_app({"plan.md": "# Plan\n\nzebra hunter2\n"})
    sync(app)
    yield app


def set_policy(app: App, policy: str, **extra: Any) -> Any:
    inp = EgressPolicySetInput.model_validate({"collection": "notes", "policy": policy, **extra})
    return egress.egress_policy_set(app, inp)


def confirmation(current: str, revision: int, target: str, name: str = "notes") -> dict[str, Any]:
    return {
        "confirmation": {
            "collection": name,
            "currentPolicy": current,
            "currentRevision": revision,
            "targetPolicy": target,
            "acknowledged": True,
        }
    }


def test_relaxing_needs_the_current_revision_and_nothing_changes_otherwise(app: App) -> None:
    with pytest.raises(ValidationError):
        set_policy(app, "remote")
    with pytest.raises(ConflictError):  # forged: another collection's confirmation
        set_policy(app, "lan", **confirmation("local_only", 0, "lan", name="other"))
    with pytest.raises(ConflictError):  # forged: wrong revision
        set_policy(app, "lan", **confirmation("local_only", 5, "lan"))
    assert app.store().egress_policies() == {} and app.store().egress_epoch() == 0
    done = set_policy(app, "lan", **confirmation("local_only", 0, "lan"))
    assert done.relaxed and done.current.revision == 1 and done.policyEpoch == 1
    with pytest.raises(ConflictError):  # replayed: revision 0 is gone
        set_policy(app, "lan", **confirmation("local_only", 0, "lan"))
    tightened = set_policy(app, "local_only")  # tightening needs nothing
    assert (tightened.current.policy, tightened.current.revision) == ("local_only", 2)
    with pytest.raises(ConflictError):
        set_policy(app, "remote", confirmRevision=1)
    assert set_policy(app, "remote", confirmRevision=2).current.revision == 3
    with pytest.raises(NotFoundError):
        egress.egress_policy_set(
            app, EgressPolicySetInput.model_validate({"collection": "nope", "policy": "lan"})
        )


def test_lineage_follows_the_policy_in_results_and_capsules(app: App) -> None:
    hit = search(app, "zebra").results[0]
    assert hit.egressLineage is not None
    assert hit.egressLineage.effectivePolicy.value == "local_only"
    before = hit.egressLineage.digest
    set_policy(app, "lan", confirmRevision=0)
    after = search(app, "zebra").results[0].egressLineage
    assert after is not None and after.effectivePolicy.value == "lan" and after.digest != before
    from gno.services.context_build import build

    capsule = build(app, ContextInput(goal="zebra", budgetTokens=12000, depthPolicy="fast"))
    dumped = capsule.model_dump(mode="json")
    assert dumped["egressLineage"]["effectivePolicy"] == "lan"
    assert {e["egress"] for e in dumped["evidence"]} == {"lan"}
    assert dumped["egressLineage"]["sources"] == [
        {"collection": "notes", "policy": "lan", "source": "explicit"}
    ]


def add_collection(app: App, name: str, files: dict[str, str]) -> Path:
    root = Path(app.paths.db_path).parent.parent / f"src-{name}"
    write_tree(root, files)
    collection_add(app, CollectionAddInput(path=str(root), name=name))
    return root


def test_a_new_collection_under_a_removed_ones_name_starts_local_only(app: App) -> None:
    set_policy(app, "remote", confirmRevision=0)
    add_collection(app, "diary", {"d.md": "# Diary\n"})
    set_policy(app, "lan", **confirmation("remote", 1, "lan"))  # a tightening, kept
    egress.egress_policy_set(
        app,
        EgressPolicySetInput.model_validate(
            {"collection": "diary", "policy": "remote", "confirmRevision": 0}
        ),
    )
    epoch = app.store().egress_epoch()
    collection_remove(app, CollectionRemoveInput(collection="notes"))
    add_collection(app, "notes", {"private.md": "# Private\n\nzebra\n"})
    state = egress.states(app, ["notes", "diary"])
    assert [(s.policy, s.revision, s.source) for s in state] == [
        ("local_only", 3, "legacy_default"),
        ("remote", 1, "explicit"),  # a collection that stays keeps its policy
    ]
    assert app.store().egress_epoch() == epoch + 1
    with pytest.raises(ConflictError):  # the old collection's confirmation is stale
        set_policy(app, "remote", **confirmation("lan", 2, "remote"))


def test_a_rename_to_a_removed_name_or_an_edit_of_index_yml_leaves_no_policy_behind(
    app: App,
) -> None:
    set_policy(app, "remote", confirmRevision=0)
    collection_rename(app, CollectionRenameInput(oldName="notes", newName="shared"))
    assert egress.states(app, ["shared"])[0].policy == "local_only"
    egress.egress_policy_set(
        app,
        EgressPolicySetInput.model_validate(
            {"collection": "shared", "policy": "remote", "confirmRevision": 0}
        ),
    )
    collection_rename(app, CollectionRenameInput(oldName="shared", newName="notes"))
    assert egress.states(app, ["notes"])[0].policy == "local_only"  # not the old "notes" row
    set_policy(app, "lan", confirmRevision=app.store().egress_policies()["notes"][1])
    # index.yml edited by hand: the collection goes, then comes back over another folder
    text = app.paths.config_file.read_text()
    config = yaml.safe_load(text)
    kept = config["collections"]
    app.paths.config_file.write_text(yaml.safe_dump({**config, "collections": []}))
    app.refresh_config()
    app.paths.config_file.write_text(yaml.safe_dump({**config, "collections": kept}))
    app.refresh_config()
    assert egress.states(app, ["notes"])[0].policy == "local_only"
    rows = app.store().egress_policies()
    assert {name: row[0] for name, row in rows.items()} == {
        "notes": "local_only",
        "shared": "local_only",
    }


def receipt(n: int) -> str:
    """A valid receipt (the contract example), numbered by its policyEpoch."""
    from pathlib import Path

    example = Path(__file__).parents[2] / "schemas/examples/egress-audit-receipt/01-denied.json"
    payload = json.loads(example.read_text())
    return json.dumps({**payload, "auditId": f"egr_{n:024x}", "policyEpoch": n})


def test_receipts_are_append_only_paged_by_cursor_and_bounded(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = app.store()
    monkeypatch.setattr(egress_tables, "MAX_RECEIPTS", 4)
    store.append_egress_audit("egr_old", "2000-01-01T00:00:00.000Z", receipt(99))
    assert store.egress_audit_receipt("egr_old") is None  # older than 30 days: dropped at once
    for n in range(6):
        store.append_egress_audit(f"egr_{n:024x}", now_iso(), receipt(n))
    assert store.egress_audit_counts()[0] == 4  # the oldest two went
    other = apsw.Connection(str(egress_tables.audit_path(app.paths.db_path)))
    with pytest.raises(apsw.ConstraintError):  # append-only, whoever writes
        other.execute("UPDATE egress_audits SET receipt_json = '{}'")
    other.close()
    pages, cursor = [], None
    while True:
        got = egress.egress_audit_list(
            app, EgressAuditListInput.model_validate({"limit": 3, "cursor": cursor})
        )
        pages.append([r.policyEpoch for r in got.receipts])
        if got.nextCursor is None:
            break
        cursor = got.nextCursor
    assert pages == [[5, 4, 3], [2]]
    for bad in ("x", "ZWdyMTow", "ZWdyMTotMQ", "%%%", "ZWdyMjoz", "a" * 512):
        with pytest.raises(ValidationError):
            egress.decode_cursor(bad)


def gate_for(app: App) -> EgressGate:
    return EgressGate(EgressLedger(app.paths.db_path), lambda: egress.configured(app))


def admit(gate: EgressGate, peer: str, **args: Any) -> Any:
    return gate.admit(
        {"client": (peer, 5000)},
        surface="rest",
        operation="search",
        op_id="search",
        args=args,
        authenticated=True,
        authorized=True,
    )


def test_a_policy_change_mid_request_is_refused_and_an_unrelated_one_is_not(
    app: App, make_app: Any
) -> None:
    set_policy(app, "remote", confirmRevision=0)
    gate = gate_for(app)
    verdict = admit(gate, "203.0.113.7", collection="notes")
    assert verdict is not None and verdict.decision.allowed
    set_policy(app, "lan")  # tightened while the request ran
    with pytest.raises(EgressPolicyChangedError):
        gate.confirm(verdict)
    fresh = admit(gate, "10.1.2.3", collection="notes")
    app.store().swap_egress_policy("elsewhere", 0, "lan", "explicit")  # another collection
    gate.confirm(fresh)  # nothing of this request changed
    assert admit(gate, "127.0.0.1") is None  # loopback: not judged, nothing recorded
    assert app.store().egress_audit_counts()[0] == 2


def test_mcp_gate_answers_409_when_the_policy_changes_before_the_answer(app: App) -> None:
    """A real request at the ASGI boundary from 203.0.113.9 (remote): the tool runs, the
    policy is tightened meanwhile, and the answer is replaced by 409."""
    set_policy(app, "remote", confirmRevision=0)

    async def tool(scope: Any, receive: Any, send: Any) -> None:
        set_policy(app, "local_only")  # a CLI changes the policy while the tool runs
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b'{"result":"zebra hunter2"}'})

    async def authenticated(scope: Any, receive: Any, send: Any) -> None:
        scope["gno.authenticated"] = True
        await McpEgressGate(tool, gate_for(app), enable_write=False)(scope, receive, send)

    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=authenticated, client=("203.0.113.9", 4000))
        async with httpx.AsyncClient(transport=transport, base_url="http://gno.test") as http:
            call = {"name": "gno_search", "arguments": {"query": "zebra", "collection": "notes"}}
            body = {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": call}
            return await http.post("/mcp/", json=body)

    import anyio

    answer = anyio.run(run)
    assert answer.status_code == 409, answer.text
    assert "hunter2" not in answer.text and "EGRESS_POLICY_CHANGED" in answer.text
    assert app.store().egress_audit_counts()[0] == 1


policy_step = st.one_of(
    st.tuples(st.just("set"), st.sampled_from(["local_only", "lan", "remote"]), st.integers(0, 5)),
    st.tuples(st.just("set-unconfirmed"), st.sampled_from(["local_only", "lan", "remote"])),
    st.tuples(st.just("request"), st.sampled_from(["192.168.1.20", "203.0.113.4", "fd00::9"])),
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(steps=st.lists(policy_step, min_size=1, max_size=10))
def test_no_policy_sequence_lets_local_only_content_leave(
    app: App, steps: list[tuple[Any, ...]]
) -> None:
    store = app.store()  # one index per test; each example starts from no policy
    store.conn.execute("DELETE FROM egress_policies")
    store.purge_egress_audits()
    gate = gate_for(app)
    for step in steps:
        if step[0] == "set":
            with contextlib.suppress(ConflictError, ValidationError):  # refused: no change
                set_policy(app, step[1], confirmRevision=step[2])
        elif step[0] == "set-unconfirmed":
            with contextlib.suppress(ConflictError, ValidationError):
                set_policy(app, step[1])
        else:
            before = store.egress_audit_counts()[0]
            policy = egress.states(app, ["notes"])[0].policy
            try:
                verdict = admit(gate, step[1], collection="notes")
                allowed = verdict is not None and verdict.decision.allowed
            except EgressDeniedError:
                allowed = False
            assert store.egress_audit_counts()[0] == before + 1  # audited exactly once
            if policy == "local_only":
                assert not allowed
            if zone_of(step[1]) == "remote" and policy == "lan":
                assert not allowed


def test_receipts_do_not_move_the_index_generation(app: App) -> None:
    """Receipts are written per request from off the machine: they live beside the index,
    so readers keep their caches (result cache, edge projection, page cache)."""
    store = app.store()
    before = store.generation()
    gate = gate_for(app)
    with pytest.raises(EgressDeniedError):
        admit(gate, "203.0.113.8", collection="notes")
    assert store.egress_audit_counts()[0] == 1
    assert store.generation() == before


def test_the_ledger_keeps_its_snapshot_until_another_connection_commits(app: App) -> None:
    """A server's policy snapshot is reread only when the index changed (data_version): the
    same object while nothing was committed, the new policy and epoch right after a change."""
    ledger = EgressLedger(app.paths.db_path)
    try:
        first = ledger.snapshot()
        assert ledger.snapshot() is first  # nothing committed: no reread
        # another connection (the App's) commits a policy change
        set_policy(app, "lan", **confirmation("local_only", 0, "lan"))
        after = ledger.snapshot()
        assert after is not first
        assert after[0]["notes"][0] == "lan" and after[1] == first[1] + 1
        assert ledger.epoch() == after[1]
    finally:
        ledger.close()


def test_a_trace_of_a_removed_collection_is_not_judged_by_its_successor(app: App) -> None:
    """A trace holds `gno://notes/…` of the collection it was recorded on. Once that
    collection is removed and another is added under its name and relaxed to `remote`,
    the old trace must still be judged as a collection nobody classified (local_only), not
    by the newcomer's policy; a trace recorded after the newcomer arrived is judged by it."""
    from gno_contracts.models.search_input import SearchInput

    from gno.rest.trace_lineage import trace_collections
    from gno.services import handler
    from gno.services.trace_record import record_call

    def traced_search() -> str:
        inp = SearchInput(query="zebra")
        trace_id = record_call(app, "search", inp, handler("search")(app, inp))
        assert trace_id is not None
        return trace_id

    config = app.config
    config.raw["retrievalTraces"] = {"enabled": True}
    app.save_config(config)
    old_trace = traced_search()
    collection_remove(app, CollectionRemoveInput(collection="notes"))
    add_collection(app, "notes", {"public.md": "# Public\n\nzebra crossing\n"})
    sync(app)
    set_policy(app, "remote", confirmRevision=0)
    new_trace = traced_search()
    ledger = EgressLedger(app.paths.db_path)
    gate = EgressGate(
        ledger,
        lambda: egress.configured(app),
        lambda op_id, args: trace_collections(app.paths.db_path, op_id, args, ledger.arrivals),
    )

    def export(*trace_ids: str) -> Any:
        return gate.admit(
            {"client": ("203.0.113.7", 5000)},
            surface="rest",
            operation="trace_export",
            op_id="trace_export",
            args={"traceIds": list(trace_ids)},
            authenticated=True,
            authorized=True,
        )

    verdict = export(new_trace)
    assert verdict is not None and verdict.decision.allowed
    gate.confirm(verdict)
    for trace_ids in ([old_trace], [new_trace, old_trace]):
        with pytest.raises(EgressDeniedError) as denied:
            export(*trace_ids)
        assert denied.value.details["reason"] == "POLICY_LOCAL_ONLY"
        assert denied.value.details["audit"]["collections"] == ["notes"]
    # A rename onto a removed name: that name's traces are the removed collection's.
    collection_remove(app, CollectionRemoveInput(collection="notes"))
    add_collection(app, "drafts", {"d.md": "# Drafts\n"})
    collection_rename(app, CollectionRenameInput(oldName="drafts", newName="notes"))
    set_policy(app, "remote", confirmRevision=app.store().egress_policies()["notes"][1])
    with pytest.raises(EgressDeniedError):
        export(new_trace)


def test_a_removed_collections_journal_counts_for_a_remote_reader(app: App) -> None:
    """A removed collection's journal entries (paths, headings) stay until retention and
    `changes` serves them. They reached a caller off the machine once every remaining
    collection was remote; they now count as that collection's (local_only), and
    `collection` narrows the request. A new collection of the name starts with no history."""
    from gno_contracts.models.changes_input import ChangesInput

    from gno.services import journal

    def page() -> list[tuple[str, str]]:
        got = journal.changes_payload(app, ChangesInput(limit=1000))["changes"]
        return [(c["collection"], c["id"]) for c in got]

    def remote_changes(**args: Any) -> Any:
        return gate_for(app).admit(
            {"client": ("203.0.113.7", 5000)},
            surface="rest",
            operation="changes",
            op_id="changes",
            args=args,
            authenticated=True,
            authorized=True,
        )

    add_collection(app, "shared", {"s.md": "# Shared\n"})
    sync(app)
    old = [entry for entry in page() if entry[0] == "notes"]
    assert old
    collection_remove(app, CollectionRemoveInput(collection="notes"))
    egress.egress_policy_set(
        app,
        EgressPolicySetInput.model_validate(
            {"collection": "shared", "policy": "remote", "confirmRevision": 0}
        ),
    )
    assert set(old) < set(page())  # kept for local readers, with their inactivations
    with pytest.raises(EgressDeniedError) as denied:
        remote_changes()
    assert denied.value.details["reason"] == "POLICY_LOCAL_ONLY"
    assert denied.value.details["audit"]["collections"] == ["shared", "notes"]
    verdict = remote_changes(collection="shared")
    assert verdict is not None and verdict.decision.allowed
    add_collection(app, "notes", {"other.md": "# Other\n"})
    sync(app)
    again = page()
    assert not set(old) & set(again) and any(c == "notes" for c, _ in again)
    store = app.store()
    left = store.conn.execute("SELECT count(*), sum(bytes) FROM document_changes").fetchone()
    state = store.journal_state()
    assert (state.entries, state.bytes) == tuple(left)  # the counters followed the delete


def test_cleanup_drops_a_removed_collections_journal(app: App) -> None:
    """The remedy the spec names for a refused remote `changes`: `gno cleanup`."""
    from gno_contracts.models.changes_input import ChangesInput
    from gno_contracts.models.cleanup_input import CleanupInput

    from gno.services import journal
    from gno.services.collections import cleanup

    add_collection(app, "shared", {"s.md": "# Shared\n"})
    sync(app)
    collection_remove(app, CollectionRemoveInput(collection="notes"))
    app.store()
    assert app.store().journal_page(0, None, "notes", 10)  # kept for local readers
    cleanup(app, CleanupInput())
    got = journal.changes_payload(app, ChangesInput(limit=1000))["changes"]
    assert {c["collection"] for c in got} == {"shared"}
    assert gate_for(app).ledger.journal_collections() == ["shared"]
    store = app.store()
    left = store.conn.execute("SELECT count(*), sum(bytes) FROM document_changes").fetchone()
    assert (store.journal_state().entries, store.journal_state().bytes) == tuple(left)


def test_arrivals_a_hand_edit_spoiled_are_read_as_unknown(app: App) -> None:
    from gno.adapters.sqlite.egress import ARRIVALS_KEY, read_arrivals

    store = app.store()
    for value in ("not json", "[1, 2]", '{"notes": "soon", "x": true, "ok": 5}'):
        with store.write():
            store.set_meta(ARRIVALS_KEY, value)
        assert read_arrivals(store.conn) in ({}, {"ok": 5})
