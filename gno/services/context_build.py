"""Compile a Context Capsule (``context-capsule-v1@1.1``, engine.md §6.1): ``gno context
build``, MCP ``gno_context``, ``POST /api/context``.

Validate (goal, budget, collections, URI prefix, tags, dates: all before retrieval),
fingerprint the index, retrieve deterministically (``context_retrieval``), select evidence
greedily under the budget of the whole canonical JSON (``core/capsule_select``), seal the
payload (``capsuleId``, fixed-point ``usedBytes``), fingerprint the index again: a change
meanwhile is ``index_changed_during_compile``. Nothing is persisted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from gno_contracts.models.context_capsule_v1 import ContextCapsule
from gno_contracts.models.context_input import ContextInput

from gno.app import App
from gno.core.capsule import canonical_json, context_id, normalize_goal, seal, sha256_text
from gno.core.capsule_facets import facets as goal_facets
from gno.core.capsule_select import MAX_LISTED_OMISSIONS, Candidate, Omission, listed, select
from gno.core.dates import resolve_bound
from gno.core.identity import normalize_collection_name, parse_uri
from gno.core.tags import validate_tag
from gno.errors import (
    IndexChangedDuringCompileError,
    InvalidBudgetError,
    InvalidFilterError,
    InvalidGoalError,
    InvalidUriError,
    NoEvidenceError,
    ValidationError,
)
from gno.rows import iso_from_ns
from gno.services.context_retrieval import CATALOG, Retrieved, materialize, retrieve

REASONS = ("duplicate", "overlap", "global_budget", "redundant_coverage", "document_share_cap",
           "filtered_by_scope", "invalid_coordinates")  # fmt: skip
MAX_TOKENS, MAX_BYTES = 1_000_000, 4_000_000  # budget bounds (spec/context.md)
RETRIEVAL_VERSION = "gno-capsule-retrieval-1"
POLICY = "local_only"  # a collection without an egress policy (legacy default)


def index_fingerprint(store: Any) -> str:
    """SHA-256 over (uri, source hash, mirror hash) of the active documents, by URI."""
    digest = hashlib.sha256()
    for row in store.identity_rows():
        digest.update(("\t".join(row) + "\n").encode())
    return digest.hexdigest()


class Snapshot:
    """The index fingerprint before an operation, and whether the index moved since: the
    fingerprint is computed again only when SQLite says something was committed."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.generation = store.generation()
        self.before = index_fingerprint(store)

    def after(self) -> str:
        if self.store.generation() == self.generation:
            return self.before
        return index_fingerprint(self.store)


def config_fingerprint(app: App) -> str:
    config = app.config
    return sha256_text(
        canonical_json(
            {
                "collections": [c.to_dict() for c in config.collections],
                "contexts": [[c.scope_type, c.scope_key, c.text] for c in config.contexts],
            }
        )
    )


def retrieval_fingerprint(app: App, depth: str, request: dict[str, Any]) -> str:
    settings = app.retrieval
    return sha256_text(
        canonical_json(
            {"version": RETRIEVAL_VERSION, "depth": depth, "request": request,
             "settings": {k: getattr(settings, k) for k in sorted(vars(settings))}}
        )
    )  # fmt: skip


def applies(scope_type: str, key: str, collection: str, rel_path: str) -> bool:
    if scope_type == "global":
        return key == "/"
    if scope_type == "collection":
        return key.rstrip(":") == collection
    prefix = key[len(f"gno://{collection}/") :] if key.startswith(f"gno://{collection}/") else None
    if prefix is None:
        return False
    prefix = prefix.strip("/")
    return not prefix or rel_path == prefix or rel_path.startswith(prefix + "/")


def _fail(cls: type[Exception], code: str) -> Exception:
    return cls(CATALOG[code])


