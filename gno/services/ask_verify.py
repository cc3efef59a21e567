"""``gno ask --verify`` / ``gno_ask`` / ``/api/ask`` with ``verify: true`` (engine.md §6.3).

Compile one balanced Capsule for the question (12,000 tokens unless asked otherwise),
verify its freshness, answer from its evidence only (the same grounded prompt), rewrite the
``[n]`` citations to ``[evidence:<id>]``, split the answer into claims and check every
citation (inside the Capsule, fresh, attached to a claim). Claims with valid citations go
to one JSON-schema-constrained verifier call (``core/claims.py``); a claim without a valid
citation is ``insufficient``, one the verifier left open ``uncertain``. The answer is
released only when there is at least one claim, none contradicted, no rejected or orphan
citation and every claim supported; otherwise it is withheld (``abstained``).
"""

from __future__ import annotations

import re
import time
from typing import Any

from gno_contracts.models.ask_input import AskInput
from gno_contracts.models.context_input import ContextInput
from gno_contracts.models.query_input import QueryInput

from gno.app import App
from gno.core import claims as cl
from gno.core.ask_prompt import Source, build_prompt
from gno.core.capsule import canonical_json, sha256_text
from gno.models.catalog import is_endpoint
from gno.ports import GenerationError, Generator
from gno.services.answer_model import generate
from gno.services.context_build import compile_capsule, config_fingerprint
from gno.services.context_verify import verify_capsule

DEFAULT_BUDGET = 12_000
ABSTENTION_TEXT = (
    "The answer was withheld: not every claim is supported by fresh evidence in the Capsule."
)
_NUMBERED = re.compile(r"\[(\d{1,6})\]")


def _capsule_input(inp: AskInput) -> ContextInput:
    fields: dict[str, Any] = {
        "goal": inp.query,
        "budgetTokens": inp.contextBudgetTokens or DEFAULT_BUDGET,
        "depthPolicy": "fast" if inp.fast else "thorough" if inp.thorough else "balanced",
        "limit": inp.limit,
    }
    if inp.collection:
        fields["collections"] = [inp.collection]
    for name in ("budgetBytes", "candidateLimit", "tagsAll", "tagsAny", "categories", "exclude",
                 "author", "lang", "intent", "since", "until", "minScore", "filter"):  # fmt: skip
        source = "contextBudgetBytes" if name == "budgetBytes" else name
        if (value := getattr(inp, source, None)) is not None:
            fields[name] = value
    if inp.queryModes:
        fields["queryModes"] = [m.model_dump(mode="json") for m in inp.queryModes]
    if inp.graph is False or inp.noGraph:
        fields["graph"] = False
    if inp.rerank is False:
        fields["noRerank"] = True
    return ContextInput.model_validate(fields)


def _rewrite(answer: str, evidence: list[dict[str, Any]]) -> str:
    """``[n]`` -> ``[evidence:<id>]`` for n in 1..len(evidence); other numbers stay, and are
    then rejected as malformed citations."""

    def one(m: re.Match[str]) -> str:
        n = int(m[1])
        return f"[evidence:{evidence[n - 1]['evidenceId']}]" if 1 <= n <= len(evidence) else m[0]

    return _NUMBERED.sub(one, answer)


def _rejected(marker: cl.Marker, at: cl.Utf16, reason: str) -> dict[str, Any]:
    return {"marker": marker.raw, "start": at(marker.start), "end": at(marker.end),
            "reason": reason}  # fmt: skip


