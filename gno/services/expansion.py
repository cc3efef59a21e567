"""Generated query expansion for ``gno query`` (engine.md §5.4 step 4, §9.4).

Order of the checks, cheapest first: depth policy, BM25 strong signal (unless an
intent is given), the expansion cache (no model is loaded on a hit), then the
expand model. Expansion is optional: every way it can fail — no model, a
timeout, an answer that is not JSON — ends in "continue without", with the
reason in the explain line (``expansion_disabled``, ``expansion_skipped_strong``,
``expansion_error``), never in an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gno.app import App
from gno.core import expansion as ex
from gno.core.language import detect_language
from gno.errors import GnoError
from gno.models.catalog import active_preset
from gno.ports import GenerationError


@dataclass
class Outcome:
    """What expansion added: ``variants`` as (mode, text) spelled like query modes —
    ``term`` (a ``bm25_variant`` list), ``intent`` (``vector_variant``) and ``hyde`` —
    never the query itself."""

    message: str
    variants: list[tuple[str, str]] = field(default_factory=list)

    @property
    def expanded(self) -> bool:
        return bool(self.variants)


def _variants(text: str, expansion: ex.Expansion) -> list[tuple[str, str]]:
    # A variant equal to the query would only re-weight the query's own list.
    same = " ".join(text.lower().split())
    found = [("term", v) for v in expansion.lexical]
    found += [("intent", v) for v in expansion.vector]
    found += [("hyde", expansion.hyde)] if expansion.hyde else []
    return [(kind, v) for kind, v in found if " ".join(v.lower().split()) != same]


def _described(variants: list[tuple[str, str]], cached: bool) -> str:
    lexical = sum(1 for mode, _ in variants if mode == "term")
    semantic = sum(1 for mode, _ in variants if mode == "intent")
    hyde = any(mode == "hyde" for mode, _ in variants)
    text = f"{lexical} lexical, {semantic} vector variants"
    return text + (", hyde" if hyde else "") + (" (cached)" if cached else "")


def expand(
    app: App, store: Any, inp: Any, text: str, bm25_raw: list[float], has_modes: bool
) -> Outcome:
    """Expansion for one query. ``bm25_raw``: raw BM25 scores of the query's own hits,
    best first (empty when nothing matched every term)."""
    try:
        preset: str | None = active_preset(app.config.raw).id
    except GnoError:  # an unknown preset id in index.yml
        preset = None
    why = ex.skip_reason(
        fast=bool(inp.fast),
        thorough=bool(inp.thorough),
        expand=inp.expand,
        has_modes=has_modes,
        preset=preset,
    )
    if why is not None:
        return Outcome(f"skipped: expansion_disabled ({why})")
    if not inp.intent:
        signal = ex.strong_signal(bm25_raw)
        if signal.strong:
            return Outcome(
                f"skipped: expansion_skipped_strong (top {signal.top:.2f}, gap {signal.gap:.2f})"
            )
    try:
        model = app.model_uri("expand")
    except GnoError as exc:
        return Outcome(f"skipped: expansion_disabled ({exc.message})")
    lang = inp.lang or detect_language(text)
    key = ex.cache_key(model, text, lang, inp.intent)
    hit = store.cached_expansion(key)
    if hit is not None and (cached := ex.from_json(hit)) is not None:
        variants = _variants(text, cached)
        return Outcome(_described(variants, True), variants)
    generator = app.generator("expand")
    if generator is None:
        why = app.unavailable.get("expand", "no expand model")
        return Outcome(f"skipped: expansion_disabled ({why})")
    try:
        answer = generator.generate(
            ex.build_prompt(text, lang, inp.intent),
            schema=ex.ANSWER_SCHEMA,
            max_tokens=ex.MAX_TOKENS,
            timeout=app.expand_timeout(),
        )
    except GenerationError as exc:
        return Outcome(f"skipped: expansion_error ({exc.message})")
    parsed = ex.parse_answer(answer)
    if parsed is None:
        return Outcome("skipped: expansion_error (the answer holds no JSON object)")
    guarded = ex.guard(text, parsed)
    store.cache_expansion(key, model, guarded.to_json())
    variants = _variants(text, guarded)
    return Outcome(_described(variants, False), variants)
