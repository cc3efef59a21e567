"""Sections and durable section targets on a real index: made, then found again after
edits above, inside and around the section."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gno_contracts.models.doc_sections_input import DocSectionsInput
from gno_contracts.models.section_input import SectionInput
from gno_contracts.models.section_target_create_input import SectionTargetCreateInput
from gno_contracts.models.section_target_resolve_input import SectionTargetResolveInput

from gno.errors import DocumentNotFoundError, SectionUnresolvableError, ValidationError
from gno.services.sections import (
    doc_sections,
    section,
    section_target_create,
    section_target_resolve,
)
from tests.conftest import sync

PLAN = (
    "---\ntitle: Plan\n---\n"
    "# Plan\n\nIntro.\n\n"
    "## Setup\n\nInstall the lamp.\nTrim the wick.\n\n"
    "## Risks\n\nOil runs out.\n"
)


@pytest.fixture
def notes(make_app: Any) -> tuple[Any, Path]:
    app, root = make_app({"plan.md": PLAN, "other.md": "# Other\n\nNothing.\n"})
    sync(app)
    return app, root


def _edit(app: Any, root: Path, text: str) -> None:
    (root / "plan.md").write_text(text, encoding="utf-8")
    sync(app)


def _target(app: Any, anchor: str) -> Any:
    return section_target_create(app, SectionTargetCreateInput(id="notes/plan.md", anchor=anchor))


def _resolve(app: Any, target: Any, ref: str = "gno://notes/plan.md") -> Any:
    # A caller keeps the target as JSON and hands it back later.
    kept = target.model_dump(mode="json")
    return section_target_resolve(app, SectionTargetResolveInput(id=ref, target=kept))


def test_outline_lists_headings_with_web_anchors_after_the_frontmatter(notes: Any) -> None:
    app, _ = notes
    outline = doc_sections(app, DocSectionsInput(id="gno://notes/plan.md")).sections
    assert [(s.anchor, s.level, s.line, s.title) for s in outline] == [
        ("plan", 1, 4, "Plan"),
        ("setup", 2, 8, "Setup"),
        ("risks", 2, 13, "Risks"),
    ]


def test_a_bare_docid_names_the_document(notes: Any) -> None:
    app, _ = notes
    made = _target(app, "setup")
    bare = made.target.docid.removeprefix("#")
    assert [s.anchor for s in doc_sections(app, DocSectionsInput(id=bare)).sections][:1] == ["plan"]


def test_create_by_anchor_or_line_cites_the_whole_section(notes: Any) -> None:
    app, _ = notes
    by_anchor = _target(app, "#setup")
    by_line = section_target_create(app, SectionTargetCreateInput(id="notes/plan.md", line=10))
    assert by_anchor.citation.model_dump() == by_line.citation.model_dump()
    assert (by_anchor.citation.startLine, by_anchor.citation.endLine) == (8, 12)
    assert by_anchor.target.headingPath == ["Plan", "Setup"]
    assert by_anchor.target.schemaVersion == "1"


def test_unknown_anchors_lines_before_any_heading_and_bad_selectors_are_refused(
    notes: Any,
) -> None:
    app, _ = notes
    with pytest.raises(SectionUnresolvableError):
        _target(app, "nowhere")
    with pytest.raises(SectionUnresolvableError):
        section_target_create(app, SectionTargetCreateInput(id="notes/plan.md", line=2))
    with pytest.raises(ValidationError):
        section_target_create(app, SectionTargetCreateInput(id="notes/plan.md"))
    with pytest.raises(ValidationError):
        section_target_create(
            app, SectionTargetCreateInput(id="notes/plan.md", anchor="setup", line=8)
        )
    with pytest.raises(DocumentNotFoundError):
        section_target_create(app, SectionTargetCreateInput(id="notes/none.md", anchor="x"))


def test_edits_above_the_section_keep_it_exact_at_its_new_lines(notes: Any) -> None:
    app, root = notes
    target = _target(app, "setup").target
    _edit(app, root, PLAN.replace("Intro.\n", "Intro.\n\nMore intro.\nAnd more.\n"))
    got = _resolve(app, target)
    assert (got.status.value, got.reason.value) == ("exact", "unchanged")
    assert (got.citation.startLine, got.citation.endLine) == (11, 15)


def test_a_renamed_heading_with_the_same_body_is_recovered(notes: Any) -> None:
    app, root = notes
    target = _target(app, "setup").target
    _edit(app, root, PLAN.replace("## Setup", "## Installation"))
    got = _resolve(app, target)
    assert (got.status.value, got.citation.anchor) == ("recovered", "installation")


def test_a_changed_body_is_stale_and_never_cited(notes: Any) -> None:
    app, root = notes
    target = _target(app, "setup").target
    _edit(app, root, PLAN.replace("Trim the wick.", "Light it."))
    got = _resolve(app, target)
    assert (got.status.value, got.reason.value, got.citation) == ("stale", "content_changed", None)
    assert [c.anchor for c in got.candidates] == ["setup"]


def test_duplicated_bodies_are_ambiguous_and_removed_sections_missing(notes: Any) -> None:
    app, root = notes
    target = _target(app, "setup").target
    body = "\n\nInstall the lamp.\nTrim the wick.\n\n"
    _edit(
        app,
        root,
        PLAN.replace("## Setup", "## First").replace("## Risks", "## Second" + body + "## Risks"),
    )
    got = _resolve(app, target)
    assert (got.status.value, got.citation) == ("ambiguous", None)
    assert {c.anchor for c in got.candidates} == {"first", "second"}
    _edit(app, root, "# Plan\n\nOnly this.\n")
    assert _resolve(app, target).status.value == "missing"
    (root / "plan.md").unlink()
    sync(app)
    gone = _resolve(app, target)
    assert (gone.status.value, gone.reason.value) == ("missing", "document_missing")


def test_a_target_of_another_document_is_refused(notes: Any) -> None:
    app, _ = notes
    target = _target(app, "setup").target
    with pytest.raises(SectionUnresolvableError):
        _resolve(app, target, ref="gno://notes/other.md")


def test_the_mcp_tool_checks_its_action_shapes(notes: Any) -> None:
    app, _ = notes
    made = section(app, SectionInput(action="create", ref="gno://notes/plan.md", anchor="risks"))
    assert (made.action.value, made.status.value) == ("create", "created")
    kept = made.target.model_dump(mode="json")
    again = section(app, SectionInput(action="resolve", ref="gno://notes/plan.md", target=kept))
    assert (again.action.value, again.status.value) == ("resolve", "exact")
    with pytest.raises(ValidationError):
        section(app, SectionInput(action="resolve", ref="gno://notes/plan.md", anchor="risks"))
    with pytest.raises(ValidationError):
        section(
            app,
            SectionInput(action="create", ref="gno://notes/plan.md", anchor="risks", target=kept),
        )
