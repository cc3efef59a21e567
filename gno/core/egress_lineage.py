"""The egress policy a collection has and the ``egressLineage`` of an answer (spec/egress.md).

Apart from the rule itself (``gno.core.egress``, which re-exports these): every search
hit carries a lineage, and building one needs none of the rule's address ranges.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast

Policy = Literal["local_only", "lan", "remote"]
POLICIES: tuple[Policy, ...] = ("local_only", "lan", "remote")  # most restrictive first


@dataclass(frozen=True)
class PolicyState:
    """One collection's egress policy as a result's lineage reports it."""

    collection: str
    policy: Policy
    revision: int = 0
    source: str = "config_default"


# collection -> (policy, revision, source, updated): the stored policies of an index
PolicyRows = Mapping[str, tuple[str, int, str, str]]


def state_of(name: str, rows: PolicyRows) -> PolicyState:
    """The stored policy, else ``local_only`` (``legacy_default``): a collection nobody
    classified never leaves the machine."""
    stored = rows.get(name)
    if stored is not None:
        return PolicyState(name, cast(Policy, stored[0]), stored[1], stored[2])
    return PolicyState(name, "local_only", 0, "legacy_default")


def rank(policy: str) -> int:
    return ("local_only", "lan", "remote").index(policy)


def most_restrictive(states: Sequence[PolicyState]) -> Policy:
    return min((s.policy for s in states), key=rank)


def lineage(states: Sequence[PolicyState]) -> dict[str, object]:
    """``egressLineage``: the most restrictive policy of an answer's sources and a digest of
    them (sorted, canonical JSON), so a receiver can tell two lineages apart cheaply."""
    sources = sorted(
        ({"collection": s.collection, "policy": s.policy, "source": s.source} for s in states),
        key=lambda item: item["collection"],
    )
    canonical = json.dumps(sources, sort_keys=True, separators=(",", ":"))
    return {
        "effectivePolicy": most_restrictive(states),
        "digest": hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
        "sources": sources,
    }
