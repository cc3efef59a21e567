"""The rename/move refactor plan (``file-refactor-preview@1.0``), pure: no I/O.

Given the document being renamed or moved, its target path and the text of every
document whose links name it, the plan lists each reference examined, the
destination-only edits that keep it pointing at the document, and what blocks an
apply. References are re-parsed from the source files' text (``core/links``) and
resolved with GNO's rules (``core/link_resolver``) twice: against the index as it
is, to find the links that name the document, and against the index as it will
be, to check that each proposed destination names it alone.

Rewrites keep a link's form: a wiki link keeps its collection prefix, anchor,
alias and ``.md`` style and names the document by its new file stem when that is
unique in the collection, else by its path; a Markdown link keeps its anchor and
becomes the relative path from its own document (spaces and parentheses
percent-encoded, as the parser reads them). A wiki link that still names the
document after the change (by title) is ``unchanged``. The moved document's own
relative Markdown links are recalculated from its new folder.

Offsets inside a plan are UTF-16 code units (GNO's coordinate space); the edit
itself works on code points (:func:`apply_edits` converts).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gno.core.document import file_stem
from gno.core.frontmatter_span import file_frontmatter_end
from gno.core.identity import make_uri
from gno.core.link_resolver import Doc, Resolver
from gno.core.link_spans import (
    encode_markdown_path,
    line_offsets,
    markdown_target_span,
    utf16_offset,
    wiki_target_span,
)
from gno.core.links import Link, parse_links
from gno.core.plan_digest import plan_digest
from gno.core.regions import Regions

SCHEMA_VERSION = "1.0"
MUTATION_BOUNDARY = {
    "filesystemCommit": "atomic_all_or_rollback",
    "indexConvergence": "post_commit_separate",
    "syncFailureDoesNotRollbackFilesystem": True,
}
MAX_WARNINGS = 64
MAX_WARNING_CHARS = 512
BLOCKING = frozenset(
    {
        "ambiguous_resolution",
        "duplicate_basename_ambiguity",
        "read_only_document",
        "occupied_target",
        "unsafe_target",
        "cross_collection_unsupported",
        "malformed_syntax",
    }
)


@dataclass(frozen=True)
class SourceText:
    """One document's file as read for the plan."""

    doc: Doc
    text: str | None  # None: not UTF-8 Markdown gno can rewrite
    fingerprint: str  # SHA-256 of the file's bytes
    writable: bool


@dataclass
class Plan:
    payload: dict[str, Any]
    # document URI -> (start, end, replacement) in code points, for apply
    edits: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        return str(self.payload["planDigest"])

    @property
    def can_apply(self) -> bool:
        return bool(self.payload["canApply"])


def _relative(from_rel: str, to_rel: str) -> str:
    rel = posixpath.relpath(to_rel, posixpath.dirname(from_rel) or ".")
    return rel


class _After:
    """The resolver of the index as it will be: the document at its new path (and its new
    title when the old one was only its file stem)."""

    def __init__(self, before: Resolver, source: Doc, target_rel: str, target_uri: str) -> None:
        title = source.title
        if title is None or title == file_stem(source.rel_path):
            title = file_stem(target_rel)
        moved = Doc(source.id, source.collection, target_rel, source.docid, target_uri, title)
        self.resolver = Resolver(moved if d.id == source.id else d for d in before.docs.values())


def _resolve(resolver: Resolver, link: Link, collection: str) -> tuple[int, ...]:
    where = link.target_collection or collection
    if link.link_type == "markdown":
        return resolver.markdown(where, link.target_ref_norm).targets
    return resolver.wiki(where, link.target_ref_norm).targets


@dataclass
class _Ref:
    doc: SourceText
    link: Link
    kind: str
    classification: str
    reason: str | None = None
    original: str | None = None
    proposed: str | None = None
    span: tuple[int, int] | None = None  # code points

    def sort_key(self) -> tuple[str, str, int, int]:
        d = self.doc.doc
        return (d.rel_path, d.uri, self.link.start_line, self.link.start_col)


def _wiki_proposals(original: str, target_rel: str) -> list[str]:
    keep_md = original.lower().endswith(".md")
    stem_path = target_rel[:-3] if target_rel.lower().endswith(".md") else target_rel
    stem = file_stem(target_rel)
    by_path = target_rel if keep_md else stem_path
    by_name = (stem + target_rel[len(stem_path) :]) if keep_md else stem
    return [by_path] if "/" in original else [by_name, by_path]


