"""Properties of the outline and of finding a section target again (gno/core/sections.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gno.core.sections import Section, outline, resolve, section_at_line, slug

DOC = "# Plan\n\nIntro.\n\n## Setup\n\nInstall the lamp.\nTrim the wick.\n\n## Risks\n\nOil.\n"
plain_line = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="#`~=-"),
    max_size=30,
)


def _setup(text: str) -> Section:
    return next(s for s in outline(text) if s.title == "Setup")


@given(st.lists(plain_line, max_size=8))
def test_lines_added_above_keep_a_section_exact(added: list[str]) -> None:
    before = _setup(DOC)
    edited = DOC.replace("Intro.\n", "Intro.\n" + "".join(f"{x}\n" for x in added))
    got = resolve(outline(edited), before.path, before.occurrence, before.body_hash)
    assert got.status == "exact"
    assert got.section is not None and got.section.end_line - got.section.line == (
        before.end_line - before.line
    )


@given(plain_line.filter(lambda x: x.strip() != "" and x.strip() != "Trim the wick."))
def test_any_change_inside_the_body_is_never_cited(line: str) -> None:
    before = _setup(DOC)
    edited = DOC.replace("Trim the wick.", line.strip())
    got = resolve(outline(edited), before.path, before.occurrence, before.body_hash)
    assert got.section is None and got.status in ("stale", "ambiguous", "missing")


@given(st.text(max_size=200))
def test_outline_is_total_and_sections_nest(text: str) -> None:
    sections = outline(text)
    total = max(1, len(text.split("\n")) - (1 if text.endswith("\n") else 0))
    anchors = [s.anchor for s in sections]
    assert len(anchors) == len(set(anchors))
    for s in sections:
        assert 1 <= s.line <= s.end_line <= total
        assert section_at_line(sections, s.line) is not None


def test_fenced_code_and_frontmatter_hold_no_headings() -> None:
    text = "---\ntitle: x\n---\n```\n# not\n```\n~~~~\n## nor\n~~~~\n# Yes\n"
    assert [s.title for s in outline(text, 3)] == ["Yes"]
    # a shorter fence does not close a longer one: the rest is code
    assert outline("~~~~\n## nor\n~~~\n# Still code\n") == []


def test_slugs_match_the_web_ui() -> None:
    assert slug("Hello, *World*: `x` [y]") == "hello-world-x-y"
    assert slug("Ünïcode Títle! 2") == "ünïcode-títle-2"
    assert slug("!!!") == "section"
    assert [s.anchor for s in outline("# A\n# A\n# A\n")] == ["a", "a-1", "a-2"]
