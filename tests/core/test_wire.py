"""gno.core.wire against the generated pydantic models it stands in for on the CLI's lean
read path: whatever it accepts or answers must be exactly what the models would give.

- ``checked``: any input it accepts, the input model accepts too, with equal field values
  (defaults included) read through ``Wire``;
- ``canonical``: any payload the output model accepts dumps to the same JSON text;
- both run over every operation's schemas, on values drawn from the schemas themselves
  (and, for inputs, wrong types, out-of-range numbers and unknown keys mixed in).
"""

from __future__ import annotations

import copy
import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from gno_contracts.operations import OPERATIONS
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from gno.core.wire import Unsure, Wire, canonical, checked, wire_json
from gno.render import json_text

SCHEMAS = Path(__file__).resolve().parents[2] / "generated" / "gno_contracts" / "schemas"
FEW = settings(
    max_examples=30, suppress_health_check=list(HealthCheck), derandomize=True, deadline=None
)


def schema(schema_id: str) -> dict[str, Any]:
    name = schema_id.removeprefix("gno://schemas/").split("@")[0]
    return json.loads((SCHEMAS / f"{name}.json").read_text())


def model(ref: str) -> Any:
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(f"gno_contracts.models.{module}"), name)


def scalars() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 300),
        st.floats(-2, 2, allow_nan=False),
        st.text(max_size=4),
    )


