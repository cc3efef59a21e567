"""Pure parts of the refactor plan: the canonical JSON behind planDigest, UTF-16 offsets,
destination spans and edits (hypothesis where a rule must hold for every input)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.link_spans import (
    apply_edits,
    markdown_target_span,
    utf16_offset,
    wiki_target_span,
)
from gno.core.plan_digest import canonical_json

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _exact(value: Any) -> str:
    """The rule written out: keys by UTF-16 code units, no whitespace, non-ASCII kept."""
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: kv[0].encode("utf-16-be"))
        return (
            "{"
            + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{_exact(v)}" for k, v in items)
            + "}"
        )
    if isinstance(value, list):
        return "[" + ",".join(_exact(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_canonical_json_follows_the_utf16_key_order_rule(value: Any) -> None:
    assert canonical_json(value) == _exact(value)


def test_keys_beyond_the_bmp_sort_by_utf16_units_not_code_points() -> None:
    # U+FF5E (one unit 0xFF5E) sorts after U+1F600 (surrogates 0xD83D…) in UTF-16.
    assert canonical_json({"\uff5e": 1, "\U0001f600": 2}) == '{"\U0001f600":2,"\uff5e":1}'


@given(st.text(), st.data())
def test_utf16_offset_counts_code_units(text: str, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(text)))
    assert utf16_offset(text, i) == len(text[:i].encode("utf-16-le")) // 2


def test_spans_name_only_the_destination() -> None:
    text = 'x [[ notes:Old Note#Part|alias ]] y [t](../a%20b.md#h "T")'
    w = wiki_target_span(text, 2, 33)
    assert w is not None and text[w[0] : w[1]] == "Old Note"
    m = markdown_target_span(text, 36, len(text))
    assert m is not None and text[m[0] : m[1]] == "../a%20b.md"


@given(
    st.text(max_size=40), st.lists(st.tuples(st.integers(0, 40), st.text(max_size=5)), max_size=4)
)
def test_apply_edits_replaces_disjoint_spans(text: str, raw: list[tuple[int, str]]) -> None:
    edits, last = [], 0
    for start, new in sorted(raw):
        start = max(start, last)
        if start >= len(text):
            break
        edits.append((start, start + 1, new))
        last = start + 1
    out = apply_edits(text, edits)
    expected = list(text)
    for start, _, new in reversed(edits):
        expected[start : start + 1] = [new]
    assert out == "".join(expected)
