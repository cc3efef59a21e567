"""Collection egress policies and their audit receipts (spec/egress.md).

The rule is ``gno.core.egress``; this module gives it state. A collection's policy is
the one stored in the index (``explicit``, with its revision), else ``local_only``
(``legacy_default``): a collection nobody classified never leaves the machine. ``judge`` is the per-request
decision of a server (REST, SDK remote, ``/mcp``): which collections a request touches,
the caller's zone, the decision and the content-free receipt recorded for every
request from off this machine. The operations below are the registry handlers.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from gno_contracts.models.egress_audit_id_input import EgressAuditIdInput
from gno_contracts.models.egress_audit_list import EgressAuditList
from gno_contracts.models.egress_audit_list_input import EgressAuditListInput
from gno_contracts.models.egress_audit_purge_input import EgressAuditPurgeInput
from gno_contracts.models.egress_audit_receipt import EgressAuditReceipt
from gno_contracts.models.egress_audit_removal import EgressAuditRemoval
from gno_contracts.models.egress_audit_status import EgressAuditStatus
from gno_contracts.models.egress_audit_status_input import EgressAuditStatusInput
from gno_contracts.models.egress_check_input import EgressCheckInput
from gno_contracts.models.egress_decision import EgressDecision
from gno_contracts.models.egress_policy import EgressPolicyState
from gno_contracts.models.egress_policy_get_input import EgressPolicyGetInput
from gno_contracts.models.egress_policy_set_input import EgressPolicySetInput
from gno_contracts.models.egress_policy_set_result import EgressPolicySetResult

from gno.app import App
from gno.core import egress as rule
from gno.core import egress_lineage
from gno.core.egress import (
    Caller,
    Confirmation,
    Decision,
)
from gno.core.egress_lineage import Policy, PolicyRows, PolicyState, rank, state_of
from gno.errors import ConflictError, NotFoundError, ValidationError
from gno.rows import now_iso

MAX_RECEIPTS = 10_000  # the adapter's retention (gno/adapters/sqlite/egress.py)
MAX_AGE_DAYS = 30


# ---------------------------------------------------------------- state


def _v(value: object) -> str:
    """An enum member or a plain string as its wire text."""
    return str(getattr(value, "value", value))


def configured(app: App) -> list[str]:
    return [c.name for c in app.config.collections]


def states(app: App, names: Iterable[str]) -> list[PolicyState]:
    rows = app.store().egress_policies()
    return [state_of(n, rows) for n in names]


def lineage(app: App, collections: Iterable[str]) -> dict[str, Any] | None:
    """``egressLineage`` of an answer built from these collections (None: no source)."""
    names = sorted(set(collections))
    if not names:
        return None
    return egress_lineage.lineage(states(app, names)[:128])


def _known(app: App, name: str) -> None:
    if name not in configured(app):
        raise NotFoundError(f"Collection not found: {name}")


# ---------------------------------------------------------------- policy operations


def _state_model(state: PolicyState, epoch: int, updated: str | None) -> EgressPolicyState:
    return EgressPolicyState.model_validate(
        {
            "schemaVersion": "1.0",
            "collection": state.collection,
            "policy": state.policy,
            "revision": state.revision,
            "source": state.source,
            "updatedAt": updated,
            "policyEpoch": epoch,
        }
    )


def egress_policy_get(app: App, inp: EgressPolicyGetInput) -> EgressPolicyState:
    _known(app, inp.collection)
    store = app.store()
    rows = store.egress_policies()
    state = state_of(inp.collection, rows)
    stored = rows.get(inp.collection)
    return _state_model(state, store.egress_epoch(), stored[3] if stored else None)


def _confirmation(inp: EgressPolicySetInput, current: PolicyState) -> Confirmation | None:
    if inp.confirmation is not None:
        c = inp.confirmation
        return Confirmation(
            c.collection, _v(c.currentPolicy), c.currentRevision, _v(c.targetPolicy), True
        )
    if inp.confirmRevision is not None:
        # The CLI's short form names the revision only; the revision pins the policy
        # (every change bumps it), so a stale or replayed one still fails.
        return Confirmation(
            inp.collection, current.policy, inp.confirmRevision, _v(inp.policy), True
        )
    return None


def egress_policy_set(app: App, inp: EgressPolicySetInput) -> EgressPolicySetResult:
    """Tighten at once; relax only with a confirmation naming the current revision. The
    stored revision is compared and set in one transaction, so two racing changes cannot
    both pass one confirmation."""
    _known(app, inp.collection)
    store = app.store()
    current = states(app, [inp.collection])[0]
    target = cast(Policy, _v(inp.policy))
    confirmation = _confirmation(inp, current)
    named = confirmation and (
        confirmation.collection,
        confirmation.current_policy,
        confirmation.current_revision,
        confirmation.target_policy,
    )
    if named and named != (inp.collection, current.policy, current.revision, target):
        # A confirmation presented is checked whatever the direction: a replayed or forged
        # one fails closed even where the change itself would need none.
        raise ConflictError(
            f"The confirmation names {named[1]}@{named[2]} -> {named[3]} but {inp.collection} "
            f"is now {current.policy}@{current.revision}; read the policy again"
        )
    after = rule.change(current, target, confirmation)
    relaxed = rank(after.policy) > rank(current.policy)
    if after != current and not store.swap_egress_policy(
        inp.collection, current.revision, after.policy, after.source
    ):
        raise ConflictError(
            f"The policy of {inp.collection} changed while it was being set; read it again"
        )
    return EgressPolicySetResult.model_validate(
        {
            "schemaVersion": "1.0",
            "collection": inp.collection,
            "previous": _revision(current),
            "current": _revision(after),
            "changed": after != current,
            "relaxed": relaxed,
            "policyEpoch": store.egress_epoch(),
        }
    )


def _revision(state: PolicyState) -> dict[str, Any]:
    return {"policy": state.policy, "revision": state.revision, "source": state.source}


EXPLANATIONS = {
    "LOCAL_DESTINATION": "The destination is this machine: every policy allows it.",
    "LAN_POLICY_AUTHENTICATED": "An authenticated caller on a private network; lan allows it.",
    "REMOTE_POLICY_AUTHENTICATED": "An authenticated, authorized caller; remote allows it.",
    "POLICY_LOCAL_ONLY": "A local_only collection: its content leaves only to this machine.",
    "POLICY_LAN_ONLY": "A lan collection: its content goes no further than a private network.",
    "AUTHENTICATION_REQUIRED": "Content leaves this machine only to an authenticated caller.",
    "CALLER_NOT_AUTHORIZED": "A remote destination needs a caller authorized for the operation.",
    "NO_COLLECTION_POLICY": "No collection to judge: nothing may leave.",
    "ACTION_DESTINATION_MISMATCH": "That action cannot go to that destination.",
}


def egress_check(app: App, inp: EgressCheckInput) -> EgressDecision:
    """The decision for exactly this action, destination, caller and content class;
    nothing is performed and nothing recorded."""
    named = [c.root for c in inp.collections] if inp.collections else None
    names = list(dict.fromkeys(named or configured(app)))
    for name in names:
        _known(app, name)
    found = states(app, names)
    decision = rule.decide(
        found,
        action=_v(inp.action),
        zone=_v(inp.destinationZone),
        content_class=_v(inp.contentClass),
        caller=Caller(inp.caller.authenticated, inp.caller.operationAuthorized),
        partial=_v(inp.partialResults) if inp.partialResults else "deny",
    )
    payload: dict[str, Any] = {
        "schemaVersion": "1.0",
        "allowed": decision.allowed,
        "reason": decision.reason,
        "action": _v(inp.action),
        "destinationZone": _v(inp.destinationZone),
        "contentClass": _v(inp.contentClass),
        "effectivePolicy": decision.effective_policy,
        "allowedCollections": list(decision.allowed_collections),
        "deniedCollections": list(decision.denied_collections),
    }
    if decision.allowed and decision.allowed_collections:
        kept = [s for s in found if s.collection in decision.allowed_collections]
        payload["egressLineage"] = egress_lineage.lineage(kept)
    if decision.reason in EXPLANATIONS:
        payload["explanation"] = EXPLANATIONS[decision.reason]
    return EgressDecision.model_validate(payload)


# ---------------------------------------------------------------- per request


# Operations whose answer holds content of the named collections only; any other
# operation (graph walks, backlinks, status, ...) may reach every collection.
NARROWING = frozenset(
    {
        "search", "vsearch", "query", "query_diagnose", "ask", "context", "get", "multi_get",
        "ls", "tags", "metadata", "egress_policy_get", "egress_policy_set", "/api/doc-asset",
        "changes", "diff",
    }
)  # fmt: skip
# Reads of the change journal: without a collection they may carry the entries of any
# collection it holds, a removed one's included (gno.adapters.sqlite.egress.EgressLedger).
JOURNAL_READS = frozenset({"changes", "diff"})
CONTENT_CLASS = {
    "search": "snippet", "vsearch": "snippet", "query": "snippet", "query_diagnose": "snippet",
    "context": "capsule", "ask": "capsule", "status": "metadata", "collection_list": "metadata",
    "ls": "metadata", "tags": "metadata", "egress_policy_get": "metadata",
    "egress_policy_set": "metadata", "egress_check": "metadata",
    "egress_audit_list": "audit_log", "egress_audit_show": "audit_log",
    "egress_audit_status": "audit_log", "egress_audit_delete": "audit_log",
    "egress_audit_purge": "audit_log", "/api/doc-asset": "attachment",
    "/api/events": "metadata",
    # Traces name documents, ranks and hashes of the collections they searched: a show or an
    # export is judged by those collections, the other trace operations by every collection.
    "trace_list": "retrieval_trace", "trace_show": "retrieval_trace",
    "trace_label": "retrieval_trace", "trace_export": "retrieval_trace",
    "trace_replay": "retrieval_trace", "trace_delete": "retrieval_trace",
    "trace_purge": "retrieval_trace",
}  # fmt: skip
# Trace reads judged by the collections their traces name (gno/rest/trace_lineage.py).
TRACE_LINEAGE = frozenset({"trace_show", "trace_export"})
# Operations that hand out no collection content at all (liveness).
UNGOVERNED = frozenset({"health"})
_URI = re.compile(r"^gno://([^/?#]{1,64})/")


def touched(op_id: str, args: Mapping[str, Any], known: Sequence[str]) -> list[str]:
    """The collections whose content a request may carry: the ones it names when the
    operation keeps to them, else every configured collection."""
    if op_id in NARROWING:
        named: list[str] = []
        one = args.get("collection")
        if isinstance(one, str) and one:
            named.append(one)
        many = args.get("collections")
        if isinstance(many, list):
            named += [c for c in many if isinstance(c, str) and c]
        for key in ("uri", "ref"):
            value = args.get(key)
            match = _URI.match(value) if isinstance(value, str) else None
            if match and not one:
                named.append(match.group(1))
        refs = args.get("refs")
        if isinstance(refs, list) and refs and not one:
            # multi_get: narrowed only when every ref is a URI; a docid, a path or a glob
            # may name a document of any collection.
            matches = [_URI.match(r) if isinstance(r, str) else None for r in refs]
            if not all(matches):
                return list(known)
            named += [m.group(1) for m in matches if m]
        if named:
            return list(dict.fromkeys(named))[: rule.MAX_COLLECTIONS + 1]
    return list(known)


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    receipt: dict[str, Any] | None  # None for a caller on this machine: nothing crossed
    epoch: int
    names: tuple[str, ...]
    states: tuple[PolicyState, ...]
    earlier: frozenset[str] = frozenset()  # names judged as their earlier collection's


def states_of(
    names: Sequence[str], rows: PolicyRows, earlier: frozenset[str] = frozenset()
) -> tuple[PolicyState, ...]:
    """Each name's policy; a name in ``earlier`` as if nothing were stored for it: the
    policy its earlier collection had left with that collection."""
    return tuple(state_of(n, {} if n in earlier else rows) for n in names)


def _source_of(found: Sequence[PolicyState]) -> str:
    kinds = {s.source for s in found}
    return kinds.pop() if len(kinds) == 1 else ("mixed" if kinds else "unknown")


def judge(
    *,
    rows: PolicyRows,
    epoch: int,
    names: Sequence[str],
    zone: str,
    caller: Caller,
    surface: str,
    operation: str,
    content_class: str,
    earlier: frozenset[str] = frozenset(),
) -> Verdict:
    """The decision for one request from ``zone``, with its receipt when the caller is
    off this machine (recorded by the caller of ``judge`` before anything is sent).
    ``earlier``: names whose content here is an earlier collection's (an old trace's)."""
    found = list(states_of(names, rows, earlier))
    decision = rule.decide(
        found, action="serve", zone=zone, content_class=content_class, caller=caller
    )
    if zone in rule.LOCAL_ZONES:
        return Verdict(decision, None, epoch, tuple(names), tuple(found), earlier)
    receipt = {
        "schemaVersion": "1.0",
        "auditId": "egr_" + secrets.token_hex(12),
        "createdAt": now_iso(),
        "decision": "allowed" if decision.allowed else "denied",
        "reason": decision.reason,
        "surface": surface,
        "operation": operation[:128],
        "action": "serve",
        "destinationZone": zone,
        "contentClass": content_class,
        "collectionCount": len(found),
        "collections": [s.collection for s in found][: rule.MAX_COLLECTIONS],
        "effectivePolicy": decision.effective_policy,
        "effectivePolicySource": _source_of(found),
        "callerAuthenticated": caller.authenticated,
        "callerOperationAuthorized": caller.authorized,
        "policyEpoch": epoch,
    }
    return Verdict(decision, receipt, epoch, tuple(names), tuple(found), earlier)


DENIED_MESSAGE = "Operation blocked by collection egress policy"


def denial_details(verdict: Verdict) -> dict[str, Any]:
    """``data``/``details`` of an EGRESS_DENIED answer: the reason and the receipt's
    content-free audit fields (surfaces.md §5.25), never content."""
    r = verdict.receipt or {}
    audit = {
        key: r.get(key)
        for key in (
            "action", "destinationZone", "contentClass", "collectionCount", "collections",
            "effectivePolicy", "effectivePolicySource", "callerAuthenticated",
            "callerOperationAuthorized",
        )
    }  # fmt: skip
    return {
        "code": "EGRESS_DENIED",
        "message": DENIED_MESSAGE,
        "reason": verdict.decision.reason,
        "audit": audit,
        "auditId": r.get("auditId"),
    }


# ---------------------------------------------------------------- audit receipts

_CURSOR = re.compile(r"^egr1:([1-9][0-9]{0,17})$")


def encode_cursor(seq: int) -> str:
    return base64.urlsafe_b64encode(f"egr1:{seq}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The position an opaque cursor names; anything else is a VALIDATION error."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raw = ""
    match = _CURSOR.fullmatch(raw)
    if match is None:
        raise ValidationError("Malformed cursor: pass the nextCursor of a previous page")
    return int(match.group(1))


def egress_audit_list(app: App, inp: EgressAuditListInput) -> EgressAuditList:
    before = decode_cursor(inp.cursor) if inp.cursor is not None else None
    limit = inp.limit or 100
    page = app.store().egress_audit_page(before, limit + 1)
    more = len(page) > limit
    page = page[:limit]
    return EgressAuditList.model_validate(
        {
            "schemaVersion": "1.0",
            "receipts": [json.loads(text) for _, text in page],
            "nextCursor": encode_cursor(page[-1][0]) if more and page else None,
        }
    )


def egress_audit_show(app: App, inp: EgressAuditIdInput) -> EgressAuditReceipt:
    text = app.store().egress_audit_receipt(inp.auditId)
    if text is None:
        raise NotFoundError("No egress audit receipt with that id")  # the id is not echoed
    return EgressAuditReceipt.model_validate(json.loads(text))


def egress_audit_status(app: App, inp: EgressAuditStatusInput) -> EgressAuditStatus:
    store = app.store()
    count, oldest, newest = store.egress_audit_counts()
    return EgressAuditStatus.model_validate(
        {
            "schemaVersion": "1.0",
            "receipts": count,
            "oldestAt": oldest,
            "newestAt": newest,
            "retention": {"maxReceipts": MAX_RECEIPTS, "maxAgeDays": MAX_AGE_DAYS},
            "policyEpoch": store.egress_epoch(),
        }
    )


def egress_audit_delete(app: App, inp: EgressAuditIdInput) -> EgressAuditRemoval:
    if not app.store().delete_egress_audit(inp.auditId):
        raise NotFoundError("No egress audit receipt with that id")
    return EgressAuditRemoval.model_validate(
        {"schemaVersion": "1.0", "deleted": 1, "auditId": inp.auditId}
    )


def egress_audit_purge(app: App, inp: EgressAuditPurgeInput) -> EgressAuditRemoval:
    if inp.confirm is not True:  # the schema says so; a model built by hand may not
        raise ValidationError("Purging egress audit receipts needs confirm: true")
    return EgressAuditRemoval.model_validate(
        {"schemaVersion": "1.0", "deleted": app.store().purge_egress_audits()}
    )
