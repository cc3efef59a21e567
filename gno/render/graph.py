"""links, backlinks, similar, graph (report, neighbours, path; JSON, DOT or Mermaid),
graph query, tags, changes, diff and impact as terminal text."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gno.render import Shown, View, dump, json_text

if TYPE_CHECKING:  # renderers read attributes: no model module loads for them
    from gno_contracts.models.backlinks import Backlinks
    from gno_contracts.models.changes import Changes
    from gno_contracts.models.document_diff import DocumentDiff
    from gno_contracts.models.graph import Graph
    from gno_contracts.models.graph_neighbors import GraphNeighbors
    from gno_contracts.models.graph_path import GraphPath
    from gno_contracts.models.graph_query import GraphQuery
    from gno_contracts.models.impact import Impact
    from gno_contracts.models.links_list import LinksList
    from gno_contracts.models.similar import Similar
    from gno_contracts.models.tags_list import TagsList


def _bullet(view: View) -> str:
    return "- " if view.fmt == "md" else "  "


def _value(obj: Any, name: str) -> Any:
    """A field of a generated model (``RootModel`` variants are unwrapped)."""
    obj = getattr(obj, "root", obj)
    value = getattr(obj, name, None)
    return getattr(value, "value", value)


def _named(uri: str, title: str | None) -> str:
    return f"{title} ({uri})" if title else uri


def links(result: LinksList, view: View) -> Shown:
    meta = result.meta
    header = f"{meta.totalLinks} outgoing link(s) in {meta.uri}"
    if view.fmt == "md":
        header = f"# Links of {meta.uri}\n\n{meta.totalLinks} link(s)"
    lines = [header]
    for link in result.links:
        if _value(link, "targetDocid") is not None:  # typed edge
            lines.append(
                f"{_bullet(view)}[{_value(link, 'edgeType')}] "
                f"{_named(_value(link, 'targetUri'), _value(link, 'targetTitle'))}"
                f" ({_value(link, 'edgeSource')}, {_value(link, 'confidence')})"
            )
            continue
        target = _value(link, "targetRef")
        where = _value(link, "resolvedUri")
        state = f" -> {where}" if where else " (unresolved)"
        lines.append(
            f"{_bullet(view)}[{_value(link, 'linkType')}] {target}{state} "
            f"(line {_value(link, 'startLine')})"
        )
    return Shown("\n".join(lines))


def backlinks(result: Backlinks, view: View) -> Shown:
    meta = result.meta
    header = f"{meta.totalBacklinks} backlink(s) to {meta.uri}"
    if view.fmt == "md":
        header = f"# Backlinks of {meta.uri}\n\n{meta.totalBacklinks} backlink(s)"
    lines = [header]
    for link in result.backlinks:
        source = _named(_value(link, "sourceUri"), _value(link, "sourceTitle"))
        if _value(link, "edgeType") is not None:
            lines.append(f"{_bullet(view)}[{_value(link, 'edgeType')}] {source}")
        else:
            lines.append(f"{_bullet(view)}{source} (line {_value(link, 'startLine')})")
    return Shown("\n".join(lines))


def similar(result: Similar, view: View) -> Shown:
    meta = result.meta
    header = f"{meta.totalResults} document(s) similar to {meta.uri}"
    if view.fmt == "md":
        header = f"# Similar to {meta.uri}\n\n{meta.totalResults} document(s)"
    lines = [header]
    for hit in result.similar:
        lines.append(f"{_bullet(view)}{hit.score:.3f} {_named(hit.uri, hit.title)}")
    return Shown("\n".join(lines))


# ---------------------------------------------------------------- graph


def _graph_parts(result: Graph | GraphNeighbors | GraphPath) -> tuple[list[Any], list[Any]]:
    """(nodes, edges) of any graph answer, as plain wire objects. The answer is told by
    its required fields (a model or the lean path's ``Wire``: no model class is needed)."""
    data = dump(result)
    assert isinstance(data, dict)
    if "links" in data:  # graph@1.0
        return data["nodes"], data["links"]
    if "neighbors" in data:  # graph-neighbors@1.0
        nodes = [data["source"]] + [n["node"] for n in data["neighbors"]]
        return nodes, [n["edge"] for n in data["neighbors"]]
    found = data.get("path") or {"nodes": [data["from"], data["to"]], "edges": []}
    return found["nodes"], found["edges"]


def _dot_text(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def _mermaid_text(text: str) -> str:
    return '"' + re.sub(r'["\n<>]', " ", text) + '"'


def _label(node: dict[str, Any]) -> str:
    return str(node.get("title") or node["relPath"])


def graph(result: Graph | GraphNeighbors | GraphPath, view: View) -> Shown:
    """JSON by default (as GNO prints it), or Graphviz DOT / a Mermaid flowchart."""
    if view.fmt not in ("dot", "mermaid"):
        return Shown(json_text(dump(result)))  # escaped: the terminal filter strips C1 raw
    nodes, edges = _graph_parts(result)
    unique = {n["id"]: n for n in nodes}
    key = {doc_id: f"n{i}" for i, doc_id in enumerate(unique)}
    if view.fmt == "dot":
        lines = ["digraph gno {"]
        lines += [f"  {key[i]} [label={_dot_text(_label(n))}];" for i, n in unique.items()]
        lines += [
            f"  {key[e['source']]} -> {key[e['target']]} [label={_dot_text(e['type'])}];"
            for e in edges
            if e["source"] in key and e["target"] in key
        ]
        return Shown("\n".join([*lines, "}"]))
    lines = ["flowchart LR"]
    lines += [f"  {key[i]}[{_mermaid_text(_label(n))}]" for i, n in unique.items()]
    lines += [
        f"  {key[e['source']]} -->|{e['type']}| {key[e['target']]}"
        for e in edges
        if e["source"] in key and e["target"] in key
    ]
    return Shown("\n".join(lines))


def graph_query(result: GraphQuery, view: View) -> Shown:
    meta = result.meta
    more = " (truncated)" if meta.truncated else ""
    lines = [
        f"{meta.returnedNodes} node(s), {meta.returnedEdges} edge(s) from {result.root.uri}{more}"
    ]
    for item in result.nodes[1:]:
        lines.append(f"  depth {item.depth}: {_named(item.uri, item.title)}")
    lines += [f"  warning: {w}" for w in meta.warnings]
    return Shown("\n".join(lines))


def tags(result: TagsList, view: View) -> Shown:
    if not result.tags:
        return Shown("No tags.")
    lines = ["# Tags", ""] if view.fmt == "md" else []
    mark = "- " if view.fmt == "md" else ""
    lines += [f"{mark}{t.tag} ({t.count})" for t in result.tags]
    return Shown("\n".join(lines))


# ---------------------------------------------------------------- knowledge delta


def changes(result: Changes, view: View) -> Shown:
    page = result.page
    more = " (more available)" if page.truncated else ""
    lines = [f"{len(result.changes)} retained document change(s){more}"]
    for change in result.changes:
        side = change.current or change.previous
        where = side.uri if side else change.collection
        lines.append(f"  {change.observedAt} {_value(change, 'kind')} {where}")
    if page.nextCursor:
        lines.append(f"Next page: gno changes --since {page.nextCursor}")
    lines.append(f"Latest cursor: {page.latestCursor}")
    lines += [f"warning: {w}" for w in result.warnings]
    return Shown("\n".join(lines))


def _delta_lines(name: str, delta: Any) -> list[str]:
    added = [getattr(item, "root", item) for item in _value(delta, "added") or []]
    removed = [getattr(item, "root", item) for item in _value(delta, "removed") or []]
    return [f"  + {name}: {item}" for item in added] + [f"  - {name}: {item}" for item in removed]


def diff(result: DocumentDiff, view: View) -> Shown:
    doc = result.document
    lines = [
        f"Structural diff for {doc.uri}: {_value(result, 'status')}; "
        f"history {_value(result.history, 'status')}; source bodies not retained"
    ]
    if result.change is not None:
        change = result.change
        lines.append(f"Change {change.id}: {_value(change, 'kind')} at {change.observedAt}")
        delta = change.structureDelta
        for name in ("headings", "links", "typedEdges"):
            lines += _delta_lines(name, getattr(delta, name))
        dates = delta.dates
        lines += _delta_lines("dates", dates)
        changed = [getattr(item, "root", item) for item in _value(dates, "changed") or []]
        lines += [f"  ~ dates: {item}" for item in changed]
    return Shown("\n".join(lines))


def impact(result: Impact, view: View) -> Shown:
    meta = result.meta
    more = " (truncated)" if meta.truncated else ""
    lines = [f"{len(result.impacted)} document(s) depend on {result.root.uri}{more}"]
    for item in result.impacted:
        doc = item.document
        via = " <- ".join(_value(step, "edgeType") for step in item.evidencePath)
        lines.append(f"  depth {item.depth}: {_named(doc.uri, doc.title)} (via {via})")
    lines += [f"  warning: {w}" for w in meta.warnings]
    return Shown("\n".join(lines))
