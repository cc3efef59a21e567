"""Collection egress policy: may this content cross to that caller? (pure: no I/O)

Each collection carries a policy — ``local_only`` (content leaves only to this machine:
the process itself or a loopback peer), ``lan`` (also to an authenticated peer on a private
network) or ``remote`` (also to an authenticated, authorized peer anywhere) — with a
revision that counts its changes. A request that reads several collections is governed by
the most restrictive of their policies; with ``partialResults: explicit`` the caller may
instead receive only the collections that pass.

``decide`` is the whole rule, checked per request against the current socket peer's zone
before any content is read. ``change`` applies a policy change: tightening is immediate,
relaxing needs a confirmation naming the current policy and revision (missing: ``VALIDATION``; stale or
forged: ``CONFLICT``, 409; either way nothing changes). ``lineage`` is the ``egressLineage`` of an answer built from
some collections: the most restrictive policy and a digest of its sources.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

# The policy states and lineage are egress_lineage's (a search needs only them).
from gno.core.egress_lineage import POLICIES, Policy, PolicyState, most_restrictive, rank
from gno.errors import ConflictError, ValidationError

ZONES = ("local_process", "loopback", "lan", "remote")
ACTIONS = ("retrieve", "serve", "publish", "remote_inference", "export", "clip_write")
CONTENT_CLASSES = (
    "source",
    "snippet",
    "metadata",
    "attachment",
    "embedding",
    "capsule",
    "audit_log",
    "retrieval_trace",
)
SOURCES = ("explicit", "config_default", "legacy_default")
MAX_COLLECTIONS = 64
LOCAL_ZONES = frozenset({"local_process", "loopback"})
# Actions that only make sense across the machine boundary, and one that only writes here.
OUTBOUND_ONLY = frozenset({"remote_inference", "publish"})
INBOUND_ONLY = frozenset({"clip_write"})


@dataclass(frozen=True)
class Caller:
    authenticated: bool = False
    authorized: bool = False


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str
    effective_policy: str  # a Policy, or "unknown" when the request was not understood
    allowed_collections: tuple[str, ...] = ()
    denied_collections: tuple[str, ...] = field(default_factory=tuple)


def _one(policy: Policy, zone: str, caller: Caller) -> tuple[bool, str]:
    """The rule for one policy and one destination."""
    if zone in LOCAL_ZONES:
        return True, "LOCAL_DESTINATION"
    if policy == "local_only":
        return False, "POLICY_LOCAL_ONLY"
    if zone == "remote" and policy == "lan":
        return False, "POLICY_LAN_ONLY"
    if not caller.authenticated:
        return False, "AUTHENTICATION_REQUIRED"
    if zone == "lan":
        return True, "LAN_POLICY_AUTHENTICATED"
    if not caller.authorized:
        return False, "CALLER_NOT_AUTHORIZED"
    return True, "REMOTE_POLICY_AUTHENTICATED"


def decide(
    states: Sequence[PolicyState],
    *,
    action: str,
    zone: str,
    content_class: str,
    caller: Caller,
    partial: str = "deny",
) -> Decision:
    """Whether content of these collections may go to a caller in ``zone``. Anything not
    understood is denied with the reason naming it: the rule fails closed."""
    refused = _malformed(states, action, zone, content_class, partial)
    if refused is not None:
        return Decision(False, refused, "unknown", denied_collections=_names(states))
    effective = most_restrictive(states)
    allowed, reason = _one(effective, zone, caller)
    if allowed or partial != "explicit":
        names = _names(states)
        return Decision(allowed, reason, effective, *((names, ()) if allowed else ((), names)))
    passing = tuple(s.collection for s in states if _one(s.policy, zone, caller)[0])
    failing = tuple(s.collection for s in states if s.collection not in passing)
    if not passing:
        return Decision(False, reason, effective, (), failing)
    # Only the collections that pass are served; the answer's lineage is theirs alone.
    kept = [s for s in states if s.collection in passing]
    return Decision(
        True, _one(most_restrictive(kept), zone, caller)[1], effective, passing, failing
    )


def _names(states: Sequence[PolicyState]) -> tuple[str, ...]:
    return tuple(s.collection for s in states)


def _malformed(
    states: Sequence[PolicyState], action: str, zone: str, content_class: str, partial: str
) -> str | None:
    if action not in ACTIONS:
        return "UNKNOWN_ACTION"
    if zone not in ZONES:
        return "UNKNOWN_DESTINATION"
    if content_class not in CONTENT_CLASSES:
        return "UNKNOWN_CONTENT_CLASS"
    if partial not in ("deny", "explicit"):
        return "INVALID_INPUT"
    if (action in OUTBOUND_ONLY and zone in LOCAL_ZONES) or (
        action in INBOUND_ONLY and zone not in LOCAL_ZONES
    ):
        return "ACTION_DESTINATION_MISMATCH"
    if not states:
        return "NO_COLLECTION_POLICY"
    if len(states) > MAX_COLLECTIONS:
        return "COLLECTION_LIMIT_EXCEEDED"
    for state in states:
        if state.policy not in POLICIES:
            return "UNKNOWN_POLICY"
        if state.source not in SOURCES:
            return "UNKNOWN_POLICY_SOURCE"
        if state.source == "legacy_default" and state.policy != "local_only":
            return "INVALID_POLICY_SOURCE_PAIR"  # a legacy default never widened anything
    return None


@dataclass(frozen=True)
class Confirmation:
    collection: str
    current_policy: str
    current_revision: int
    target_policy: str
    acknowledged: bool


def change(state: PolicyState, target: Policy, confirmation: Confirmation | None) -> PolicyState:
    """The state after setting ``target``. Tightening (or keeping) needs no confirmation;
    relaxing needs one that names exactly this collection, policy, revision and target."""
    if target not in POLICIES:
        raise ValidationError(f"Unknown policy {target!r}: expected one of {', '.join(POLICIES)}")
    if target == state.policy:
        return state
    if rank(target) < rank(state.policy):
        return replace(state, policy=target, revision=state.revision + 1, source="explicit")
    if confirmation is None or not confirmation.acknowledged:
        raise ValidationError(
            f"Relaxing {state.collection} from {state.policy} to {target} needs a confirmation "
            f"naming revision {state.revision}"
        )
    expected = (state.collection, state.policy, state.revision, target)
    named = (
        confirmation.collection,
        confirmation.current_policy,
        confirmation.current_revision,
        confirmation.target_policy,
    )
    if named != expected:
        raise ConflictError(
            f"The confirmation names {named[1]}@{named[2]} but {state.collection} is now "
            f"{state.policy}@{state.revision}; read the policy again"
        )
    return replace(state, policy=target, revision=state.revision + 1, source="explicit")


# The networks gno counts as a private network (``lan``): RFC 1918, link-local and IPv6
# unique-local/link-local. Every other non-loopback address is ``remote`` — including
# documentation and CGNAT ranges, which Python's ``is_private`` would call private.
_LAN_NETWORKS = tuple(
    ipaddress.ip_network(net)
    for net in (
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "169.254.0.0/16",
        "fc00::/7",
        "fe80::/10",
    )
)


@functools.lru_cache(maxsize=1024)  # a server sees the same few peers again and again
def zone_of(peer: str | None) -> str:
    """The destination zone of a socket peer address: ``loopback``, ``lan`` or ``remote``.
    Only the socket's own address counts (forwarding headers never reach here); no
    address, or one that does not parse, is ``remote``: the most restricted zone."""
    if not peer:
        return "remote"
    if peer in ("127.0.0.1", "::1"):  # the common case, without a parse
        return "loopback"
    try:
        address = ipaddress.ip_address(peer.split("%", 1)[0].strip("[]"))
    except ValueError:
        return "remote"
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        return "loopback"
    if any(address.version == net.version and address in net for net in _LAN_NETWORKS):
        return "lan"
    return "remote"