def build_plan(
    *,
    operation: str,
    source: SourceText,
    target_rel: str,
    index: str | None,
    candidates: Sequence[SourceText],
    resolver: Resolver,
    target_fingerprint: str,
    blocking: Iterable[str] = (),
    warnings: Iterable[str] = (),
) -> Plan:
    """The preview plan: every reference to ``source`` in ``candidates`` (and the moved
    document's own relative Markdown links), classified, with the edits that keep them."""
    src = source.doc
    target_uri = make_uri(src.collection, target_rel, index)
    after = _After(resolver, src, target_rel, target_uri).resolver
    refs: list[_Ref] = []
    blocking_codes: list[str] = list(blocking)
    notes: list[str] = list(warnings)
    for cand in sorted(candidates, key=lambda c: c.doc.rel_path):
        if cand.text is None:
            refs.append(_Ref(cand, _NO_LINK, "opaque", "unsupported", "read_only_document"))
            notes.append(f"{cand.doc.uri}: links here but cannot be rewritten (not UTF-8 Markdown)")
            continue
        own = cand.doc.id == src.id
        new_home = target_rel if own else cand.doc.rel_path
        text = cand.text
        lines = line_offsets(text)
        # the frontmatter the index saw (after a BOM, with CRLF line ends too): never a link
        regions = Regions(text, file_frontmatter_end(text))
        for link in parse_links(text, cand.doc.rel_path, regions):
            start = lines[link.start_line - 1] + link.start_col - 1
            end = lines[link.end_line - 1] + link.end_col - 1
            targets = _resolve(resolver, link, cand.doc.collection)
            if src.id in targets:
                refs.append(_classify(cand, link, start, end, targets, src, target_rel, after))
            elif own and link.link_type == "markdown" and targets and src.rel_path != target_rel:
                refs.append(
                    _recalculate(cand, link, start, end, resolver.docs[targets[0]], new_home)
                )
    refs.sort(key=_Ref.sort_key)
    for ref in refs:
        if ref.reason in BLOCKING and ref.reason not in blocking_codes:
            blocking_codes.append(ref.reason)
        if ref.classification == "ambiguous":
            notes.append(
                f"{ref.doc.doc.uri}:{ref.link.start_line}: link {ref.original!r} is ambiguous"
            )
        elif ref.reason == "read_only_document" and ref.link is not _NO_LINK:
            notes.append(f"{ref.doc.doc.uri}:{ref.link.start_line}: read-only document")
    return _assemble(
        operation, source, target_rel, target_uri, refs, target_fingerprint, blocking_codes, notes
    )


_NO_LINK = Link("opaque", "", "", None, None, None, 1, 1, 1, 1)


def _classify(
    cand: SourceText,
    link: Link,
    start: int,
    end: int,
    targets: tuple[int, ...],
    src: Doc,
    target_rel: str,
    after: Resolver,
) -> _Ref:
    text = cand.text or ""
    kind = "wiki" if link.link_type == "wiki" else "markdown"
    span = (
        wiki_target_span(text, start, end)
        if kind == "wiki"
        else markdown_target_span(text, start, end)
    )
    if span is None:
        return _Ref(cand, link, kind, "malformed", "malformed_syntax")
    original = text[span[0] : span[1]]
    ref = _Ref(cand, link, kind, "rewriteable", original=original, span=span)
    if len(targets) > 1:
        ref.classification, ref.reason = "ambiguous", "ambiguous_resolution"
        return ref
    if not cand.writable:
        ref.classification, ref.reason = "unsupported", "read_only_document"
        return ref
    where = link.target_collection or cand.doc.collection
    home = target_rel if cand.doc.id == src.id else cand.doc.rel_path
    if kind == "wiki":
        if after.wiki(where, link.target_ref_norm).targets == (src.id,):
            ref.classification, ref.reason = "unchanged", "destination_unchanged"
            return ref
        for proposal in _wiki_proposals(original, target_rel):
            norm = proposal.lower().strip()
            if after.wiki(where, norm).targets == (src.id,):
                ref.proposed = proposal
                return ref
        ref.classification, ref.reason = "ambiguous", "duplicate_basename_ambiguity"
        return ref
    proposal = encode_markdown_path(_relative(home, target_rel))
    ref.proposed = proposal
    if proposal == original:
        ref.classification, ref.reason, ref.proposed = "unchanged", "destination_unchanged", None
    return ref


def _recalculate(
    cand: SourceText, link: Link, start: int, end: int, target: Doc, new_home: str
) -> _Ref:
    """A relative Markdown link of the moved document itself, seen from its new folder."""
    text = cand.text or ""
    span = markdown_target_span(text, start, end)
    if span is None:
        return _Ref(cand, link, "markdown", "malformed", "malformed_syntax")
    original = text[span[0] : span[1]]
    proposal = encode_markdown_path(_relative(new_home, target.rel_path))
    if proposal == original:
        return _Ref(cand, link, "markdown", "unchanged", "destination_unchanged", original)
    return _Ref(
        cand,
        link,
        "markdown",
        "rewriteable",
        "relative_path_recalculated",
        original,
        proposal,
        span,
    )


