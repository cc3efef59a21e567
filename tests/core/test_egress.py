"""The egress rule (gno/core/egress.py): per-request decisions and policy changes, with the
property the issue asks for: no sequence of policy changes lets content of a collection that
is local_only reach a caller that is not on this machine."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gno.core.egress import (
    ACTIONS,
    CONTENT_CLASSES,
    Caller,
    Confirmation,
    change,
    decide,
)
from gno.core.egress_lineage import POLICIES, PolicyState, lineage
from gno.errors import ConflictError, ValidationError

ANYONE = Caller(authenticated=True, authorized=True)


def _decide(states: list[PolicyState], zone: str, caller: Caller = ANYONE, **kw: str):  # type: ignore[no-untyped-def]
    return decide(
        states, action="retrieve", zone=zone, content_class="snippet", caller=caller, **kw
    )


@pytest.mark.parametrize(
    ("policy", "zone", "caller", "allowed", "reason"),
    [
        ("local_only", "loopback", Caller(), True, "LOCAL_DESTINATION"),
        ("local_only", "local_process", Caller(), True, "LOCAL_DESTINATION"),
        ("local_only", "lan", ANYONE, False, "POLICY_LOCAL_ONLY"),
        ("local_only", "remote", ANYONE, False, "POLICY_LOCAL_ONLY"),
        ("lan", "lan", Caller(), False, "AUTHENTICATION_REQUIRED"),
        ("lan", "lan", Caller(authenticated=True), True, "LAN_POLICY_AUTHENTICATED"),
        ("lan", "remote", ANYONE, False, "POLICY_LAN_ONLY"),
        ("remote", "remote", Caller(authenticated=True), False, "CALLER_NOT_AUTHORIZED"),
        ("remote", "remote", ANYONE, True, "REMOTE_POLICY_AUTHENTICATED"),
    ],
)
def test_the_decision_table(
    policy: str, zone: str, caller: Caller, allowed: bool, reason: str
) -> None:
    got = _decide([PolicyState("notes", policy)], zone, caller)  # type: ignore[arg-type]
    assert (got.allowed, got.reason) == (allowed, reason)


def test_the_most_restrictive_collection_governs_unless_partial_results_are_explicit() -> None:
    states = [PolicyState("open", "remote"), PolicyState("private", "local_only")]
    denied = _decide(states, "remote")
    assert (denied.allowed, denied.reason, denied.effective_policy) == (
        False,
        "POLICY_LOCAL_ONLY",
        "local_only",
    )
    partial = _decide(states, "remote", partial="explicit")
    assert partial.allowed and partial.allowed_collections == ("open",)
    assert partial.denied_collections == ("private",)


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"action": "fly"}, "UNKNOWN_ACTION"),
        ({"zone": "moon"}, "UNKNOWN_DESTINATION"),
        ({"content_class": "secrets"}, "UNKNOWN_CONTENT_CLASS"),
        ({"partial": "maybe"}, "INVALID_INPUT"),
        ({"action": "remote_inference", "zone": "loopback"}, "ACTION_DESTINATION_MISMATCH"),
        ({"action": "clip_write", "zone": "remote"}, "ACTION_DESTINATION_MISMATCH"),
    ],
)
def test_what_is_not_understood_is_denied(kwargs: dict[str, str], reason: str) -> None:
    args = {"action": "retrieve", "zone": "remote", "content_class": "snippet"} | kwargs
    got = decide([PolicyState("n", "remote")], caller=ANYONE, **args)  # type: ignore[arg-type]
    assert (got.allowed, got.reason) == (False, reason)
    assert not decide(
        [], action="retrieve", zone="loopback", content_class="source", caller=ANYONE
    ).allowed
    many = [PolicyState(f"c{i}", "remote") for i in range(65)]
    assert _decide(many, "remote").reason == "COLLECTION_LIMIT_EXCEEDED"
    legacy = [PolicyState("n", "remote", source="legacy_default")]
    assert _decide(legacy, "remote").reason == "INVALID_POLICY_SOURCE_PAIR"


def test_tightening_is_immediate_and_relaxing_needs_the_current_revision() -> None:
    state = PolicyState("notes", "remote", revision=3)
    tight = change(state, "local_only", None)
    assert (tight.policy, tight.revision, tight.source) == ("local_only", 4, "explicit")
    with pytest.raises(ValidationError):
        change(tight, "lan", None)
    stale = Confirmation("notes", "local_only", 3, "lan", True)
    with pytest.raises(ConflictError):
        change(tight, "lan", stale)
    good = Confirmation("notes", "local_only", 4, "lan", True)
    assert change(tight, "lan", good).policy == "lan"
    with pytest.raises(ConflictError):  # a confirmation for another target is not this one
        change(tight, "remote", good)
    assert change(tight, "local_only", None) is tight  # no change, no new revision


def test_lineage_digest_depends_on_the_sources_not_their_order() -> None:
    a, b = PolicyState("a", "remote"), PolicyState("b", "lan")
    assert lineage([a, b]) == lineage([b, a])
    assert lineage([a, b])["effectivePolicy"] == "lan"
    assert lineage([a])["digest"] != lineage([a, b])["digest"]


step = st.tuples(
    st.sampled_from(POLICIES),
    st.one_of(
        st.none(),
        st.builds(
            Confirmation,
            st.sampled_from(["notes", "other"]),
            st.sampled_from(POLICIES),
            st.integers(0, 6),
            st.sampled_from(POLICIES),
            st.booleans(),
        ),
    ),
)


@given(
    st.sampled_from(POLICIES),
    st.lists(step, max_size=12),
    st.sampled_from(("lan", "remote")),
    st.booleans(),
    st.booleans(),
    st.sampled_from(ACTIONS),
    st.sampled_from(CONTENT_CLASSES),
)
def test_no_sequence_of_changes_lets_local_only_content_leave_the_machine(
    start: str,
    steps: list[tuple[str, Confirmation | None]],
    zone: str,
    authenticated: bool,
    authorized: bool,
    action: str,
    content_class: str,
) -> None:
    state = PolicyState("notes", start)  # type: ignore[arg-type]
    caller = Caller(authenticated, authorized)
    for target, confirmation in steps:
        with contextlib.suppress(ValidationError, ConflictError):  # refused: nothing changed
            state = change(state, target, confirmation)  # type: ignore[arg-type]
        got = decide([state], action=action, zone=zone, content_class=content_class, caller=caller)
        if state.policy == "local_only":
            assert not got.allowed
        if got.allowed:
            assert state.policy != "local_only" and authenticated
