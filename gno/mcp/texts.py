"""The human text of each MCP tool result, in GNO's wording (agents read it; programs read
``structuredContent``). The registry names each tool's function (``mcp.text``): it takes
the call's arguments and the output model; tools without one answer their payload as JSON."""

from __future__ import annotations

from typing import Any

from gno_contracts.models.get import GetResult
from gno_contracts.models.multi_get import MultiGetResult
from gno_contracts.models.search_results import SearchResults
from gno_contracts.models.section import SectionResult

SNIPPET_CHARS = 200


def _one_line(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def results(args: dict[str, Any], result: SearchResults, header_extra: str = "") -> str:
    query = result.meta.query
    if not result.results:
        return f'No results found for "{query}"'
    lines = [f'Found {len(result.results)} results for "{query}"{header_extra}:']
    for hit in result.results:
        lines.append(f"[{hit.docid}] {hit.uri} (score: {hit.score:.3f})")
        if hit.title:
            lines.append(f"  Title: {hit.title}")
        if hit.snippet:
            lines.append(f"  {_one_line(hit.snippet)}")
    return "\n".join(lines)


def query(args: dict[str, Any], result: SearchResults) -> str:
    meta = result.meta
    flags = ["hybrid" if meta.mode == "hybrid" else "BM25 only"]
    flags += [name for name in ("expanded", "reranked") if getattr(meta, name)]
    if meta.vectorsUsed:
        flags.append("vectors")
    return results(args, result, f" ({', '.join(flags)})")


def document(args: dict[str, Any], result: GetResult) -> str:
    lines = [f"Document: {result.uri}"]
    if result.title:
        lines.append(f"Title: {result.title}")
    lines.append(f"Lines: {result.totalLines}")
    if abs_path := result.source.absPath:
        lines.append(f"Path: {abs_path}")
    returned = result.returnedLines
    header = (
        f"--- Content (lines {returned.start}-{returned.end}) ---"
        if returned
        else "--- Content ---"
    )
    return "\n".join([*lines, "", header, result.content])


def documents(args: dict[str, Any], result: MultiGetResult) -> str:
    docs, skipped = result.documents, result.skipped or []
    lines = [f"Retrieved {len(docs)} documents" + (f", skipped {len(skipped)}" if skipped else "")]
    for doc in docs:
        lines += ["", f"=== {doc.uri} ==="]
        if doc.title:
            lines.append(f"Title: {doc.title}")
        lines.append(f"Lines: {doc.totalLines}" + (" (truncated)" if doc.truncated else ""))
        lines.append(doc.content)
    if skipped:
        lines += ["", "--- Skipped ---"]
        lines += [f"- {item.ref}: {item.reason}" for item in skipped]
    return "\n".join(lines)


def section(args: dict[str, Any], result: SectionResult) -> str:
    """GNO's gno_section text: the JSON, then how to read a citable section with gno_get."""
    text = result.model_dump_json(exclude_none=True, indent=2)
    citation = result.citation
    if citation is None:
        return f"{text}\n\nStatus {result.status}: not safe to cite or open; resolve again or re-create the target."
    count = citation.endLine - citation.startLine + 1
    return (
        f"{text}\n\nRead it: gno_get ref={citation.uri!r} fromLine={citation.startLine} "
        f"lineCount={count}"
    )
