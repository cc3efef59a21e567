"""The human text of each MCP tool result, in GNO's wording (agents read it; programs read
``structuredContent``). The registry names each tool's function (``mcp.text``); tools
without one answer their payload as JSON."""

from __future__ import annotations

from typing import Any

SNIPPET_CHARS = 200


def _one_line(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def results(args: dict[str, Any], payload: dict[str, Any], header_extra: str = "") -> str:
    query = payload.get("meta", {}).get("query", args.get("query", ""))
    results = payload.get("results", [])
    if not results:
        return f'No results found for "{query}"'
    lines = [f'Found {len(results)} results for "{query}"{header_extra}:']
    for hit in results:
        lines.append(f"[{hit['docid']}] {hit['uri']} (score: {hit['score']:.3f})")
        if hit.get("title"):
            lines.append(f"  Title: {hit['title']}")
        if hit.get("snippet"):
            lines.append(f"  {_one_line(hit['snippet'])}")
    return "\n".join(lines)


def query(args: dict[str, Any], payload: dict[str, Any]) -> str:
    meta = payload.get("meta", {})
    flags = ["hybrid" if meta.get("mode") == "hybrid" else "BM25 only"]
    flags += [name for name in ("expanded", "reranked") if meta.get(name)]
    if meta.get("vectorsUsed"):
        flags.append("vectors")
    return results(args, payload, f" ({', '.join(flags)})")


def document(args: dict[str, Any], payload: dict[str, Any]) -> str:
    lines = [f"Document: {payload['uri']}"]
    if payload.get("title"):
        lines.append(f"Title: {payload['title']}")
    lines.append(f"Lines: {payload['totalLines']}")
    if abs_path := payload.get("source", {}).get("absPath"):
        lines.append(f"Path: {abs_path}")
    returned = payload.get("returnedLines")
    header = (
        f"--- Content (lines {returned['start']}-{returned['end']}) ---"
        if returned
        else "--- Content ---"
    )
    return "\n".join([*lines, "", header, payload["content"]])


def documents(args: dict[str, Any], payload: dict[str, Any]) -> str:
    documents, skipped = payload.get("documents", []), payload.get("skipped", [])
    lines = [
        f"Retrieved {len(documents)} documents" + (f", skipped {len(skipped)}" if skipped else "")
    ]
    for doc in documents:
        lines += ["", f"=== {doc['uri']} ==="]
        if doc.get("title"):
            lines.append(f"Title: {doc['title']}")
        lines.append(
            f"Lines: {doc['totalLines']}" + (" (truncated)" if doc.get("truncated") else "")
        )
        lines.append(doc["content"])
    if skipped:
        lines += ["", "--- Skipped ---"]
        lines += [f"- {item['ref']}: {item['reason']}" for item in skipped]
    return "\n".join(lines)
