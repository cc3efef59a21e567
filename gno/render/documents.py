"""get, multi-get and ls results as terminal text, files lines or Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.render import Shown, View

if TYPE_CHECKING:  # renderers read attributes: no model module loads for them
    from gno_contracts.models.get import GetResult
    from gno_contracts.models.ls import DocumentList
    from gno_contracts.models.multi_get import MultiGetResult


def document(result: GetResult, view: View) -> Shown:
    record = result.record
    where = f"{result.source.relPath} @ {record.sourceLocator}" if record else ""
    if view.fmt == "md":
        located = f"- **Record:** {where}\n" if record else ""
        return Shown(
            f"# {result.title or result.uri}\n\n- **URI:** {result.uri}\n"
            f"- **DocID:** {result.docid}\n{located}- **Lines:** {result.totalLines}\n\n"
            f"{result.content}"
        )
    if record:  # a record names its container and where in it, then its text
        return Shown(f"Record: {where}\n\n{result.content}")
    return Shown(result.content)


def documents(result: MultiGetResult, view: View) -> Shown:
    docs, skipped = result.documents, result.skipped or []
    if view.fmt == "files":
        return Shown("\n".join(f"{d.docid},{d.uri}" for d in docs))
    out = []
    for d in docs:
        if view.fmt == "md":
            out += [f"## {d.title or d.uri}", "", f"- **URI:** {d.uri}", "", d.content, ""]
        else:
            trunc = " (truncated)" if d.truncated else ""
            out += [f"=== {d.uri} ===", f"Lines: {d.totalLines or 0}{trunc}", d.content, ""]
    if skipped:
        out += ["--- Skipped ---"] + [f"{s.ref}: {s.reason}" for s in skipped]
    return Shown("\n".join(out))


def listing(result: DocumentList, view: View) -> Shown:
    docs = result.documents
    if view.fmt == "files":
        return Shown("\n".join(f"{d.docid},{d.uri}" for d in docs))
    if view.fmt == "md":
        lines = ["# Documents", ""] + [f"- [{d.title or d.uri}]({d.uri}) `{d.docid}`" for d in docs]
        return Shown("\n".join(lines))
    lines = [f"{d.docid}  {d.uri}" + (f"  {d.title}" if d.title else "") for d in docs]
    if not view.quiet:  # -q: the documents only
        lines.append(f"{result.meta.returned} of {result.meta.total} document(s)")
    return Shown("\n".join(lines))
