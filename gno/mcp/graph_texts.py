"""The human text of the graph and knowledge delta tools, in GNO's wording (registry
``mcp.text``; the call's arguments and the output model in, text out)."""

from __future__ import annotations

from typing import Any

from gno_contracts.models.changes import Changes
from gno_contracts.models.document_diff import DocumentDiff
from gno_contracts.models.graph_path import GraphPath
from gno_contracts.models.impact import Impact
from gno_contracts.models.mcp_backlinks import McpBacklinks
from gno_contracts.models.mcp_links import McpLinks
from gno_contracts.models.mcp_similar import McpSimilar


def _kind(value: Any) -> str:
    return str(getattr(value, "value", value))


def links(args: dict[str, Any], result: McpLinks) -> str:
    meta = result.meta
    lines = [f"Found {meta.totalLinks} outgoing links in {meta.uri}"]
    for link in result.links:
        lines.append(
            f"  [{_kind(link.linkType)}] {link.targetRef} (line {link.position.startLine})"
        )
    return "\n".join(lines)


def backlinks(args: dict[str, Any], result: McpBacklinks) -> str:
    meta = result.meta
    lines = [f"Found {meta.totalBacklinks} backlinks to {meta.uri}"]
    for link in result.backlinks:
        lines.append(f"  {link.sourceDocUri} (line {link.position.startLine})")
    return "\n".join(lines)


def similar(args: dict[str, Any], result: McpSimilar) -> str:
    meta = result.meta
    lines = [f"Found {meta.totalSimilar} documents similar to {meta.uri}"]
    lines += [f"  {hit.uri} (score: {hit.score:.3f})" for hit in result.similar]
    return "\n".join(lines)


def path(args: dict[str, Any], result: GraphPath) -> str:
    if result.path is None:
        return (
            f"No graph path found from {result.from_.uri} to {result.to.uri} "
            f"within {result.meta.maxDepth} hops"
        )
    names = " -> ".join(node.uri for node in result.path.nodes)
    # `hops` is a constrained-int root model: formatted whole it reads "root=1".
    hops = result.meta.hops.root if result.meta.hops is not None else len(result.path.edges)
    return f"Graph path ({hops} hops):\n{names}"


def changes(args: dict[str, Any], result: Changes) -> str:
    more = " (more available)" if result.page.truncated else ""
    return f"{len(result.changes)} retained document changes{more}"


def diff(args: dict[str, Any], result: DocumentDiff) -> str:
    return (
        f"Structural diff for {result.document.uri}: {_kind(result.status)}; "
        f"history {_kind(result.history.status)}; source bodies not retained"
    )


def impact(args: dict[str, Any], result: Impact) -> str:
    more = " (truncated)" if result.meta.truncated else ""
    return f"{len(result.impacted)} documents depend on {result.root.uri}{more}"
