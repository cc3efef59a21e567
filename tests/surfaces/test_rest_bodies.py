"""A REST body is validated once (issue 19): strict JSON validation into the route's typed
model, then the operation input built from it without validating again. That is safe only
because every field a body copies carries at least the operation's own rules in the REST
schema, and what it derives is bounded by the body itself: both are checked here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gno_contracts.models.api_query_input import ApiQueryInput
from gno_contracts.models.query_input import QueryInput

from gno.errors import ValidationError
from gno.rest import bodies
from gno.services.input_check import model_says_it_all, parse_request

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas" / "input"
PAIRS = [("api-search", "search"), ("api-query", "query"), ("api-query-diagnose", "query-diagnose")]
CLAMPED = {"limit", "candidateLimit"}  # bodies clamp them into the operation's range
# Derived, not copied: comma strings split into bounded lists, query modes rebuilt item by
# item (REST's items carry the operation's rules plus a non-space pattern).
DERIVED = {*bodies.LIST_FIELDS, *bodies.LIST_FIELDS.values(), "queryModes"}
QUERY = "gno://schemas/api-query-input@1.0"


def _properties(name: str) -> dict[str, Any]:
    return dict(json.loads((SCHEMAS / f"{name}.schema.json").read_text())["properties"])


@pytest.mark.parametrize(("rest", "op"), PAIRS)
def test_copied_fields_carry_the_operations_rules(rest: str, op: str) -> None:
    rest_props, op_props = _properties(rest), _properties(op)
    for name in (rest_props.keys() & op_props.keys()) - DERIVED:
        rules = {k: v for k, v in op_props[name].items() if k not in ("description", "default")}
        if name in CLAMPED:
            rules.pop("maximum", None)
        for keyword, value in rules.items():
            assert rest_props[name].get(keyword) == value, f"{rest}.{name}: {keyword}"


def test_query_body_is_validated_by_its_model_alone() -> None:
    assert model_says_it_all(QUERY)
    assert not model_says_it_all("gno://schemas/api-sync-input@1.0")  # has combinators


@pytest.mark.parametrize(
    "body",
    [
        {"query": "x", "limit": "5"},  # JSON types are kept: a string is no integer
        {"query": "x", "noExpand": 1},  # nor a number a boolean
        {"query": " "},
        {"query": "x", "queryModes": [{"mode": "nope", "text": "a"}]},
        {"query": "x", "projectHints": ["a"] * 17},
        {"query": "x", "exclude": None},  # optional, but never null in the schema
    ],
)
def test_invalid_bodies_are_refused(body: dict[str, Any]) -> None:
    from pydantic import ValidationError as ModelError

    with pytest.raises((ModelError, ValidationError)):
        parse_request(QUERY, ApiQueryInput, body)


def test_a_schema_whose_nested_objects_have_optional_fields_keeps_its_validator() -> None:
    # Such a field would take null in the model and not in the schema.
    schema = {"properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}}
    from gno.services.input_check import _nested_optional

    assert _nested_optional(schema)
    assert not _nested_optional({"properties": {"b": {"type": "string"}}})


def test_the_operation_input_equals_a_validated_one() -> None:
    body = {
        "query": " slow traces ",
        "limit": 80,
        "category": "a, b",
        "tagsAny": "x",
        "candidateLimit": 500,
        "queryModes": [{"mode": "term", "text": "tail"}],
        "noRerank": True,
        "graph": False,
        "explain": True,
    }
    built = bodies.query(parse_request(QUERY, ApiQueryInput, body), local=True)
    validated = QueryInput.model_validate(built.model_dump(mode="json", exclude_unset=True))
    assert built.model_dump(mode="json") == validated.model_dump(mode="json")
    assert built.limit == bodies.SEARCH_LIMIT_MAX and built.candidateLimit == 100
    assert built.categories == ["a", "b"] and built.rerank is False


def test_derived_lists_are_bounded_by_the_body() -> None:
    body = {"query": "x", "category": ",".join(f"c{i}" for i in range(bodies.LIST_MAX + 1))}
    with pytest.raises(ValidationError) as refused:
        bodies.query(parse_request(QUERY, ApiQueryInput, body), local=True)
    assert "category" in refused.value.message and "256" in refused.value.message


def test_a_whole_number_written_with_a_point_is_an_integer() -> None:
    """JSON has one number type: 3.0 is the integer 3 to the JSON Schema (and to GNO's
    JavaScript), and the routes checked by their schema validator, /api/op/* and MCP take
    it. The strict model refused it: POST /api/graph/query {"maxDepth": 3.0} was 400 where
    POST /api/op/graph_query {"maxDepth": 3.0} answered."""
    from gno_contracts.models.api_graph_query_input import ApiGraphQueryInput

    graph = "gno://schemas/api-graph-query-input@1.0"
    assert model_says_it_all(graph)
    body = {"root": "notes/a.md", "maxDepth": 3.0, "maxNodes": 1e2}
    parsed = parse_request(graph, ApiGraphQueryInput, body)
    assert (parsed.maxDepth, parsed.maxNodes) == (3, 100)
    assert parse_request(QUERY, ApiQueryInput, {"query": "x", "limit": 5.0}).limit == 5
    from pydantic import ValidationError as ModelError

    for bad in ({"maxDepth": 3.5}, {"maxDepth": 7.0}, {"maxNodes": 1e300}, {"root": 1.0}):
        with pytest.raises((ModelError, ValidationError)):
            parse_request(graph, ApiGraphQueryInput, {"root": "notes/a.md"} | bad)
