"""Typed metadata filters (issue 17 item 3, gno/core/metadata_filter.py): the grammar and
its bounds, and the compiled SQL run on a real SQLite table of ``metadata_json`` values
made by ``core/typed_metadata`` — string, number, date and list comparisons, missing keys,
``not`` over missing keys, and hostile filters refused with a field path."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import apsw
import pytest

from gno.core.metadata_filter import (
    MAX_DEPTH,
    MAX_NODES,
    cli_filter,
    filter_sql,
    parse_filter,
    parse_filter_text,
)
from gno.core.typed_metadata import dumps, typed_metadata
from gno.errors import ValidationError

DOCS: dict[str, dict[str, Any]] = {
    "approved": {"status": "approved", "confidence": 0.9, "reviewers": ["ana", "sam"],
                 "due": dt.date(2026, 3, 4), "archived": False, "project": "atlas"},
    "draft": {"status": "draft", "confidence": "0.4", "reviewers": ["ana"],
              "due": "2026-05-01T10:00:00Z", "project": "Atlas"},
    "bare": {},
    "numeric_status": {"status": 3, "reviewers": ["3", "bob"]},
}  # fmt: skip


@pytest.fixture(scope="module")
def conn() -> apsw.Connection:
    db = apsw.Connection(":memory:")
    db.execute("CREATE TABLE documents (name TEXT, metadata_json TEXT)")
    for name, data in DOCS.items():
        db.execute("INSERT INTO documents VALUES (?, ?)", (name, dumps(typed_metadata(data))))
    return db


def matching(conn: apsw.Connection, raw: dict[str, Any]) -> set[str]:
    where, params = filter_sql(parse_filter(raw))
    rows = conn.execute(f"SELECT name FROM documents WHERE {where}", params)
    return {str(name) for (name,) in rows}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"op": "eq", "key": "status", "value": "approved"}, {"approved"}),
        ({"op": "eq", "key": "project", "value": "atlas"}, {"approved"}),  # case counts
        ({"op": "ne", "key": "status", "value": "approved"}, {"draft"}),  # not missing, not 3
        ({"op": "not", "predicate": {"op": "eq", "key": "status", "value": "approved"}},
         {"draft", "bare", "numeric_status"}),
        ({"op": "eq", "key": "status", "value": 3}, {"numeric_status"}),  # typed: 3 ≠ "3"
        ({"op": "gte", "key": "confidence", "value": 0.8}, {"approved"}),
        ({"op": "lt", "key": "confidence", "value": 0.8}, {"draft"}),  # "0.4" typed as number
        ({"op": "gt", "key": "due", "value": "2026-03-04"}, {"draft"}),  # after the whole day
        ({"op": "gte", "key": "due", "value": "2026-03-04"}, {"approved", "draft"}),
        ({"op": "lte", "key": "due", "value": "2026-03-04"}, {"approved"}),
        ({"op": "lt", "key": "due", "value": "2026-03-04"}, set()),
        ({"op": "eq", "key": "due", "value": "2026-05-01"}, {"draft"}),  # a date-only value is its day
        ({"op": "eq", "key": "archived", "value": False}, {"approved"}),
        ({"op": "in", "key": "reviewers", "values": ["sam", "zoe"]}, {"approved"}),
        ({"op": "in", "key": "status", "values": ["draft", "approved"]}, {"approved", "draft"}),
        ({"op": "in", "key": "reviewers", "values": [3]}, {"numeric_status"}),  # members are text
        ({"op": "nin", "key": "reviewers", "values": ["sam"]}, {"draft", "numeric_status"}),
        ({"op": "all", "key": "reviewers", "values": ["ana", "sam"]}, {"approved"}),
        ({"op": "all", "key": "status", "values": ["approved"]}, set()),  # only lists
        ({"op": "eq", "key": "reviewers", "value": "ana"}, set()),  # no array equality
        ({"op": "exists", "key": "reviewers", "value": True},
         {"approved", "draft", "numeric_status"}),
        ({"op": "exists", "key": "reviewers", "value": False}, {"bare"}),
        ({"op": "and", "predicates": [
            {"op": "eq", "key": "project", "value": "atlas"},
            {"op": "gte", "key": "confidence", "value": 0.8}]}, {"approved"}),
        ({"op": "or", "predicates": [
            {"op": "eq", "key": "status", "value": "draft"},
            {"op": "exists", "key": "status", "value": False}]}, {"draft", "bare"}),
        ({"op": "eq", "key": "dueDate", "value": "x"}, set()),  # keys normalized, missing
    ],
)  # fmt: skip
def test_typed_comparisons(conn: apsw.Connection, raw: dict[str, Any], expected: set[str]) -> None:
    assert matching(conn, raw) == expected


def test_relative_dates_and_keys_normalized_like_frontmatter(conn: apsw.Connection) -> None:
    before = matching(conn, {"op": "lt", "key": "due", "value": "today"})
    since = matching(conn, {"op": "gte", "key": "due", "value": "today"})
    assert before | since == {"approved", "draft"} and not before & since  # whatever today is
    node = parse_filter({"op": "eq", "key": "reviewDate", "value": 1})
    assert getattr(node, "key", None) == "review_date"


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        ({"op": "like", "key": "a", "value": 1}, "filter.op"),
        ({"op": "eq", "key": "a"}, "filter.value"),
        ({"op": "eq", "key": "a", "value": None}, "filter.value"),
        ({"op": "eq", "key": "a", "value": [1]}, "filter.value"),
        ({"op": "eq", "key": "a", "value": 1, "extra": 2}, "filter.extra"),
        ({"op": "gt", "key": "a", "value": "soon"}, "filter.value"),
        ({"op": "gt", "key": "a", "value": True}, "filter.value"),
        ({"op": "in", "key": "a", "values": []}, "filter.values"),
        ({"op": "in", "key": "a", "values": ["x", 1]}, "filter.values"),
        ({"op": "and", "predicates": []}, "filter.predicates"),
        (
            {"op": "or", "predicates": [{"op": "eq", "key": "", "value": 1}]},
            "filter.predicates[0].key",
        ),
        (
            {"op": "not", "predicate": {"op": "eq", "key": "__proto__", "value": 1}},
            "filter.predicate.key",
        ),
        ({"op": "eq", "key": "constructor", "value": 1}, "filter.key"),
        ({"op": "eq", "key": "k" * 129, "value": 1}, "filter.key"),
        ({"op": "eq", "key": "a", "value": "x" * 4097}, "filter.value"),
        ({"op": "exists", "key": "a", "value": "yes"}, "filter.value"),
        ({"op": "in", "key": "a", "values": list(range(129))}, "filter.values"),
        ("eq", "filter"),
    ],
)
def test_invalid_predicates_name_their_field(raw: Any, path: str) -> None:
    with pytest.raises(ValidationError) as caught:
        parse_filter(raw)
    assert caught.value.message.startswith(path + ":"), caught.value.message


def test_depth_nodes_and_size_are_bounded() -> None:
    deep: dict[str, Any] = {"op": "exists", "key": "a", "value": True}
    for _ in range(MAX_DEPTH):
        deep = {"op": "not", "predicate": deep}
    with pytest.raises(ValidationError, match="nest at most"):
        parse_filter(deep)
    wide = {"op": "or", "predicates": [{"op": "exists", "key": "a", "value": True}] * MAX_NODES}
    with pytest.raises(ValidationError, match="at most 128 predicates"):
        parse_filter(wide)
    huge = {"op": "in", "key": "a", "values": ["x" * 4000] * 20}
    with pytest.raises(ValidationError, match="65,536 bytes"):
        parse_filter(huge)
    # JSON nested far beyond the depth cap is refused without a RecursionError
    with pytest.raises(ValidationError):
        parse_filter_text('{"op":"not","predicate":' * 5000 + "1" + "}" * 5000)
    with pytest.raises(ValidationError, match="not valid JSON"):
        parse_filter_text('{"op":"gt","key":"a","value":NaN}')


def test_a_hundred_and_twenty_seven_predicates_compile_and_run(conn: apsw.Connection) -> None:
    wide = {
        "op": "or",
        "predicates": [{"op": "eq", "key": "status", "value": f"s{i}"} for i in range(127)],
    }
    assert matching(conn, wide) == set()


def test_cli_filter_returns_the_normalized_object() -> None:
    text = json.dumps({"op": "in", "key": "Reviewers", "values": ["ana"]})
    assert cli_filter(text) == {"op": "in", "key": "reviewers", "values": ["ana"]}
    with pytest.raises(ValidationError, match=r"^--filter"):
        cli_filter("{not json")


def test_the_largest_filters_allowed_run_within_sqlite_limits(conn: apsw.Connection) -> None:
    # 127 memberships of 128 values each would be 16,256 values: refused before SQL
    # (they once compiled to 81,661 parameters: SQLite's "too many SQL variables")
    huge = {
        "op": "or",
        "predicates": [{"op": "in", "key": "n", "values": list(range(128))}] * 127,
    }
    with pytest.raises(ValidationError, match="1,024 values in all"):
        parse_filter(huge)
    dates = [f"2026-{m:02d}-{d:02d}" for m in range(1, 13) for d in range(1, 29)][:128]
    widest: dict[str, Any] = {
        "op": "or",
        "predicates": [{"op": "in", "key": "due", "values": dates}] * 7
        + [{"op": "nin", "key": "reviewers", "values": [str(i) for i in range(128)]}],
    }
    deepest: dict[str, Any] = {"op": "all", "key": "reviewers", "values": ["ana", "sam"]}
    for _ in range(MAX_DEPTH - 1):
        deepest = {"op": "not", "predicate": deepest}
    for raw in (widest, deepest):
        where, params = filter_sql(parse_filter(raw))
        assert len(params) < 1000  # one JSON array parameter per membership
        conn.execute(f"SELECT name FROM documents WHERE {where}", params).fetchall()
    assert matching(conn, widest) == {"approved", "draft"}  # numeric_status lists "3"
    assert matching(conn, deepest) == {"draft", "bare", "numeric_status"}  # 7 nots: odd
