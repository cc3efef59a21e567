"""search, vsearch and query results as terminal text, files lines, CSV, Markdown or XML;
``query diagnose`` as stage lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.render import Shown, View, escape, quoteattr
from gno.render.style import HEADER, LINE_NUMBER, highlight, paint, term_stems, terminal_safe

if TYPE_CHECKING:  # renderers read attributes: `gno search` loads no model (services/wire.py)
    from gno_contracts.models.query_diagnose import QueryDiagnose
    from gno_contracts.models.search_results import SearchResult, SearchResults

TERMINAL_SNIPPET = 200
REPORT_SNIPPET = 500


def _cut(text: str, limit: int, full: bool = False) -> str:
    if full or len(text) <= limit:
        return text
    return text[:limit] + "..."


def _numbered(text: str, start: int) -> str:
    return "\n".join(f"{start + i}: {line}" for i, line in enumerate(text.split("\n")))


def _snippet(hit: SearchResult, limit: int, view: View) -> str:
    text = _cut(hit.snippet or "", limit, view.full)
    if view.line_numbers:
        text = _numbered(text, hit.snippetRange.startLine if hit.snippetRange else 1)
    return text


def _csv_field(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


def _csv(hits: list[SearchResult]) -> str:
    rows = ["docid,score,uri,title,relPath"]
    rows += [
        ",".join(
            [
                _csv_field(h.docid),
                f"{h.score:.4f}",
                _csv_field(h.uri),
                _csv_field(h.title or ""),
                _csv_field(h.source.relPath),
            ]
        )
        for h in hits
    ]
    return "\n".join(rows)


def _markdown(result: SearchResults, view: View) -> str:
    out = [f'# Search Results for "{result.meta.query}"', ""]
    for h in result.results:
        out += [
            f"## {h.title or h.uri}",
            "",
            f"- **URI:** {h.uri}",
            f"- **Score:** {h.score:.4f}",
            f"- **DocID:** {h.docid}",
            "",
            "```",
            _snippet(h, REPORT_SNIPPET, view),
            "```",
            "",
        ]
    if not result.results:
        out.append("No results found.")
    return "\n".join(out)


def _xml(result: SearchResults, view: View) -> str:
    meta = result.meta
    out = [
        f"<searchResults><meta query={quoteattr(meta.query)} mode={quoteattr(meta.mode)} "
        f'total="{meta.totalResults}"/>'
    ]
    for h in result.results:
        parts = [
            f"<docid>{escape(h.docid)}</docid>",
            f"<score>{h.score:.4f}</score>",
            f"<uri>{escape(h.uri)}</uri>",
            f"<title>{escape(h.title or '')}</title>",
            f"<relPath>{escape(h.source.relPath)}</relPath>",
            f"<snippet>{escape(_snippet(h, REPORT_SNIPPET, view))}</snippet>",
        ]
        out.append("<result>" + "".join(parts) + "</result>")
    return "\n".join([*out, "</searchResults>"])


def _snippet_lines(hit: SearchResult, view: View, terms: tuple[str, ...] | None) -> list[str]:
    """The terminal snippet, each line made terminal-safe, matched terms styled and line
    numbers (dim) when the view asks for them."""
    lines = _cut(hit.snippet or "", TERMINAL_SNIPPET, view.full).split("\n")
    start = hit.snippetRange.startLine if hit.snippetRange else 1
    out = []
    for i, line in enumerate(lines):
        text = highlight(line, terms, view.color)
        if view.line_numbers:
            text = paint(f"{start + i}: ", LINE_NUMBER, view.color) + text
        out.append("    " + text)
    return out


def _terminal(result: SearchResults, view: View) -> str:
    """Hits for people; every piece of indexed data goes through terminal_safe."""
    hits, meta = result.results, result.meta
    if not hits:
        return "No results found."
    terms = term_stems(meta.query) if view.color else None
    out = []
    for h in hits:
        uri = paint(h.uri, HEADER, view.color)
        out.append(f"[{terminal_safe(h.docid)}] {uri} (score: {h.score:.2f})")
        if h.title:
            out.append(f"  {terminal_safe(h.title)}")
        out += [*_snippet_lines(h, view, terms), ""]
    if view.quiet:
        return "\n".join(out[:-1])
    relaxed = ", not every term matched" if meta.relaxed else ""
    query = terminal_safe(meta.query)
    out.append(f'{len(hits)} result(s) for "{query}" ({meta.mode}{relaxed})')
    return "\n".join(out)


def text(result: SearchResults, view: View) -> str:
    if view.fmt == "files":
        return "\n".join(f"{h.docid},{h.score:.4f},{h.uri}" for h in result.results)
    if view.fmt == "csv":
        return _csv(result.results)
    if view.fmt == "md":
        return _markdown(result, view)
    if view.fmt == "xml":
        return _xml(result, view)
    return _terminal(result, view)


def results(result: SearchResults, view: View) -> Shown:
    return Shown(text(result, view), styled=view.fmt is None)


def diagnose(result: QueryDiagnose) -> str:
    target = result.target
    lines = [f"Target: {target.ref} ({target.status})"]
    if target.filterReasons:
        lines.append("Filtered out by: " + ", ".join(target.filterReasons))
    for stage in result.stages:
        where = f"rank {stage.rank}" if stage.rank else "absent"
        fate = "survived" if stage.survived else f"dropped ({stage.dropReason.value})"
        lines.append(f"  {stage.id:7s} {stage.status:7s} {where:10s} {fate}")
    lines.append(f"Mode: {result.meta.mode}, results: {result.meta.totalResults}")
    if receipt := result.meta.retrieval:
        terms = ", ".join(t.term for t in receipt.feedbackTerms or []) or "none"
        shape = receipt.shape.value if receipt.shape else None
        move = receipt.targetLanguageMove.value if receipt.targetLanguageMove else None
        lines.append(
            f"Shape: {shape or 'off'}; feedback terms: {terms}; windows per chunk: "
            f"{receipt.windows if receipt.windows is not None else 1}; "
            f"language: {receipt.queryLanguage or 'off'}" + (f" (target {move})" if move else "")
        )
        for step in receipt.stages or []:  # 1.3: each model-free stage, as --explain says it
            where = f"; target rank {step.targetRank}" if step.targetRank else ""
            if step.targetWindows:
                near = min(step.targetWindows, key=lambda w: w.distance)
                where = f"; target scored by window {near.window} of chunk {near.seq}"
            lines.append(f"  {step.id:14s} {step.status.value:7s} {step.message}{where}")
    return "\n".join(lines)


def query(result: SearchResults | QueryDiagnose, view: View) -> Shown:
    """query's text; its explain lines (--explain) go to stderr. `gno query diagnose`
    runs the query_diagnose operation and lands here too."""
    from gno_contracts.models.query_diagnose import QueryDiagnose

    if isinstance(result, QueryDiagnose):
        return Shown(diagnose(result))
    explain = result.meta.explain
    err = (
        "".join(f"[explain] {line.stage}: {line.message}\n" for line in explain.lines)
        if explain
        else ""
    )
    if result.meta.vectorsUsed is False and not view.quiet:  # JSON: meta.mode; people: one line
        err += BM25_ONLY_NOTE
    return Shown(text(result, view), err, styled=view.fmt is None)


BM25_ONLY_NOTE = (
    "Note: keyword (BM25) results only: no embedding model or no vectors yet. "
    "Fix: gno models pull --embed && gno embed\n"
)
