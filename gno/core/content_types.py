"""Configured content types (``index.yml`` ``contentTypes``, engine.md §1.6).

A rule ``{id, prefixes, preset, graphHints?, searchBoost?, temporal?}`` names a kind of
document (people, meetings...) by where it lives or by its frontmatter ``type``. Rules
are sorted longest prefix first; an unknown preset drops the rule with a warning.

Fingerprints: the *rules* fingerprint (GNO's: id, preset, prefixes, graphHints of every
rule) is what status and diagnose report; the *ranking* fingerprint adds searchBoost.
Each document also stores the fingerprint of the rules that can classify *it*
(``doc_fingerprint``: the rule its path falls under and the rule its frontmatter type
names), so a rules change re-ingests exactly the documents whose classification can
change — computed from the path and the stored frontmatter type, without reading a file.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from gno.core.rules_meta import GRAPH_HINTS

# GNO's note presets (capture/documents); a content type names the one its notes use.
PRESETS = frozenset(
    {
        "blank",
        "person",
        "company-project",
        "meeting",
        "idea-original",
        "source-summary",
        "project-note",
        "research-note",
        "decision-note",
        "prompt-pattern",
    }
)
MIN_BOOST, MAX_BOOST = 0.5, 2.0
MAX_RULES = 256
MAX_PREFIXES = 256
MAX_CONTRIBUTION = 0.05  # a boost moves a normalized score by at most this much
AUX_CAP = 0.08  # content-type boost and project affinity together


@dataclass(frozen=True)
class ContentTypeRule:
    """One content type: the prefixes it covers, its preset, graph hints and boost."""

    id: str
    prefixes: tuple[str, ...]
    preset: str
    graph_hints: tuple[str, ...] = ()
    search_boost: float = 1.0
    temporal: bool = False

    def identity(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "preset": self.preset,
            "prefixes": list(self.prefixes),
            "graphHints": list(self.graph_hints),
        }


@dataclass(frozen=True)
class ContentTypes:
    """The configured content-type rules, and warnings about the ones dropped."""

    rules: tuple[ContentTypeRule, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def fingerprint(self) -> str:
        return _sha([r.identity() for r in self.rules])

    @property
    def ranking_fingerprint(self) -> str:
        return _sha([r.identity() | {"searchBoost": r.search_boost} for r in self.rules])

    def by_id(self, type_id: str | None) -> ContentTypeRule | None:
        if not type_id:
            return None
        return next((r for r in self.rules if r.id == type_id), None)

    def by_prefix(self, rel_path: str) -> ContentTypeRule | None:
        """The rule of the longest configured prefix ``rel_path`` is under."""
        best: tuple[int, ContentTypeRule] | None = None
        for rule in self.rules:
            for prefix in rule.prefixes:
                if _under(rel_path, prefix) and (best is None or len(prefix) > best[0]):
                    best = (len(prefix), rule)
        return best[1] if best else None

    def classify(self, rel_path: str, frontmatter_type: str | None) -> tuple[str, str] | None:
        """(content type, source) from the rules, or None (the heuristics decide)."""
        if (rule := self.by_id(frontmatter_type)) is not None:
            return rule.id, "frontmatter-type"
        if (rule := self.by_prefix(rel_path)) is not None:
            return rule.id, "prefix"
        return None

    def doc_fingerprint(self, rel_path: str, frontmatter_type: str | None) -> str:
        """What the rules say about one document; equal to ``NEUTRAL`` when no rule can
        touch it (so configuring rules re-ingests only the documents they concern)."""
        if not self.rules:  # no rules (the default): every document of a sync asks
            return NEUTRAL
        by_type = self.by_id(frontmatter_type)
        by_prefix = self.by_prefix(rel_path)
        if by_type is None and by_prefix is None:
            return NEUTRAL
        return _sha(
            {
                "type": _doc_identity(by_type) if by_type else None,
                "prefix": _doc_identity(by_prefix) if by_prefix else None,
            }
        )

    def temporal_date(self, content_type: str, rel_path: str) -> str | None:
        """The date a document of a temporal type takes from its file name when its
        frontmatter names none (``meetings/2026-03-04-standup.md`` → 2026-03-04)."""
        rule = self.by_id(content_type)
        return name_date(rel_path) if rule is not None and rule.temporal else None

    def rules_meta(self) -> str:
        """What readers of the index need of the rules, stored in ``schema_meta`` by each
        sync (``RULES_META``): each type's graph hints (the first is the edge type of its
        documents' plain links, engine.md §7.3) and the ids of the temporal types."""
        return json.dumps(
            {
                "hints": {r.id: list(r.graph_hints) for r in self.rules if r.graph_hints},
                "temporal": sorted(r.id for r in self.rules if r.temporal),
            },
            separators=(",", ":"),
            sort_keys=True,
        )


