"""Content-type search boosts in hybrid ranking (engine.md §5.4 step 9, §1.6).

A configured content type with ``searchBoost`` ≠ 1 moves the min–max-normalized fusion
score of its documents, before reranking, by a contribution linear in the factor
(0.5 → −0.05, 1 → 0, 2 → +0.05), capped with the other auxiliary signals at ±0.08 and
clamped to [0, 1]. Only documents the rules classified (frontmatter ``type`` naming a
configured id, or a configured prefix) are boosted. Each boosted candidate gets the
receipt query-diagnose@1.2+ and ``--explain`` report.
"""

from __future__ import annotations

from typing import Any

from gno.core.content_types import AUX_CAP, MAX_CONTRIBUTION, ContentTypes, boost_contribution
from gno.core.fusion import Fused

RULE_SOURCES = {"frontmatter-type": "configured-id", "prefix": "prefix"}


def apply_boosts(
    rules: ContentTypes, store: Any, fused: list[Fused], scores: list[float]
) -> tuple[list[Fused], list[float], dict[str, dict[str, Any]]]:
    """The candidates re-scored and re-sorted, and a receipt per boosted mirror key."""
    boosted = {r.id: r for r in rules.rules if r.search_boost != 1.0}
    if not boosted or not fused:
        return fused, scores, {}
    types = store.mirror_content_types([f.key for f in fused])
    new_scores = list(scores)
    receipts: dict[str, dict[str, Any]] = {}
    for i, item in enumerate(fused):
        kind, source = types.get(item.key, ("", ""))
        rule = boosted.get(kind)
        if rule is None or source not in RULE_SOURCES:
            continue
        raw = boost_contribution(rule.search_boost)
        capped = max(-MAX_CONTRIBUTION, min(MAX_CONTRIBUTION, raw))
        applied = max(-AUX_CAP, min(AUX_CAP, capped))  # gno has no project affinity signal
        final = min(1.0, max(0.0, scores[i] + applied))
        new_scores[i] = final
        receipts[item.key] = {
            "baseScore": round(scores[i], 6),
            "cappedContribution": round(capped, 6),
            "combinedAuxiliaryApplied": round(applied, 6),
            "combinedAuxiliaryCap": AUX_CAP,
            "combinedAuxiliaryRequested": round(capped, 6),
            "configuredFactor": rule.search_boost,
            "contentType": rule.id,
            "finalScore": round(final, 6),
            "rawContribution": round(raw, 6),
            "rawScore": round(scores[i], 6),
            "rawScoreKind": "normalized",
            "ruleSource": RULE_SOURCES[source],
            "rulesFingerprint": rules.fingerprint,
        }
    if not receipts:
        return fused, scores, {}
    order = sorted(range(len(fused)), key=lambda i: (-round(new_scores[i], 9), fused[i].key))
    return [fused[i] for i in order], [new_scores[i] for i in order], receipts