def verified_ask(app: App, inp: AskInput, generator: Generator) -> dict[str, Any]:
    from gno.services.query import query

    capsule = compile_capsule(app, _capsule_input(inp))
    freshness = verify_capsule(app, capsule)
    evidence = capsule["evidence"]
    fresh = {e["evidenceId"]: e["contentStatus"] for e in freshness["evidence"]}
    by_id = {e["evidenceId"]: e for e in evidence}
    sources = [Source(e["docid"], e["uri"], 1.0, e["title"] or "", e["text"]) for e in evidence]
    if is_endpoint(app.model_uri("gen")):  # the evidence goes into an endpoint's prompt
        from gno.services.inference_egress import check_sources

        check_sources(app, "gen", [s.uri for s in sources])
    guidance = [c["text"] for c in capsule["guidance"]["configuredContexts"]]
    raw = generate(
        generator, build_prompt(capsule["query"], guidance, sources), inp.maxAnswerTokens
    )
    answer = _rewrite(raw, evidence)
    answer_hash = sha256_text(answer)
    spans, orphans = cl.split_claims(answer)
    at = cl.Utf16(answer)
    # Lists of rejected citations hold at most 256 (the answer's, each claim's); whether
    # any was rejected is known from the counts.
    rejected_all = [_rejected(m, at, "orphan_citation") for m in orphans[: cl.MAX_CLAIMS]]
    hygiene_failed = bool(orphans)
    results: list[dict[str, Any]] = []
    candidates: list[tuple[int, dict[str, Any]]] = []
    for span in spans:
        rejected: list[dict[str, Any]] = []
        cited: list[str] = []
        for m in span.markers:
            reason = (
                "out_of_capsule" if m.numeric
                else "malformed_citation" if m.evidence_id is None
                else "out_of_capsule" if m.evidence_id not in by_id
                else "evidence_missing" if fresh.get(m.evidence_id) == "missing"
                else "evidence_stale" if fresh.get(m.evidence_id) != "unchanged"
                else None
            )  # fmt: skip
            if reason:
                hygiene_failed = True
                if len(rejected) < cl.MAX_CLAIMS:
                    rejected.append(_rejected(m, at, reason))
            elif m.evidence_id is not None and m.evidence_id not in cited:
                cited.append(m.evidence_id)
        claim = {
            "claimId": sha256_text(
                canonical_json({"answerHash": answer_hash, "start": span.start, "end": span.end})
            ),
            "text": span.text,
            "start": at(span.start),
            "end": at(span.end),
            "status": "insufficient",
            "rationaleCode": "no_valid_evidence",
            "evidence": [
                {
                    k: by_id[i][k]
                    for k in (
                        "evidenceId",
                        "uri",
                        "startLine",
                        "endLine",
                        "text",
                        "sourceHash",
                        "mirrorHash",
                        "passageHash",
                    )
                }
                for i in cited
            ],
            "rejectedCitations": rejected,
        }
        if len(rejected_all) < cl.MAX_CLAIMS:
            rejected_all += rejected[: cl.MAX_CLAIMS - len(rejected_all)]
        results.append(claim)
        if cited:
            candidates.append((len(results) - 1, claim))
    semantic = _semantic(app, generator, results, candidates)
    counts = {s: sum(1 for c in results if c["status"] == s)
              for s in ("supported", "contradicted", "insufficient", "uncertain")}  # fmt: skip
    total = len(results)
    ratio = counts["supported"] / total if total else 0.0
    reason = (
        "no_substantive_claims" if not total
        else "contradiction_detected" if counts["contradicted"]
        else "citation_hygiene_failed" if hygiene_failed
        else "coverage_below_threshold" if ratio < 1.0
        else None
    )  # fmt: skip
    verification = {
        "schemaVersion": "1.0",
        "coordinateSpace": "utf16_code_units",
        "capsuleId": capsule["capsuleId"],
        "answerHash": answer_hash,
        "coverageThreshold": 1,
        "claims": results,
        "rejectedCitations": rejected_all,
        "coverage": {"totalClaims": total, "supportedClaims": counts["supported"],
                     "contradictedClaims": counts["contradicted"],
                     "insufficientClaims": counts["insufficient"],
                     "uncertainClaims": counts["uncertain"], "supportedRatio": round(ratio, 6)},
        "answerStatus": "abstained" if reason else "verified",
        "abstained": bool(reason),
        "abstentionReason": reason,
        "abstentionText": ABSTENTION_TEXT if reason else None,
    }  # fmt: skip
    fields = inp.model_dump(exclude_unset=True, exclude={"answer", "noAnswer", "verify",
        "maxAnswerTokens", "contextBudgetTokens", "contextBudgetBytes"})  # fmt: skip
    found = query(app, QueryInput.model_validate(fields))
    meta = found.meta.model_dump(mode="json", exclude_unset=True)
    payload: dict[str, Any] = {
        "query": meta["query"],
        "mode": meta["mode"],
        "results": [r.model_dump(mode="json", exclude_unset=True) for r in found.results],
        "verification": {"schemaVersion": "1.0", "mode": "closed_capsule", "capsule": capsule,
                         "freshness": freshness, "claims": verification, "semantic": semantic},
        "meta": {k: meta[k] for k in ("expanded", "reranked", "vectorsUsed", "intent",
                                       "candidateLimit", "queryModes", "explain") if k in meta}
        | {"totalResults": len(found.results), "answerGenerated": True,
           "verificationRequested": True, "abstained": bool(reason)},
    }  # fmt: skip
    if not reason:
        payload["answer"] = answer
        cited_ids = list(dict.fromkeys(e["evidenceId"] for c in results for e in c["evidence"]))
        payload["citations"] = [
            {"evidenceId": i, "docid": by_id[i]["docid"], "uri": by_id[i]["uri"],
             "startLine": by_id[i]["startLine"], "endLine": by_id[i]["endLine"]}
            for i in cited_ids
        ]  # fmt: skip
    return payload