def _validated(app: App, store: Any, inp: Any) -> dict[str, Any]:
    goal = normalize_goal(inp.goal)
    if not goal:
        raise _fail(InvalidGoalError, "invalid_goal")
    query = normalize_goal(inp.query) if inp.query is not None else goal
    if not query:
        raise _fail(InvalidGoalError, "invalid_goal")
    tokens = inp.budgetTokens
    budget_bytes = inp.budgetBytes if inp.budgetBytes is not None else 4 * tokens
    margin_t, margin_b = inp.safetyMarginTokens or 0, inp.safetyMarginBytes or 0
    if (
        not (1 <= tokens <= MAX_TOKENS and 1 <= budget_bytes <= MAX_BYTES)
        or min(margin_t, margin_b) < 0
    ):
        raise _fail(InvalidBudgetError, "invalid_budget")
    if tokens - margin_t < 1 or budget_bytes - margin_b < 1:
        raise _fail(InvalidBudgetError, "invalid_budget")
    known = {c["name"] for c in store.collections()}
    try:
        collections = sorted({normalize_collection_name(c) for c in inp.collections or []})
        tags_all = sorted({validate_tag(t) for t in inp.tagsAll or []})
        tags_any = sorted({validate_tag(t) for t in inp.tagsAny or []})
        since = resolve_bound(inp.since, end=False) if inp.since else None
        until = resolve_bound(inp.until, end=True) if inp.until else None
    except ValidationError as exc:
        raise InvalidFilterError(
            CATALOG["invalid_filter"], details={"reason": exc.message}
        ) from exc
    if missing := [c for c in collections if c not in known]:
        raise InvalidFilterError(CATALOG["invalid_filter"], details={"collections": missing})
    prefix = inp.uriPrefix
    if prefix is not None:
        try:
            parsed = parse_uri(prefix)
        except ValidationError as exc:
            raise _fail(InvalidUriError, "invalid_uri") from exc
        if parsed.collection not in known or (collections and parsed.collection not in collections):
            raise InvalidFilterError(CATALOG["invalid_filter"], details={"uriPrefix": prefix})
    return {
        "goal": goal, "query": query, "tokens": tokens, "bytes": budget_bytes,
        "margin_t": margin_t, "margin_b": margin_b, "collections": collections,
        "tags_all": tags_all, "tags_any": tags_any, "since": since, "until": until, "prefix": prefix,
    }  # fmt: skip


def _in_scope(r: Retrieved, prefix: str | None) -> bool:
    if prefix is None:
        return True
    parsed = parse_uri(prefix)
    rel = parsed.rel_path.strip("/")
    return r.doc.collection == parsed.collection and (
        not rel or r.doc.rel_path == rel or r.doc.rel_path.startswith(rel + "/")
    )


def _state(requested: bool, used: bool, reason: str) -> dict[str, Any]:
    if not requested:
        return {
            "requested": False,
            "attempted": False,
            "outcome": "not_requested",
            "fallbackReasons": [],
        }
    if used:
        return {"requested": True, "attempted": True, "outcome": "used", "fallbackReasons": []}
    return {"requested": True, "attempted": True, "outcome": "unavailable", "fallbackReasons": [reason]}  # fmt: skip