def values(root: dict[str, Any], node: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values shaped by a schema node: mostly valid, sometimes not (the model decides)."""
    if not isinstance(node, dict) or depth > 12:
        return scalars()
    if "$ref" in node:
        return values(root, root["$defs"][node["$ref"].rsplit("/", 1)[1]], depth + 1)
    if "enum" in node:
        return st.sampled_from(node["enum"])
    if "const" in node:
        return st.just(node["const"])
    branches = node.get("anyOf") or node.get("oneOf")
    if branches:
        return st.one_of([values(root, b, depth + 1) for b in branches])
    kind = node.get("type")
    if isinstance(kind, list):
        return st.one_of([values(root, {**node, "type": k}, depth) for k in kind])
    if kind == "object" or "properties" in node:
        return objects(root, node, depth)
    if kind == "array":
        low = node.get("minItems", 0)
        return st.lists(values(root, node.get("items"), depth + 1), min_size=low, max_size=low + 2)
    if kind == "string":
        low, high = node.get("minLength", 0), node.get("maxLength", 10**6)
        if "pattern" in node:
            matching = st.from_regex(node["pattern"], fullmatch=True)
            return matching.filter(lambda text: low <= len(text) <= high)
        return st.text(min_size=low, max_size=min(low + 6, high))
    if kind == "integer":
        return st.integers(node.get("minimum", -5), node.get("maximum", 400))
    if kind == "number":  # whole numbers too: pydantic makes them floats
        low, high = node.get("minimum", -5), node.get("maximum", 400)
        return st.one_of(st.integers(int(low), int(high)), st.floats(low, high))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return scalars()


def objects(root: dict[str, Any], node: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    properties = node.get("properties") or {}
    required = set(node.get("required", ()))
    extra = node.get("additionalProperties")

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        names = [n for n in properties if n in required or draw(st.booleans())]
        out = {
            n: draw(values(root, properties[n], depth + 1)) for n in draw(st.permutations(names))
        }
        if extra is not False and draw(st.booleans()):
            key = draw(st.sampled_from(["zz", "extra", "aa"]))
            out.setdefault(key, draw(values(root, extra, depth + 1)))
        return out

    return build()


def junk(root: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """An input as a careless caller sends it: right and wrong values, unknown keys."""
    properties = root.get("properties") or {}

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in properties:
            pick = draw(st.integers(0, 3))
            if pick == 1:
                out[name] = draw(values(root, properties[name]))
            elif pick == 2:
                out[name] = draw(scalars())
        if draw(st.integers(0, 5)) == 0:
            out["unknownKey"] = draw(scalars())
        return out

    return build()


def same(ours: Any, theirs: Any) -> bool:
    """Equal values of the same JSON type (1 and 1.0 differ on the wire)."""
    if isinstance(theirs, bool) or isinstance(ours, bool):
        return type(ours) is type(theirs) and ours == theirs
    if isinstance(theirs, float) or isinstance(ours, float):
        return isinstance(ours, float) and isinstance(theirs, float) and ours == theirs
    if isinstance(theirs, list):
        return (
            isinstance(ours, list)
            and len(ours) == len(theirs)
            and all(same(a, b) for a, b in zip(ours, theirs, strict=True))
        )
    return bool(ours == theirs)


INPUTS = sorted({(op.input_schema, op.input_model) for op in OPERATIONS})
# Drawing valid instances of these two takes minutes (nested unions of patterned strings);
# neither is on the lean path, whose outputs the real-corpus test checks too.
SLOW = {"gno://schemas/retrieval-trace-export@1.0", "gno://schemas/context-capsule-v1@1.1"}
OUTPUTS = sorted(
    {(op.output_schema, op.output_model) for op in OPERATIONS}
    - {(op.output_schema, op.output_model) for op in OPERATIONS if op.output_schema in SLOW}
)


@pytest.mark.parametrize(("schema_id", "ref"), INPUTS, ids=[i for i, _ in INPUTS])
def test_an_input_checked_is_an_input_the_model_holds_the_same(schema_id: str, ref: str) -> None:
    root, cls = schema(schema_id), model(ref)

    @FEW
    @given(junk(root))
    def check(fields: dict[str, Any]) -> None:
        ours = checked(root, fields)
        if ours is None:
            return  # declined: the pydantic path decides, errors and all
        theirs = cls.model_validate(fields)  # must not raise: checked promised it is valid
        wire = Wire(root, ours)
        for name in cls.model_fields:
            assert same(getattr(wire, name), getattr(theirs, name)), name

    check()


@pytest.mark.parametrize(("schema_id", "ref"), OUTPUTS, ids=[o for o, _ in OUTPUTS])
def test_an_answer_made_canonical_dumps_as_the_model_does(schema_id: str, ref: str) -> None:
    root, cls = schema(schema_id), model(ref)

    @FEW
    @given(values(root, root))
    def check(payload: Any) -> None:
        try:
            theirs = cls.model_validate(payload)
        except ValidationError:
            assume(False)
        try:
            ours = canonical(root, payload)
        except Unsure:
            return  # declined: the CLI validates the model instead
        wanted = theirs.model_dump(mode="json", exclude_unset=True)
        assert json_text(ours) == json_text(wanted)
        # REST's answer from the wire form: the very bytes the model would send.
        assert wire_json(ours) == theirs.model_dump_json(exclude_unset=True).encode()

    check()


def test_a_field_left_out_reads_as_its_default_and_a_fresh_copy() -> None:
    root = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "default": []},
            "from": {"type": "string"},
            "limit": {"type": "integer", "default": 5},
        },
    }
    wire = Wire(root, {"from": "a"})
    assert (wire.limit, wire.from_) == (5, "a")
    wire.tags.append("x")
    assert wire.tags == []  # a default never leaks between reads
    with pytest.raises(AttributeError):
        _ = wire.nothing


def test_a_list_of_objects_reads_like_a_list_of_models() -> None:
    root = {
        "type": "object",
        "properties": {
            "nodes": {
                "type": "array",
                "items": {"type": "object", "properties": {"uri": {"type": "string"}}},
            }
        },
    }
    nodes = Wire(root, {"nodes": [{"uri": "a"}, {"uri": "b"}, {"uri": "c"}]}).nodes
    assert len(nodes) == 3 and nodes
    assert [n.uri for n in nodes] == ["a", "b", "c"]
    assert (nodes[0].uri, nodes[-1].uri) == ("a", "c")
    assert [n.uri for n in nodes[1:]] == ["b", "c"]
    assert not Wire(root, {"nodes": []}).nodes


def test_whole_numbers_become_floats_only_where_the_schema_says_number() -> None:
    root = {
        "type": "object",
        "properties": {"score": {"type": "number"}, "line": {"type": "integer"}},
    }
    out = canonical(root, {"line": 3.0, "score": 1, "x": 2})
    assert json.dumps(out) == '{"score": 1.0, "line": 3, "x": 2}'


def test_a_union_it_cannot_tell_apart_is_declined() -> None:
    root = {
        "$defs": {
            "A": {"type": "object", "properties": {"a": {"type": "number"}}},
            "B": {"type": "object", "properties": {"b": {"type": "integer"}}},
        },
        "anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}],
    }
    with pytest.raises(Unsure):
        canonical(root, {"a": 1})
    assert canonical({"anyOf": [{"type": "number"}, {"type": "null"}]}, 2) == 2.0


def test_a_union_of_objects_is_told_apart_by_their_required_fields() -> None:
    """links-list's positional or typed link: an object lacking a branch's required field
    cannot be that branch (the model's union rejects it too), so the other one is taken."""
    root = {
        "$defs": {
            "A": {"type": "object", "required": ["a"], "properties": {"a": {"type": "number"}}},
            "B": {
                "type": "object",
                "required": ["from"],
                "properties": {"from": {"type": "number"}, "n": {"type": "number"}},
            },
        },
        "type": "array",
        "items": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]},
    }
    assert json.dumps(canonical(root, [{"a": 1}, {"from": 2, "n": 3}])) == (
        '[{"a": 1.0}, {"from": 2.0, "n": 3.0}]'
    )
    for both in ({"a": 1, "from": 2}, {"a": 1, "from_": 2}):  # either branch could hold it
        with pytest.raises(Unsure):
            canonical(root, [both])
    root = copy.deepcopy(root)  # a new schema: canonical keeps what it read of the old one
    root["$defs"]["B"]["properties"]["from"]["default"] = 0  # B could fill `from` itself
    with pytest.raises(Unsure):
        canonical(root, [{"a": 1}])


def test_checked_declines_what_it_does_not_model() -> None:
    root = {
        "type": "object",
        "required": ["q"],
        "properties": {
            "q": {"type": "string", "minLength": 1},
            "id": {"type": "string", "pattern": "^[a-z]+$"},
            "n": {"type": "integer", "minimum": 1, "maximum": 3},
        },
    }
    assert checked(root, {"q": "x", "n": 2}) == {"q": "x", "n": 2}
    for fields in ({"n": 2}, {"q": ""}, {"q": "x", "n": 0}, {"q": "x", "n": True},
                   {"q": "x", "id": "abc"}, {"q": "x", "other": 1}):  # fmt: skip
        assert checked(root, fields) is None, fields
