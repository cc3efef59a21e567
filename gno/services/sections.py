"""Sections of a document and durable section targets (REST section routes, MCP gno_section).

Read-only: a target is handed to the caller to keep, never stored here. The rules for
finding a section again live in ``gno.core.sections``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from gno_contracts.models.doc_sections import DocSections
from gno_contracts.models.doc_sections_input import DocSectionsInput
from gno_contracts.models.section import SectionResult
from gno_contracts.models.section_input import SectionInput
from gno_contracts.models.section_target_create_input import SectionTargetCreateInput
from gno_contracts.models.section_target_create_result import SectionTargetCreateResult
from gno_contracts.models.section_target_resolve_input import SectionTargetResolveInput
from gno_contracts.models.section_target_resolve_result import SectionTargetResolveResult

from gno.app import App
from gno.core import sections as core
from gno.core.frontmatter_span import frontmatter_span
from gno.core.identity import parse_ref
from gno.errors import DocumentNotFoundError, SectionUnresolvableError, ValidationError
from gno.rows import DocRow
from gno.services.documents import resolve

_BARE_DOCID = re.compile(r"[0-9a-f]{6,8}")  # parse_ref's docid, # left out


def _ref(text: str) -> str:
    """A REST ``:id`` may be a docid without its ``#`` (a ``#`` cannot sit in a URL path)."""
    return f"#{text}" if _BARE_DOCID.fullmatch(text) else text


def _path_id(text: str) -> str:
    """A REST ``:id`` that is no reference names no document: GNO answers 404 for it on
    the sections and section-targets routes (surfaces.md §4.2), not 400."""
    try:
        parse_ref(_ref(text))
    except ValidationError:
        raise DocumentNotFoundError(f"Document not found: {text}") from None
    return text


def _document(app: App, ref_text: str) -> tuple[DocRow, list[core.Section]] | None:
    store = app.store()
    doc = resolve(app, store, parse_ref(_ref(ref_text)))
    if doc is None:
        return None
    mirror = store.content(doc.mirror_hash) if doc.mirror_hash else None
    if mirror is None:
        raise DocumentNotFoundError(f"Document has no indexed content: {ref_text}")
    first, _ = frontmatter_span(mirror)
    return doc, core.outline(mirror, first)


def _found(app: App, ref_text: str) -> tuple[DocRow, list[core.Section]]:
    found = _document(app, ref_text)
    if found is None:
        raise DocumentNotFoundError(f"Document not found: {ref_text}")
    return found


def _heading(section: core.Section) -> dict[str, Any]:
    return {
        "anchor": section.anchor,
        "level": section.level,
        "line": section.line,
        "title": section.title,
    }


def _citation(doc: DocRow, section: core.Section) -> dict[str, Any]:
    return {
        "uri": doc.uri,
        "anchor": section.anchor,
        "title": section.title,
        "level": section.level,
        "startLine": section.line,
        "endLine": section.end_line,
        "bodyHash": section.body_hash,
    }


def doc_sections(app: App, inp: DocSectionsInput) -> DocSections:
    _, sections = _found(app, _path_id(inp.id))
    return DocSections.model_validate({"sections": [_heading(s) for s in sections]})


def _create(
    app: App, ref_text: str, anchor: str | None, line: int | None, path_id: bool = False
) -> dict[str, Any]:
    if (anchor is None) == (line is None):
        raise ValidationError("Give exactly one of anchor or line")
    doc, sections = _found(app, _path_id(ref_text) if path_id else ref_text)
    if anchor is not None:
        wanted = anchor.removeprefix("#")
        section = next((s for s in sections if s.anchor == wanted), None)
        where = f"anchor {anchor!r}"
    else:
        assert line is not None
        section = core.section_at_line(sections, line)
        where = f"line {line}"
    if section is None:
        raise SectionUnresolvableError(f"No section at {where} in {doc.uri}")
    target = {
        "schemaVersion": "1",
        "uri": doc.uri,
        "docid": doc.docid,
        "anchor": section.anchor,
        "title": section.title,
        "level": section.level,
        "headingPath": list(section.path),
        "occurrence": section.occurrence,
        "bodyHash": section.body_hash,
        "sourceHash": doc.source_hash or "0" * 64,
        "startLine": section.line,
        "endLine": section.end_line,
        "createdAt": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    return {
        "schemaVersion": "1",
        "status": "created",
        "target": target,
        "citation": _citation(doc, section),
    }


def _resolve(app: App, ref_text: str, target: dict[str, Any]) -> dict[str, Any]:
    found = _document(app, ref_text)
    answer: dict[str, Any] = {"schemaVersion": "1", "target": target}
    if found is None:
        return {**answer, "status": "missing", "reason": "document_missing"}
    doc, sections = found
    if target["uri"] != doc.uri:
        raise SectionUnresolvableError(
            f"The target belongs to {target['uri']}, not to {doc.uri}; resolve it there"
        )
    got = core.resolve(
        sections, tuple(target["headingPath"]), target["occurrence"], target["bodyHash"]
    )
    answer.update(status=got.status, reason=got.reason)
    if got.section is not None:
        answer["citation"] = _citation(doc, got.section)
    if got.candidates:
        answer["candidates"] = [_heading(s) for s in got.candidates[:64]]
    return answer


def section_target_create(app: App, inp: SectionTargetCreateInput) -> SectionTargetCreateResult:
    answer = _create(app, inp.id, inp.anchor, inp.line, path_id=True)
    return SectionTargetCreateResult.model_validate(answer)


def section_target_resolve(app: App, inp: SectionTargetResolveInput) -> SectionTargetResolveResult:
    target = inp.target.model_dump(mode="json")
    return SectionTargetResolveResult.model_validate(_resolve(app, inp.id, target))


def section(app: App, inp: SectionInput) -> SectionResult:
    """gno_section: create (one of anchor or line, no target) or resolve (target only)."""
    action = inp.action.value
    if action == "create":
        if inp.target is not None:
            raise ValidationError("create takes anchor or line, not target")
        answer = _create(app, inp.ref, inp.anchor, inp.line)
    else:
        if inp.target is None or inp.anchor is not None or inp.line is not None:
            raise ValidationError("resolve takes target, and neither anchor nor line")
        answer = _resolve(app, inp.ref, inp.target.model_dump(mode="json"))
    return SectionResult.model_validate({**answer, "action": action})