def _doc_identity(rule: ContentTypeRule) -> dict[str, Any]:
    """A rule as a document's fingerprint sees it: ``temporal`` counts only when set, so
    the documents of other rules keep the fingerprint they had."""
    return rule.identity() | ({"temporal": True} if rule.temporal else {})


def name_date(rel_path: str) -> str | None:
    """The first ``YYYY-MM-DD`` in a path's file name that is a real date, as ISO-8601
    UTC midnight; None when there is none. One pass over the name, no regex."""
    name = rel_path.rsplit("/", 1)[-1][:256]
    for i in range(len(name) - 9):
        part = name[i : i + 10]
        if not (part[4] == part[7] == "-" and (part[:4] + part[5:7] + part[8:]).isdigit()):
            continue
        if (i and name[i - 1].isdigit()) or (i + 10 < len(name) and name[i + 10].isdigit()):
            continue
        try:
            day = datetime.date.fromisoformat(part)
        except ValueError:
            continue
        return day.isoformat() + "T00:00:00.000Z"
    return None


def _under(rel_path: str, prefix: str) -> bool:
    prefix = prefix.strip("/")
    return bool(prefix) and (rel_path == prefix or rel_path.startswith(prefix + "/"))


def _sha(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# _sha(None), written out: computing it at import loaded hashlib (OpenSSL) for every command that
# reads the rules (tests/core/test_content_types.py checks the value).
NEUTRAL = "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"


def parse_content_types(raw: Any) -> ContentTypes:
    """Rules from ``index.yml``; a malformed rule is dropped with a warning, never fatal."""
    if not isinstance(raw, list):
        return ContentTypes((), ("contentTypes must be a list",) if raw is not None else ())
    rules: list[ContentTypeRule] = []
    warnings: list[str] = []
    seen: set[str] = set()
    for i, item in enumerate(raw[:MAX_RULES]):
        where = f"contentTypes[{i}]"
        if not isinstance(item, dict):
            warnings.append(f"{where}: not a mapping; dropped")
            continue
        type_id = item.get("id")
        if not isinstance(type_id, str) or not type_id.strip() or len(type_id) > 64:
            warnings.append(f"{where}: id must be a string of 1-64 characters; dropped")
            continue
        type_id = type_id.strip().lower()
        if type_id in seen:
            warnings.append(f"{where}: duplicate id {type_id!r}; dropped")
            continue
        preset = item.get("preset")
        if preset not in PRESETS:
            warnings.append(f"{where}: unknown preset {preset!r}; rule {type_id!r} dropped")
            continue
        prefixes = item.get("prefixes") or []
        if not isinstance(prefixes, list) or not all(isinstance(p, str) for p in prefixes):
            warnings.append(f"{where}: prefixes must be a list of strings; dropped")
            continue
        clean = tuple(dict.fromkeys(p.strip("/") for p in prefixes[:MAX_PREFIXES] if p.strip("/")))
        hints = item.get("graphHints") or []
        if not isinstance(hints, list) or any(h not in GRAPH_HINTS for h in hints):
            warnings.append(f"{where}: graphHints must be among {', '.join(GRAPH_HINTS)}; dropped")
            continue
        boost = item.get("searchBoost", 1.0)
        if isinstance(boost, bool) or not isinstance(boost, (int, float)):
            warnings.append(f"{where}: searchBoost must be a number; dropped")
            continue
        if not MIN_BOOST <= float(boost) <= MAX_BOOST:
            warnings.append(f"{where}: searchBoost must be within [0.5, 2]; dropped")
            continue
        seen.add(type_id)
        rules.append(
            ContentTypeRule(
                type_id,
                clean,
                preset,
                tuple(dict.fromkeys(hints)),
                float(boost),
                bool(item.get("temporal", False)),
            )
        )
    rules.sort(key=lambda r: -max((len(p) for p in r.prefixes), default=0))
    return ContentTypes(tuple(rules), tuple(warnings))


def boost_contribution(factor: float) -> float:
    """The factor mapped linearly onto ±0.05: 0.5 → −0.05, 1 → 0, 2 → +0.05."""
    if factor >= 1.0:
        return (factor - 1.0) * MAX_CONTRIBUTION
    return (factor - 1.0) * 2 * MAX_CONTRIBUTION