def _examined(ref: _Ref) -> dict[str, Any]:
    item: dict[str, Any] = {
        "documentUri": ref.doc.doc.uri,
        "documentRelPath": ref.doc.doc.rel_path,
        "kind": ref.kind,
        "classification": ref.classification,
    }
    if ref.reason:
        item["reasonCode"] = ref.reason
    if ref.original is not None:
        item["originalDestination"] = ref.original[:4096]
    if ref.proposed is not None:
        item["proposedDestination"] = ref.proposed[:4096]
    edit = _edit(ref)
    if edit is not None:
        item["edit"] = edit
    if ref.link is not _NO_LINK:
        item |= {
            "startLine": ref.link.start_line,
            "startCol": ref.link.start_col,
            "endLine": ref.link.end_line,
            "endCol": ref.link.end_col,
        }
    return item


def _edit(ref: _Ref) -> dict[str, Any] | None:
    if ref.classification != "rewriteable" or ref.span is None or ref.proposed is None:
        return None
    text = ref.doc.text or ""
    return {
        "coordinateSpace": "utf16_code_units",
        "startOffset": utf16_offset(text, ref.span[0]),
        "endOffset": utf16_offset(text, ref.span[1]),
        "originalDestination": (ref.original or "")[:4096],
        "replacementDestination": ref.proposed[:4096],
    }


def _assemble(
    operation: str,
    source: SourceText,
    target_rel: str,
    target_uri: str,
    refs: list[_Ref],
    target_fingerprint: str,
    blocking: list[str],
    notes: list[str],
) -> Plan:
    src = source.doc
    by_doc: dict[tuple[str, str], tuple[SourceText, list[_Ref]]] = {}
    for ref in refs:
        by_doc.setdefault((ref.doc.doc.rel_path, ref.doc.doc.uri), (ref.doc, []))[1].append(ref)
    affected: list[dict[str, Any]] = []
    edits: dict[str, list[tuple[int, int, str]]] = {}
    for (rel, uri), (doc, doc_refs) in sorted(by_doc.items()):
        spans = [_edit(r) for r in doc_refs]
        affected.append(
            {
                "uri": doc.doc.uri,
                "relPath": rel,
                "contentFingerprint": doc.fingerprint,
                "edits": [s for s in spans if s is not None],
                "examined": [_examined(r) for r in doc_refs],
            }
        )
        todo = [
            (r.span[0], r.span[1], r.proposed)
            for r in doc_refs
            if r.classification == "rewriteable" and r.span is not None and r.proposed is not None
        ]
        if todo:
            edits[uri] = todo
    counts = {
        c: 0
        for c in ("rewriteable", "unchanged", "ambiguous", "unsupported", "malformed", "invalid")
    }
    for ref in refs:
        counts[ref.classification] += 1
    linking = [
        r for r in refs if r.link is not _NO_LINK and r.reason != "relative_path_recalculated"
    ]
    safety = {
        "rewriteableCount": counts["rewriteable"],
        "unchangedCount": counts["unchanged"],
        "ambiguousCount": counts["ambiguous"],
        "unsupportedCount": counts["unsupported"],
        "malformedCount": counts["malformed"],
        "invalidCount": counts["invalid"],
        "blockingReasonCodes": list(dict.fromkeys(blocking))[:64],
        "warnings": [w[:MAX_WARNING_CHARS] for w in dict.fromkeys(notes)][:MAX_WARNINGS],
        "backlinkCount": len({r.doc.doc.id for r in linking}),
        "wikiLinkCount": sum(1 for r in linking if r.kind == "wiki"),
        "markdownLinkCount": sum(1 for r in linking if r.kind == "markdown"),
    }
    payload: dict[str, Any] = {
        "schemaVersion": SCHEMA_VERSION,
        "operation": operation,
        "conflictPolicy": "fail",
        "source": {"uri": src.uri, "relPath": src.rel_path, "collection": src.collection},
        "target": {"uri": target_uri, "relPath": target_rel, "collection": src.collection},
        "affectedDocuments": affected,
        "examinedReferences": [_examined(r) for r in refs],
        "preconditions": {
            "sourceContentFingerprint": source.fingerprint,
            "affectedContentFingerprints": [
                {"uri": a["uri"], "fingerprint": a["contentFingerprint"]} for a in affected
            ],
            "targetPathFingerprint": target_fingerprint,
        },
        "safety": safety,
        "canApply": not safety["blockingReasonCodes"],
        "mutationBoundary": dict(MUTATION_BOUNDARY),
    }
    payload["planDigest"] = plan_digest(payload)
    return Plan(payload, edits)
