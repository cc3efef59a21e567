"""``unusable_value``: lone surrogates and non-finite numbers anywhere in decoded JSON are
found and named by their place; everything else passes, at any depth, without recursion."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from gno.core.wire_values import reject_constant, unusable_value

clean_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
clean = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | clean_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(clean_text, inner, max_size=4),
    max_leaves=20,
)  # fmt: skip


@given(clean)
def test_clean_values_pass(value: Any) -> None:
    assert unusable_value(value) is None


@given(st.dictionaries(st.from_regex(r"[a-z]{1,8}", fullmatch=True), clean, min_size=1))
def test_a_lone_surrogate_is_named_by_its_place(value: dict[str, Any]) -> None:
    key = sorted(value)[0]
    value[key] = {"inner": ["ok", "bad \ud800 text"]}
    problem = unusable_value(value)
    assert problem is not None and problem.startswith(f"{key}.inner.1: ")
    assert "surrogate" in problem


def test_non_finite_numbers_and_surrogate_keys_are_found() -> None:
    assert unusable_value({"minScore": math.nan}) == "minScore: nan is not a JSON number"
    assert unusable_value([1, [math.inf]]).startswith("1.0: inf")
    assert "key" in (unusable_value({"a": {"\udc00": 1}}) or "")


def test_depth_costs_no_stack() -> None:
    deep: Any = "\udfff"
    for _ in range(100_000):
        deep = [deep]
    problem = unusable_value(deep)
    assert problem is not None and problem.endswith(
        "…: text holds a lone UTF-16 surrogate (not Unicode)"
    )


def test_json_constants_are_refused_by_the_parser_hook() -> None:
    for text in ('{"a": NaN}', "[Infinity]", "-Infinity"):
        try:
            json.loads(text, parse_constant=reject_constant)
        except ValueError as exc:
            assert "not a JSON number" in str(exc)
        else:
            raise AssertionError(f"{text} was accepted")
