"""Greedy, coverage-driven evidence selection under the Capsule budget (engine.md §6.1 step 6).

Duplicates (same passage hash) collapse to the best-ranked one. Each round drops the
candidates that can no longer help, with their reason: no facet at all or only covered
facets (``redundant_coverage``), lines overlapping a selected span of the same document
(``overlap``), a document that would pass 3/5 of the spendable bytes while more than one
document is in play (``document_share_cap``). The rest are ordered by uncovered facets per
UTF-8 byte (compared cross-multiplied, exact integers), then retrieval rank, then
(uri, lines, source hash, id); the best is tried, and kept only if the whole re-rendered
canonical Capsule still fits both budgets (else ``global_budget``). Pure; the caller
supplies ``fits``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cmp_to_key

MAX_LISTED_OMISSIONS = 20


@dataclass
class Candidate:
    id: str
    uri: str
    docid: str
    start: int
    end: int
    text: str
    passage_hash: str
    source_hash: str
    mirror_hash: str
    rank: int
    size: int  # UTF-8 bytes of text
    facets: list[str] = field(default_factory=list)
    extra: dict[str, object] = field(default_factory=dict)


@dataclass
class Omission:
    candidate: Candidate
    reason: str


@dataclass
class Selection:
    selected: list[Candidate]
    omitted: list[Omission]


def _order(
    pool: int, uncovered: Callable[[Candidate], int]
) -> Callable[[Candidate, Candidate], int]:
    def compare(a: Candidate, b: Candidate) -> int:
        left, right = uncovered(a) * b.size, uncovered(b) * a.size  # a/size_a vs b/size_b
        if left != right:
            return -1 if left > right else 1
        ka = (pool - a.rank + 1, -a.rank)
        kb = (pool - b.rank + 1, -b.rank)
        if ka != kb:
            return -1 if ka > kb else 1
        ta = (a.uri, a.start, a.end, a.source_hash, a.id)
        tb = (b.uri, b.start, b.end, b.source_hash, b.id)
        return (ta > tb) - (ta < tb)

    return compare


def select(
    candidates: list[Candidate],
    spendable_bytes: int,
    fits: Callable[[list[Candidate]], bool],
) -> Selection:
    """Pick evidence greedily; ``fits(selected)`` renders the Capsule and checks the budgets."""
    omitted: list[Omission] = []
    best: dict[str, Candidate] = {}
    for c in sorted(candidates, key=lambda c: (c.rank, c.uri, c.start, c.id)):
        if c.passage_hash in best:
            omitted.append(Omission(c, "duplicate"))
        else:
            best[c.passage_hash] = c
    remaining = list(best.values())
    several_docs = len({c.docid for c in remaining}) > 1
    pool = max((c.rank for c in remaining), default=0)
    selected: list[Candidate] = []
    covered: set[str] = set()
    doc_bytes: dict[str, int] = {}

    def uncovered(c: Candidate) -> int:
        return sum(1 for f in c.facets if f not in covered)

    while remaining:
        eligible = []
        for c in remaining:
            reason = None
            if not c.facets:
                reason = "redundant_coverage"
            elif any(
                s.docid == c.docid and s.start <= c.end and c.start <= s.end for s in selected
            ):
                reason = "overlap"
            elif several_docs and (doc_bytes.get(c.docid, 0) + c.size) * 5 > spendable_bytes * 3:
                reason = "document_share_cap"
            elif uncovered(c) == 0:
                reason = "redundant_coverage"
            if reason:
                omitted.append(Omission(c, reason))
            else:
                eligible.append(c)
        if not eligible:
            break
        eligible.sort(key=cmp_to_key(_order(pool, uncovered)))
        chosen = eligible[0]
        remaining = eligible[1:]
        if fits([*selected, chosen]):
            selected.append(chosen)
            covered.update(chosen.facets)
            doc_bytes[chosen.docid] = doc_bytes.get(chosen.docid, 0) + chosen.size
        else:
            omitted.append(Omission(chosen, "global_budget"))
    return Selection(selected, omitted)


def listed(omitted: list[Omission]) -> list[Omission]:
    """Omissions in GNO's order (reason, uri, lines, hash, id), at most 20."""
    key = lambda o: (  # noqa: E731
        o.reason,
        o.candidate.uri,
        o.candidate.start,
        o.candidate.end,
        o.candidate.passage_hash,
        o.candidate.id,
    )
    return sorted(omitted, key=key)[:MAX_LISTED_OMISSIONS]