def _semantic(
    app: App,
    generator: Generator,
    results: list[dict[str, Any]],
    candidates: list[tuple[int, dict[str, Any]]],
) -> dict[str, Any]:
    """One verifier call over the claims with valid citations; sets their status."""
    started = time.perf_counter()
    info: dict[str, Any] = {
        "status": "completed", "reason": "verified", "schemaRequested": True,
        "schemaEnforced": bool(getattr(generator, "enforces_schema", False)),
        "modelFingerprint": sha256_text(generator.model_id),
        "configFingerprint": config_fingerprint(app),
        "verifierFingerprint": sha256_text(cl.PROTOCOL + canonical_json(cl.VERDICT_SCHEMA)),
        "candidateClaims": len(candidates), "verifiedClaims": 0, "unresolvedClaims": 0,
        "modelCalls": 0, "durationMs": 0,
    }  # fmt: skip
    # A claim goes to the verifier with all the evidence it cites, or not at all (then it
    # stays uncertain): judged against part of its evidence it could be wrongly decided.
    batch: list[tuple[int, dict[str, Any]]] = []
    evidence: dict[str, str] = {}
    for item in candidates[: cl.MAX_VERIFIED_CLAIMS]:
        cited = {e["evidenceId"]: e["text"] for e in item[1]["evidence"]}
        if len(evidence.keys() | cited.keys()) <= cl.MAX_VERIFIED_EVIDENCE:
            batch.append(item)
            evidence |= cited
    for _, claim in candidates:  # unresolved unless the verifier says otherwise
        claim["status"], claim["rationaleCode"] = "uncertain", "semantic_judgment_unavailable"
    if not candidates:
        info.update(status="completed", reason="no_candidates")
    elif not batch:  # each claim alone cites more evidence than the verifier takes
        info.update(status="unavailable", reason="input_limit_exceeded")
    else:
        prompt = cl.verifier_prompt(
            [
                (n, c["text"], [e["evidenceId"] for e in c["evidence"]])
                for n, (_, c) in enumerate(batch, 1)
            ],
            list(evidence.items()),
        )
        if len(prompt.encode()) > cl.MAX_PROMPT_BYTES:
            info.update(status="unavailable", reason="input_limit_exceeded")
        else:
            info["modelCalls"] = 1
            try:
                text = generator.generate(
                    prompt, schema=cl.VERDICT_SCHEMA, max_tokens=cl.VERIFIER_TOKENS
                )
            except GenerationError as exc:
                code = "invalid_output" if exc.code == "INVALID_OUTPUT" else "generation_failed"
                info.update(status="failed", reason=code)
            else:
                verdicts = cl.parse_verdicts(text, len(batch))
                if verdicts is None:
                    info.update(status="failed", reason="invalid_output")
                else:
                    for n, (_, claim) in enumerate(batch, 1):
                        verdict = verdicts.get(n, "unresolved")
                        if verdict == "supported":
                            claim["status"], claim["rationaleCode"] = (
                                "supported",
                                "semantic_entailment",
                            )
                        elif verdict == "contradicted":
                            claim["status"], claim["rationaleCode"] = (
                                "contradicted",
                                "semantic_contradiction",
                            )
    info["verifiedClaims"] = sum(
        1 for _, c in candidates if c["status"] in ("supported", "contradicted")
    )
    info["unresolvedClaims"] = len(candidates) - info["verifiedClaims"]
    info["durationMs"] = round((time.perf_counter() - started) * 1000, 3)
    return info
