"""Record Markdown is inert (spec/records.md): whatever a mail or chat line holds, the
virtual document has no links, no frontmatter and no heading but its title."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.document import analyze
from gno.core.records import (
    Record,
    escape_block,
    fitted_markdown,
    markdown,
    record_key,
    virtual_path,
)

PIECES = [*"ab #[]()<>!-+=*_`~|\\:/.1\n ", "---", "[[x]]", "](y)", "<b>", "http://z"]
HOSTILE = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)


@settings(max_examples=200, deadline=None)
@given(title=HOSTILE, body=HOSTILE)
def test_record_markdown_is_inert(title: str, body: str) -> None:
    record = Record("id", title, (("From", body[:40]),), body, "lines:1-1", ())
    text = markdown(record)
    analysis = analyze(text, "r.md", ".md", markdown_syntax=True, converter_title="T")
    assert analysis.links == []
    assert analysis.body_start_line == 1  # no frontmatter was opened
    headings = [line for line in analysis.mirror.split("\n") if line.startswith("#")]
    assert len(headings) == 1  # the title line only


@settings(max_examples=200, deadline=None)
@given(body=HOSTILE, limit=st.integers(min_value=40, max_value=200))
def test_a_fitted_record_keeps_to_the_limit_and_stays_inert(body: str, limit: int) -> None:
    record = Record("id", "Title", (("From", "cy"),), body, "lines:1-1", ())
    text, cut = fitted_markdown(record, limit)
    assert cut == (len(markdown(record)) > limit)
    assert text == markdown(record) if not cut else len(text) <= limit
    analysis = analyze(text, "r.md", ".md", markdown_syntax=True, converter_title="T")
    assert analysis.links == [] and analysis.body_start_line == 1
    assert [line for line in analysis.mirror.split("\n") if line.startswith("#")] == ["# Title"]


def test_escapes_and_keys() -> None:
    assert escape_block("# h\n---\n12. x\n  - y\nplain 2026") == (
        "\\# h\n\\---\n12\\. x\n  \\- y\nplain 2026"
    )
    key = record_key("record/email", "m1@example.org")
    assert len(key) == 64 and key != record_key("record/chat", "m1@example.org")
    assert virtual_path("mail/a.mbox", key).startswith(".gno/records/")
    assert virtual_path("mail/a.mbox", key) != virtual_path("mail/b.mbox", key)
