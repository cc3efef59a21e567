"""``metadata-predicate@1.0`` (the typed metadata ``filter``) and gno's checker agree: every
predicate the schema accepts within gno's extra bounds is accepted by
``gno.core.metadata_filter.parse_filter`` and compiles to SQL that runs; everything the
schema refuses gno refuses with a ``VALIDATION`` naming the field path; and what only gno
refuses (bounds JSON Schema cannot say) is listed here."""

from __future__ import annotations

import json
from typing import Any

import apsw
import pytest
from contract_helpers import examples_of, validator
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.metadata_filter import filter_sql, parse_filter
from gno.errors import ValidationError

SCHEMA = "gno://schemas/metadata-predicate@1.0"

keys = st.sampled_from(["status", "reviewDate", "tags", "n", "ünï"])
scalars = st.one_of(
    st.text(max_size=20),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
)
dates = st.sampled_from(["2026-03-04", "2026-03-04T10:00:00Z", "today", "last week"])


def leaves() -> st.SearchStrategy[dict[str, Any]]:
    same_type_values = st.one_of(
        st.lists(st.text(max_size=10), min_size=1, max_size=5),
        st.lists(st.integers(0, 99), min_size=1, max_size=5),
        st.lists(st.booleans(), min_size=1, max_size=2),
    )
    return st.one_of(
        st.builds(lambda o, k, v: {"op": o, "key": k, "value": v},
                  st.sampled_from(["eq", "ne"]), keys, scalars),
        st.builds(lambda o, k, v: {"op": o, "key": k, "value": v},
                  st.sampled_from(["gt", "gte", "lt", "lte"]), keys,
                  st.one_of(st.integers(-99, 99), st.floats(-1e6, 1e6), dates)),
        st.builds(lambda o, k, v: {"op": o, "key": k, "values": v},
                  st.sampled_from(["in", "nin", "all"]), keys, same_type_values),
        st.builds(lambda k, v: {"op": "exists", "key": k, "value": v}, keys, st.booleans()),
    )  # fmt: skip


predicates = st.recursive(
    leaves(),
    lambda inner: st.one_of(
        st.builds(
            lambda o, p: {"op": o, "predicates": p},
            st.sampled_from(["and", "or"]),
            st.lists(inner, min_size=1, max_size=3),
        ),
        st.builds(lambda p: {"op": "not", "predicate": p}, inner),
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def db() -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE TABLE documents (metadata_json TEXT)")
    conn.execute(
        "INSERT INTO documents VALUES (?), (NULL)",
        (
            json.dumps(
                {"status": ["string", "x"], "tags": ["list", ["a", "b"]], "n": ["number", 3]}
            ),
        ),
    )
    return conn


def test_examples_validate_and_parse(db: apsw.Connection) -> None:
    examples = examples_of("metadata-predicate")
    assert len(examples) >= 2
    for path in examples:
        raw = json.loads(path.read_text())
        validator(SCHEMA).validate(raw)
        where, params = filter_sql(parse_filter(raw))
        db.execute(f"SELECT count(*) FROM documents WHERE {where}", params).fetchall()


@settings(max_examples=200, deadline=None)
@given(predicates)
def test_what_the_schema_accepts_gno_accepts(raw: dict[str, Any]) -> None:
    validator(SCHEMA).validate(raw)
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE TABLE documents (metadata_json TEXT)")
    conn.execute('INSERT INTO documents VALUES (\'{"tags":["list",["a"]]}\'), (NULL)')
    where, params = filter_sql(parse_filter(raw))
    (count,) = conn.execute(f"SELECT count(*) FROM documents WHERE {where}", params).fetchone()
    assert 0 <= count <= 2
    negated = filter_sql(parse_filter({"op": "not", "predicate": raw}))
    (other,) = conn.execute(
        f"SELECT count(*) FROM documents WHERE {negated[0]}", negated[1]
    ).fetchone()
    assert count + other == 2  # two-valued: every document matches exactly one of p, not(p)


REFUSED_BY_BOTH = [
    {"op": "like", "key": "a", "value": "x"},
    {"op": "eq", "key": "a"},
    {"op": "eq", "key": "a", "value": None},
    {"op": "eq", "key": "a", "value": {"nested": 1}},
    {"op": "eq", "key": "", "value": 1},
    {"op": "eq", "key": "a", "value": 1, "extra": True},
    {"op": "gt", "key": "a", "value": True},
    {"op": "in", "key": "a", "values": []},
    {"op": "in", "key": "a", "values": list(range(129))},
    {"op": "exists", "key": "a", "value": "yes"},
    {"op": "and", "predicates": []},
    {"op": "not", "predicate": {"op": "eq", "key": "a", "value": [1]}},
    {"op": "or", "predicates": [{"op": "nope"}]},
]
REFUSED_BY_GNO_ONLY = [
    {"op": "gt", "key": "a", "value": "soon"},  # a string bound must be a date
    {"op": "in", "key": "a", "values": ["x", 1]},  # one value type
    {"op": "eq", "key": "__proto__", "value": 1},
    {"op": "or", "predicates": [{"op": "exists", "key": "a", "value": True}] * 128},  # 129 nodes
    {"op": "not", "predicate": {"op": "not", "predicate": {"op": "not", "predicate": {
        "op": "not", "predicate": {"op": "not", "predicate": {"op": "not", "predicate": {
            "op": "not", "predicate": {"op": "not", "predicate": {
                "op": "exists", "key": "a", "value": True}}}}}}}}},  # depth 9
]  # fmt: skip


@pytest.mark.parametrize("raw", REFUSED_BY_BOTH)
def test_what_the_schema_refuses_gno_refuses(raw: dict[str, Any]) -> None:
    assert list(validator(SCHEMA).iter_errors(raw))
    with pytest.raises(ValidationError) as caught:
        parse_filter(raw)
    assert caught.value.message.startswith("filter")


@pytest.mark.parametrize("raw", REFUSED_BY_GNO_ONLY)
def test_gno_bounds_beyond_the_schema(raw: dict[str, Any]) -> None:
    assert not list(validator(SCHEMA).iter_errors(raw))
    with pytest.raises(ValidationError):
        parse_filter(raw)