def _lineage(collections: list[str], policies: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``egressLineage`` from the collections' current egress policies (services/egress.py);
    a collection without one is ``local_only`` (``legacy_default``)."""
    if policies is not None and all(c in policies for c in collections):
        from gno.core.egress_lineage import lineage

        return lineage([policies[c] for c in collections])
    sources = [{"collection": c, "policy": POLICY, "source": "legacy_default"} for c in collections]
    return {"effectivePolicy": POLICY, "digest": sha256_text(canonical_json(sources)), "sources": sources}  # fmt: skip


def _omission(o: Omission) -> dict[str, Any]:
    c = o.candidate
    lines = c.start > 0
    return {
        "candidateId": c.id, "uri": c.uri, "docid": c.docid,
        "startLine": c.start if lines else None, "endLine": c.end if lines else None,
        "passageHash": c.passage_hash if lines else None,
        "sourceHash": c.source_hash, "mirrorHash": c.mirror_hash, "reason": o.reason,
    }  # fmt: skip


def _doc_candidate(r: Retrieved) -> Candidate:
    """A whole document as an omission candidate (no lines): scope or coordinates failed."""
    from gno.core.capsule import passage_id

    d = r.doc
    cid = passage_id(d.docid, d.uri, None, None, d.source_hash or "", d.mirror_hash or "", None)
    return Candidate(cid, d.uri, d.docid, 0, 0, "", "", d.source_hash or "0" * 64,
                     d.mirror_hash or "0" * 64, r.rank, 0)  # fmt: skip


class Assembler:
    """Renders the whole Capsule for a selection (during selection and at the end)."""

    def __init__(
        self,
        head: dict[str, Any],
        facet_list: list[str],
        contexts: list[tuple[str, str, str]],
        policies: Mapping[str, Any] | None = None,  # collection -> egress PolicyState
    ):
        self.head = head
        self.facets = facet_list
        self.contexts = contexts
        self.policies = policies

    def evidence(self, c: Candidate, rank: int) -> dict[str, Any]:
        doc = c.extra["doc"]
        ids = sorted(context_id(t, k, x) for t, k, x in self.contexts if applies(t, k, doc.collection, doc.rel_path))  # type: ignore[attr-defined]  # fmt: skip
        item = {
            "evidenceId": c.id, "uri": c.uri, "docid": c.docid, "collection": doc.collection,  # type: ignore[attr-defined]
            "title": doc.title, "heading": c.extra["heading"], "startLine": c.start, "endLine": c.end,  # type: ignore[attr-defined]
            "text": c.text, "sourceHash": c.source_hash, "mirrorHash": c.mirror_hash,
            "passageHash": c.passage_hash, "modifiedAt": iso_from_ns(doc.mtime_ns) if doc.mtime_ns else None,  # type: ignore[attr-defined]
            "documentDate": doc.frontmatter_date, "observedAt": None, "contextIds": ids,  # type: ignore[attr-defined]
            "retrievalRank": c.rank, "selectionRank": rank, "retrievalSources": c.extra["sources"],
            "facets": sorted(c.facets), "trust": "untrusted", "egress": self._policy(doc.collection),  # type: ignore[attr-defined]
            "egressLineage": _lineage([doc.collection], self.policies),  # type: ignore[attr-defined]
        }  # fmt: skip
        return item

    def _policy(self, collection: str) -> str:
        state = (self.policies or {}).get(collection)
        return state.policy if state is not None else POLICY

    def render(
        self,
        selected: list[Candidate],
        omitted: list[Omission],
        pending: list[Candidate],
        shown_max: int = MAX_LISTED_OMISSIONS,
    ) -> tuple[dict[str, Any], str]:
        evidence = [self.evidence(c, i) for i, c in enumerate(selected, 1)]
        covered: dict[str, list[str]] = {}
        for item in evidence:
            for f in item["facets"]:
                covered.setdefault(f, []).append(item["evidenceId"])
        unresolved = [f for f in self.facets if f not in covered]
        budget_facets = {
            f for o in omitted if o.reason == "global_budget" for f in o.candidate.facets
        }
        budget_facets |= {f for c in pending for f in c.facets}
        scope_facets = {
            f for o in omitted if o.reason == "filtered_by_scope" for f in o.candidate.facets
        }
        gaps = [
            {"facet": f, "code": "global_budget_exhausted" if f in budget_facets
             else "filtered_by_scope" if f in scope_facets else "facet_not_found"}
            for f in unresolved
        ]  # fmt: skip
        counts = {r: 0 for r in REASONS}
        for o in omitted:
            counts[o.reason] += 1
        shown = listed(omitted)[:shown_max]
        truncated_omissions = len(omitted) > len(shown)
        warnings = (
            ([{"code": "incomplete_coverage"}] if unresolved else [])
            + ([{"code": "omissions_truncated"}] if truncated_omissions else [])
            + [{"code": "token_estimate_used"}]
        )
        used_ids = {i for item in evidence for i in item["contextIds"]}
        configured = sorted(
            ({"contextId": context_id(t, k, x), "scopeType": t, "scopeKey": k, "text": x}
             for t, k, x in self.contexts if context_id(t, k, x) in used_ids),
            key=lambda c: (c["scopeType"], c["scopeKey"], c["text"]),
        )  # fmt: skip
        payload = dict(self.head)
        payload["budget"] = dict(self.head["budget"])
        payload.update(
            egressLineage=_lineage(
                sorted({e["collection"] for e in evidence}) or ["none"], self.policies
            ),
            guidance={"extractiveOnly": True, "evidenceTrust": "untrusted_data",
                      "instructionBoundary": "hard_delimited", "configuredContexts": configured},
            evidence=evidence,
            coverage={"complete": not unresolved, "requestedFacets": self.facets,
                      "coveredFacets": [{"facet": f, "evidenceIds": covered[f][:256]} for f in self.facets if f in covered],
                      "unresolvedFacets": unresolved, "gaps": gaps},
            omissions={"total": len(omitted), "items": [_omission(o) for o in shown],
                       "reasonCounts": counts, "truncated": truncated_omissions},
            truncated=counts["global_budget"] > 0 or bool(pending),
            warnings=warnings,
        )  # fmt: skip
        return seal(payload)


def compile_capsule(app: App, model: ContextInput) -> dict[str, Any]:
    """The sealed Capsule payload (a plain dict, canonical-JSON ready)."""
    inp: Any = SimpleNamespace(**model.model_dump(mode="json"))  # plain values, unset = None
    store = app.store()
    v = _validated(app, store, inp)
    depth = inp.depthPolicy or "balanced"
    limit = inp.limit or 20
    candidate_limit = inp.candidateLimit or (80 if depth == "thorough" else 40)
    modes = [{"mode": m["mode"], "text": m["text"].strip()} for m in inp.queryModes or []]
    graph_requested = depth != "fast" and inp.graph is not False
    rerank_requested = depth != "fast" and not inp.noRerank
    request: dict[str, Any] = {
        "author": inp.author, "lang": inp.lang, "intent": inp.intent,
        "exclude": sorted({e.strip().lower() for e in inp.exclude or [] if e.strip()}),
        "minScore": inp.minScore, "queryModes": modes, "limit": limit,
        "candidateLimit": candidate_limit, "graphRequested": graph_requested,
        "rerankRequested": rerank_requested,
    }  # fmt: skip
    facet_list = goal_facets(v["goal"], [m["text"] for m in modes])
    snapshot = Snapshot(store)
    before = snapshot.before
    base: dict[str, Any] = {
        k: val for k, val in {
            "tagsAll": v["tags_all"] or None, "tagsAny": v["tags_any"] or None,
            "categories": inp.categories or None, "author": inp.author, "lang": inp.lang,
            "intent": inp.intent, "since": v["since"], "until": v["until"],
            "exclude": request["exclude"] or None, "minScore": inp.minScore,
            "queryModes": modes or None, "graph": graph_requested, "rerank": rerank_requested,
            "filter": inp.filter,  # typed metadata filter (core/metadata_filter)
        }.items() if val is not None
    }  # fmt: skip
    targets: list[str | None] = list(v["collections"]) or [None]
    try:
        run = retrieve(app, store, v["query"], targets, base, depth, limit, candidate_limit)
    except ValidationError as exc:
        raise InvalidFilterError(
            CATALOG["invalid_filter"], details={"reason": exc.message}
        ) from exc
    in_scope = [r for r in run.results if _in_scope(r, v["prefix"])]
    omitted: list[Omission] = [Omission(_doc_candidate(r), "filtered_by_scope") for r in run.results if not _in_scope(r, v["prefix"])]  # fmt: skip
    candidates, invalid = materialize(store, in_scope, facet_list)
    omitted += [Omission(_doc_candidate(r), "invalid_coordinates") for r in invalid]
    if not candidates:
        raise NoEvidenceError(CATALOG["no_evidence"])
    semantic = _state(depth != "fast", run.vectors_used, "embedding_unavailable")
    rerank = _state(rerank_requested, run.reranked, "reranking_unavailable")
    graph = _state(graph_requested, run.graph_used, "graph_unavailable")
    fallbacks = [
        {"code": code, "capability": cap}
        for state, code, cap in (
            (semantic, "embedding_unavailable", "semantic_search"),
            (rerank, "reranking_unavailable", "reranking"),
            (graph, "graph_unavailable", "graph_expansion"),
        )
        if state["outcome"] == "unavailable"
    ]
    embed_uri = app.embed_uri if run.vectors_used else None
    rerank_uri = app.model_uri("rerank") if run.reranked else None
    head: dict[str, Any] = {
        "schemaVersion": "1.1", "coordinateSpace": "canonical_mirror", "capsuleId": "0" * 64,
        "goal": v["goal"], "query": v["query"],
        "scope": {"indexName": app.paths.index_name, "collections": v["collections"],
                  "uriPrefix": v["prefix"], "tagsAll": v["tags_all"], "tagsAny": v["tags_any"],
                  "categories": sorted({c.strip().lower() for c in inp.categories or [] if c.strip()}),
                  "since": v["since"], "until": v["until"]},
        "budget": {"authority": "canonical_json", "requestedTokens": v["tokens"],
                   "requestedBytes": v["bytes"], "safetyMarginTokens": v["margin_t"],
                   "safetyMarginBytes": v["margin_b"], "usedTokens": 1, "usedBytes": 0,
                   "estimator": "unicode_conservative", "tokenizerFingerprint": None},
        "retrieval": {"depthPolicy": depth, "facets": facet_list,
                      "queryVariants": [v["query"]] + [m["text"] for m in modes],
                      "expansionPolicy": "deterministic_only", "request": request,
                      "capabilityStates": {"semanticSearch": semantic, "reranking": rerank, "graphExpansion": graph},
                      "indexSnapshot": {"before": before, "after": before, "stable": True}},
        "fingerprints": {"config": config_fingerprint(app),
                         "retrieval": retrieval_fingerprint(app, depth, request),
                         "embeddingModel": sha256_text(embed_uri) if embed_uri else None,
                         "rerankModel": sha256_text(rerank_uri) if rerank_uri else None,
                         "tokenizer": None},
        "capabilities": {"lexicalSearch": True, "semanticSearch": run.vectors_used,
                         "reranking": run.reranked, "graphExpansion": run.graph_used,
                         "exactTokenCount": False, "configuredContext": bool(app.config.contexts),
                         "egressPolicy": True},
        "fallbacks": fallbacks,
    }  # fmt: skip
    contexts = [(c.scope_type, c.scope_key, c.text) for c in app.config.contexts]
    from gno.services.egress import configured, states

    policies = {s.collection: s for s in states(app, configured(app))}
    assembler = Assembler(head, facet_list, contexts, policies)
    spend_b, spend_t = v["bytes"] - v["margin_b"], v["tokens"] - v["margin_t"]

    def within(payload: dict[str, Any]) -> bool:
        used = payload["budget"]["usedBytes"]
        return bool(used <= spend_b and used <= spend_t)

    # Evidence comes first: selection renders the Capsule without listed omission items
    # (their counts are complete); afterwards as many items are listed as still fit, at
    # most 20 (omissions.truncated and the omissions_truncated warning say when fewer).
    chosen = select(
        candidates, spend_b, lambda picked: within(assembler.render(picked, omitted, [], 0)[0])
    )
    selected, omitted = chosen.selected, omitted + chosen.omitted
    while selected:  # the final gaps and omission counts may be longer than during selection
        for shown in range(MAX_LISTED_OMISSIONS, -1, -1):
            payload, _ = assembler.render(selected, omitted, [], shown)
            if within(payload):
                break
        else:
            omitted.append(Omission(selected.pop(), "global_budget"))
            continue
        break
    if not selected:  # a budget error only when the budget left a candidate out
        if any(o.reason in ("global_budget", "document_share_cap") for o in omitted):
            raise _fail(InvalidBudgetError, "invalid_budget")
        raise NoEvidenceError(CATALOG["no_evidence"])
    if snapshot.after() != before:
        raise _fail(IndexChangedDuringCompileError, "index_changed_during_compile")
    return payload


def build(app: App, inp: ContextInput) -> ContextCapsule:
    return ContextCapsule.model_validate(compile_capsule(app, inp))
