"""``gno ask`` for people: the answer (or the sources when there is none), Markdown with
``--md``; ``--explain`` stage lines on stderr."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.render import Shown, View

if TYPE_CHECKING:  # renderers read attributes: no model module loads for them
    from gno_contracts.models.ask import AskResult


def _sources(result: AskResult) -> list[str]:
    return [
        f"[{i}] {r.uri} (score {r.score:.3f})" + (f" {r.title}" if r.title else "")
        for i, r in enumerate(result.results, 1)
    ]


def _citations(result: AskResult) -> list[str]:
    return [
        f"[{i}] {c.uri}" + (f":{c.startLine}-{c.endLine}" if c.startLine else "")
        for i, c in enumerate(result.citations or [], 1)
    ]


def answer(result: AskResult, view: View) -> Shown:
    explain = result.meta.explain
    err = "\n".join(f"[{x.stage}] {x.message}" for x in explain.lines) if explain else ""
    v = result.verification
    lines: list[str] = []
    if view.fmt == "md":
        lines += [f"# {result.query}", ""]
        if result.answer is not None:
            lines += [result.answer, "", "## Citations", ""] + [
                f"- {c}" for c in _citations(result)
            ]
        if v is not None and result.answer is None:
            lines += [
                f"Abstained: {v.claims.abstentionReason.value if v.claims.abstentionReason else 'no answer'}"
            ]
        lines += ["", "## Sources", ""] + [f"- {s}" for s in _sources(result)]
        return Shown("\n".join(lines), err)
    if result.answer is not None and view.streamed is not None:
        # The model's text is already on the screen; say so if hygiene changed it.
        if view.streamed.strip() != result.answer:
            lines += ["", "Answer with citations checked:", result.answer]
        lines += ["", *_citations(result)]
    elif result.answer is not None:
        lines += [result.answer, "", *_citations(result)]
    if v is not None:
        c = v.claims.coverage
        lines += [
            "",
            f"Verification: {v.claims.answerStatus.value}"
            + (f" ({v.claims.abstentionReason.value})" if v.claims.abstentionReason else ""),
            f"Claims: {c.supportedClaims}/{c.totalClaims} supported",
        ]
        lines += [f"- {cl.status.value}: {cl.text}" for cl in v.claims.claims]
    if result.answer is None or view.full:
        lines += ([""] if lines else []) + (_sources(result) or ["No results."])
    text = "\n".join(lines).strip("\n")
    if view.streamed is not None:  # end the streamed line first
        text = "\n" + text
    return Shown(text, err)
