"""``gno ask`` / ``POST /api/ask`` / MCP ``gno_ask`` (``ask@1.0``, engine.md §6.3).

Retrieval first (the hybrid pipeline of ``gno query``). Without ``answer`` that is all:
no model is needed. With ``answer`` the ``gen`` model must be available — checked before
any retrieval, so a missing model fails in milliseconds with the command that fixes it —
then the sources are chosen (``core/ask_prompt.choose_sources``), the grounded prompt is
built, the model answers greedily (temperature 0) within ``maxAnswerTokens``, and citation
hygiene keeps only valid ``[n]`` markers (renumbered) or abstains. ``verify`` answers from
one closed Context Capsule instead (``services/ask_verify.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gno_contracts.models.ask import AskResult
from gno_contracts.models.ask_input import AskInput
from gno_contracts.models.mcp_ask_input import McpAskInput
from gno_contracts.models.query_input import QueryInput

from gno.app import App
from gno.core.ask_prompt import (
    PASSAGE_CHARS,
    POOL,
    SNIPPET_CHARS,
    STRATEGY,
    Source,
    apply_citations,
    build_prompt,
    choose_sources,
)
from gno.core.identity import parse_uri
from gno.errors import ValidationError
from gno.models.catalog import is_endpoint
from gno.services.answer_model import answer_model, generate

ASK_FIELDS = ("answer", "noAnswer", "verify", "maxAnswerTokens", "contextBudgetTokens",
              "contextBudgetBytes")  # fmt: skip


def _sources(app: App, results: list[Any]) -> list[Source]:
    """One source per document (best hit), its full-line window or its snippet."""
    store = app.store()
    out: list[Source] = []
    seen: set[str] = set()
    for r in results:
        if r.docid in seen or len(out) >= POOL:
            continue
        seen.add(r.docid)
        text, start, end = r.snippet[:SNIPPET_CHARS], None, None
        if r.snippetRange is not None:
            parsed = parse_uri(r.uri)
            doc = store.document_by_path(parsed.collection, parsed.rel_path)
            mirror = store.content(doc.mirror_hash) if doc and doc.mirror_hash else None
            if mirror is not None:
                start, end = r.snippetRange.startLine, r.snippetRange.endLine
                text = "\n".join(mirror.split("\n")[start - 1 : end])[:PASSAGE_CHARS]
        out.append(Source(r.docid, r.uri, r.score, r.title or "", text, start, end))
    return out


def _context_item(s: Source, reason: str) -> dict[str, Any]:
    return {"docid": s.docid, "uri": s.uri, "score": s.score, "queryTokenHits": s.token_hits,
            "facetHits": s.facet_hits, "reason": reason}  # fmt: skip


def ask(app: App, inp: AskInput, progress: Callable[[str], None] | None = None) -> AskResult:
    """``progress`` (the CLI's) receives the answer text as the model writes it."""
    if inp.verify and inp.noAnswer:
        raise ValidationError("--verify cannot be combined with --no-answer")
    if inp.verify:
        from gno.services.ask_verify import verified_ask

        return AskResult.model_validate(verified_ask(app, inp, answer_model(app)))
    want = bool(inp.answer) and not inp.noAnswer
    generator = answer_model(app) if want else None  # before any retrieval: fail fast
    from gno.services.query import query

    fields = inp.model_dump(exclude_unset=True, exclude=set(ASK_FIELDS))
    fields["limit"] = max(inp.limit, POOL) if want else inp.limit
    found = query(app, QueryInput.model_validate(fields))
    meta = found.meta.model_dump(mode="json", exclude_unset=True)
    payload: dict[str, Any] = {
        "query": meta["query"],
        "mode": meta["mode"],
        "results": [r.model_dump(mode="json", exclude_unset=True) for r in found.results[: inp.limit]],
        "meta": {k: meta[k] for k in ("expanded", "reranked", "vectorsUsed", "intent",
                                       "candidateLimit", "queryModes", "explain") if k in meta}
        | {"totalResults": min(len(found.results), inp.limit), "answerGenerated": False},
    }  # fmt: skip
    if inp.exclude:
        payload["meta"]["exclude"] = list(inp.exclude)
    if generator is None:
        return AskResult.model_validate(payload)
    choice = choose_sources(meta["query"], _sources(app, found.results))
    if is_endpoint(app.model_uri("gen")):  # the sources go into an endpoint's prompt
        from gno.services.inference_egress import check_sources

        check_sources(app, "gen", [s.uri for s in choice.selected])
    guidance = list(dict.fromkeys(r.context for r in found.results if r.context))
    prompt = build_prompt(meta["query"], guidance, choice.selected)
    raw = generate(generator, prompt, inp.maxAnswerTokens, progress)
    cited = apply_citations(raw, len(choice.selected))
    payload["answer"] = cited.answer
    payload["citations"] = [
        {"docid": s.docid, "uri": s.uri}
        | ({"startLine": s.start, "endLine": s.end} if s.start is not None else {})
        for s in (choice.selected[n - 1] for n in cited.used)
    ]
    payload["meta"] |= {
        "answerGenerated": True,
        "abstained": cited.abstained,
        "answerContext": {
            "strategy": STRATEGY,
            "targetSources": choice.target,
            "facets": choice.facets,
            "selected": [_context_item(s, "selected") for s in choice.selected],
            "dropped": [_context_item(s, why) for s, why in choice.dropped],
        },
    }
    return AskResult.model_validate(payload)


def ask_verified(app: App, inp: McpAskInput) -> AskResult:
    """gno_ask: always the closed-Capsule verified ask (``verify`` is the literal true)."""
    fields = inp.model_dump(exclude_unset=True)
    if fields.pop("noGraph", False):
        fields["graph"] = False
    if fields.pop("noRerank", False):
        fields["rerank"] = False
    return ask(app, AskInput.model_validate(fields | {"verify": True}))
