"""Contract objects in their wire form, read without pydantic.

The generated pydantic models are the contract, but importing pydantic and building a
model costs more than a whole `gno search`. The CLI's lean path (``gno.services.wire``)
therefore answers a read command from the handler's wire payload, and only where this
module can prove the answer equals the one the models would give:

- ``checked`` accepts an input only when every field given lies inside the part of JSON
  Schema it fully understands (plain types, lengths, bounds, enums, lists of those); then
  pydantic would accept it too, with the same values;
- ``canonical`` puts an output payload in the form ``model_dump(mode="json",
  exclude_unset=True)`` gives after ``model_validate``: keys in schema order (unknown keys
  after them), whole numbers where the schema says number as floats;
- ``Wire`` reads either through attributes, as handlers and renderers read a model:
  absent fields answer their schema default or None.

Anything outside what they understand raises ``Unsure`` (or answers None), and the caller
takes the pydantic path: the lean path may decline, it never answers differently
(tests/core/test_wire.py pins both against the generated models).

A producer that builds a long list in canonical form already may hand it over as
``Formed``; ``canonical`` then keeps it as it is instead of walking it again (a page of
1,000 journal entries spent twice its own making in that walk). Such a producer pins its
output against ``canonical`` in a test (tests/services/test_journal_wire.py).
"""

from __future__ import annotations

import copy
import keyword
from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

# Keywords that only describe: they never change what a value validates or dumps to.
_NOTES = frozenset({"description", "title", "$comment", "examples", "default", "deprecated"})
# What ``checked`` understands of an input field, beyond the notes.
_INPUT_WORDS = frozenset(
    {"type", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "enum"}
)
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


class Unsure(Exception):
    """The schema uses something this module does not model: take the pydantic path."""


class Formed(list[dict[str, Any]]):
    """A list whose producer built it in canonical form: ``canonical`` keeps it as it is."""


def _deref(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    for _ in range(32):  # a $ref chain longer than this is not a contract schema
        ref = node.get("$ref")
        if ref is None:
            return node
        if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
            raise Unsure(f"$ref {ref!r}")
        node = root.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
        if not isinstance(node, dict):
            raise Unsure(f"$ref {ref!r}")
    raise Unsure("$ref chain")


def _scalar_ok(node: dict[str, Any], value: Any) -> bool:
    kind = node.get("type")
    if not isinstance(kind, str) or kind not in _TYPES:
        return False
    if isinstance(value, bool) and kind != "boolean":
        return False  # pydantic refuses True for an integer or a number in its lax mode too
    if not isinstance(value, _TYPES[kind]):
        return False
    if "enum" in node and value not in node["enum"]:
        return False
    if isinstance(value, str):
        return bool(node.get("minLength", 0) <= len(value) <= node.get("maxLength", len(value)))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value != value or value in (float("inf"), float("-inf")):
            return False
        low, high = node.get("minimum"), node.get("maximum")
        return (low is None or value >= low) and (high is None or value <= high)
    return True


def _field_ok(node: dict[str, Any], value: Any) -> bool:
    if set(node) - _NOTES - _INPUT_WORDS - {"items"}:
        return False  # pattern, format, anyOf, $ref, nested objects …: pydantic decides
    if node.get("type") != "array":
        return "items" not in node and _scalar_ok(node, value)
    items = node.get("items")
    if not isinstance(value, list) or not isinstance(items, dict) or items.get("type") == "array":
        return False
    if not node.get("minItems", 0) <= len(value) <= node.get("maxItems", len(value)):
        return False
    return all(_field_ok(items, item) for item in value)


def _as_number(node: dict[str, Any], value: Any) -> Any:
    """pydantic's float for a whole number given where the schema says number."""
    if node.get("type") == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if node.get("type") == "array" and isinstance(value, list):
        return [_as_number(node["items"], item) for item in value]
    return value


def checked(schema: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any] | None:
    """``fields`` as the input model would hold them, or None when not sure it would accept
    them (the pydantic path then validates, and reports the error if there is one)."""
    properties = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(properties, dict):
        return None
    if any(name not in fields for name in schema.get("required", ())):
        return None
    out: dict[str, Any] = {}
    for name, value in fields.items():
        node = properties.get(name)
        if not isinstance(node, dict) or not _field_ok(node, value):
            return None
        out[name] = _as_number(node, value)
    return out


def _branch(root: dict[str, Any], node: dict[str, Any], value: Any) -> dict[str, Any]:
    """The one branch of an anyOf/oneOf (or a type list) that ``value`` can be, else Unsure.
    The branches ruled out (another JSON type, an object without a required field) are ones
    the model's union would reject too, so it takes the same one."""
    if isinstance(node.get("type"), list):
        branches = [{**node, "type": kind} for kind in node["type"]]
    else:
        branches = [_deref(root, b) for b in node.get("anyOf") or node.get("oneOf") or ()]
    if value is None:
        return {"type": "null"}
    fits = [b for b in branches if b.get("type") != "null" and _may_be(root, b, value)]
    if len(fits) != 1:
        raise Unsure("ambiguous union")
    return fits[0]


def _may_be(root: dict[str, Any], node: dict[str, Any], value: Any) -> bool:
    node = _deref(root, node)
    kind = node.get("type")
    if kind == "object":  # an object missing a required field can never be this branch
        return isinstance(value, dict) and all(
            _given(root, node, value, k) for k in node.get("required", ())
        )
    if kind == "array":
        return isinstance(value, list)
    if kind in ("integer", "number"):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind in _TYPES:
        return isinstance(value, _TYPES[kind])
    raise Unsure(f"union branch {kind!r}")


def _given(root: dict[str, Any], node: dict[str, Any], value: dict[str, Any], key: str) -> bool:
    """Whether the model of ``node`` could fill its required field ``key`` from ``value``:
    by its wire name, by its Python name (``from_``: the models validate by name too) or,
    should the schema give one, from a default."""
    if key in value or (keyword.iskeyword(key) and f"{key}_" in value):
        return True
    field = (node.get("properties") or {}).get(key)
    return isinstance(field, dict) and any("default" in f for f in (field, _deref(root, field)))


def canonical(root: dict[str, Any], value: Any, node: dict[str, Any] | None = None) -> Any:
    """``value`` (valid against ``node``, by default the whole schema ``root``) as pydantic
    dumps it after validating; Unsure where that is not certain."""
    return _plan(root, root if node is None else node)(value)


# What ``canonical`` does with a schema node depends only on the node, so each node is read
# once into a plan (a function of the value) and the plan is kept: a page of 1,000 journal
# entries walked the schema 30,000 times. Plans hold their nodes, so an id is never reused
# while its plan is kept; the cache is bounded for callers that make schemas on the fly. A
# schema must not change once read (contract schemas never do; make a new one instead).
Plan = Callable[[Any], Any]
_PLANS: dict[tuple[int, int], tuple[dict[str, Any], dict[str, Any], Plan]] = {}
_PLAN_CAP = 4096


def _plan(root: dict[str, Any], node: dict[str, Any]) -> Plan:
    key = (id(root), id(node))
    kept = _PLANS.get(key)
    if kept is not None and kept[0] is root and kept[1] is node:
        return kept[2]
    plan = _compile(root, node)  # may raise Unsure: then nothing is kept, the next call raises too
    if len(_PLANS) >= _PLAN_CAP:
        _PLANS.clear()
    _PLANS[key] = (root, node, plan)
    return plan


def _compile(root: dict[str, Any], node: dict[str, Any]) -> Plan:
    node = _deref(root, node)
    if "allOf" in node or "not" in node or "if" in node:
        raise Unsure("allOf/not/if")
    if "anyOf" in node or "oneOf" in node or isinstance(node.get("type"), list):
        return _union(root, node)
    return _shape(root, node)


def _union(root: dict[str, Any], node: dict[str, Any]) -> Plan:
    """``_branch`` read ahead: the branch a value takes, then that branch's shape."""
    if isinstance(node.get("type"), list):
        branches = [{**node, "type": kind} for kind in node["type"]]
    else:
        branches = [_deref(root, b) for b in node.get("anyOf") or node.get("oneOf") or ()]
    tests = [(_fits(root, b), _shape(root, b)) for b in branches if b.get("type") != "null"]

    def plan(value: Any) -> Any:
        if value is None:
            return None
        fits = [shape for fits, shape in tests if fits(value)]
        if len(fits) != 1:
            raise Unsure("ambiguous union")
        return fits[0](value)

    return plan


def _fits(root: dict[str, Any], node: dict[str, Any]) -> Callable[[Any], bool]:
    """``_may_be`` of one union branch, as a test of the value."""
    try:
        node = _deref(root, node)
    except Unsure as exc:
        return _raises(exc)
    kind = node.get("type")
    if kind == "object":
        needs = [_needed(root, node, key) for key in node.get("required", ())]
        return lambda value: isinstance(value, dict) and all(need(value) for need in needs)
    if kind == "array":
        return lambda value: isinstance(value, list)
    if kind in ("integer", "number"):
        return lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind in _TYPES:
        types = _TYPES[kind]
        return lambda value: isinstance(value, types)
    return _raises(Unsure(f"union branch {kind!r}"))


def _needed(
    root: dict[str, Any], node: dict[str, Any], key: str
) -> Callable[[dict[str, Any]], bool]:
    """``_given`` of one required field, as a test of the object."""
    alias = f"{key}_" if keyword.iskeyword(key) else None
    field = (node.get("properties") or {}).get(key)
    try:
        default = isinstance(field, dict) and any(
            "default" in f for f in (field, _deref(root, field))
        )
    except Unsure as exc:  # raised only when the field is missing, as _given would
        problem = exc

        def missing(value: dict[str, Any]) -> bool:
            raise problem

        default_of: Callable[[dict[str, Any]], bool] = missing
    else:
        default_of = lambda value: default  # noqa: E731
    return lambda value: key in value or (alias is not None and alias in value) or default_of(value)


def _raises(exc: Exception) -> Callable[[Any], bool]:
    def test(value: Any) -> bool:
        raise exc

    return test


def _shape(root: dict[str, Any], node: dict[str, Any]) -> Plan:
    """The value's form under one resolved node: objects in schema order, whole numbers as
    floats where the schema says number, integers where it says integer."""
    kind = node.get("type")
    properties: dict[str, Any] = node.get("properties") or {}
    extra = node.get("additionalProperties")
    items = node.get("items")
    patterned, prefixed = "patternProperties" in node, "prefixItems" in node
    fields: dict[str, Plan] = {}  # each property's plan, made when a value first has it

    def plan(value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, dict):
            if kind not in (None, "object"):
                raise Unsure("object where the schema says otherwise")
            if patterned:
                raise Unsure("patternProperties")
            out = {}
            for k in properties:
                if k in value:
                    field = fields.get(k)
                    if field is None:
                        field = fields[k] = _plan(root, properties[k])
                    out[k] = field(value[k])
            for key, item in value.items():
                if key not in properties:
                    out[key] = _plan(root, extra)(item) if isinstance(extra, dict) else item
            return out
        if isinstance(value, list):
            if kind not in (None, "array") or prefixed:
                raise Unsure("array shape")
            if type(value) is Formed:
                return value
            if isinstance(items, dict):
                each = _plan(root, items)
                return [each(v) for v in value]
            return list(value)
        if kind == "number" and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if kind == "integer" and isinstance(value, float):
            if not value.is_integer():
                raise Unsure("a fraction where the schema says integer")
            return int(value)
        # A `format` changes nothing: the models are generated without it (exact strings).
        return value

    if kind in ("string", "boolean"):  # most leaves: only an object or a list changes anything
        return lambda value: plan(value) if isinstance(value, (dict, list)) else value
    return plan


def wire_json(value: Any) -> bytes:
    """A canonical answer as REST sends it: the bytes of the model's compact
    ``model_dump_json(exclude_unset=True)`` (floats as pydantic writes them, ``1e-7`` where
    Python's json writes ``1e-07``; a number that is not finite as null). orjson writes
    them in a quarter of pydantic's own serializer's time (a page of 1,000 journal entries:
    0.6 against 2.4 ms); what orjson refuses, an integer past 64 bits or a key that is not
    a string, goes through pydantic's."""
    import orjson

    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        from pydantic_core import to_json

        return to_json(value)


class Wire:
    """A wire object read as its model is: ``wire.meta.query``, ``hit.snippetRange``. A
    field the object leaves out answers its schema default (a fresh copy) or None; a field
    named by a Python keyword is read with a trailing underscore (``from_``)."""

    __slots__ = ("_node", "_root", "wire")

    def __init__(self, root: dict[str, Any], wire: Any, node: dict[str, Any] | None = None):
        self._root = root
        self._node = _deref(root, root if node is None else node)
        self.wire = wire

    def __getattr__(self, name: str) -> Any:
        key = name[:-1] if name.endswith("_") and keyword.iskeyword(name[:-1]) else name
        properties = self._node.get("properties") or {}
        if isinstance(self.wire, dict) and key in self.wire:
            return _wrap(self._root, self.wire[key], properties.get(key))
        if key in properties:  # a default beside a $ref counts before the target's own
            for field in (properties[key], _deref(self._root, properties[key])):
                if "default" in field:
                    return copy.deepcopy(field["default"])
            return None
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"Wire({self.wire!r})"


def _wrap(root: dict[str, Any], value: Any, node: dict[str, Any] | None) -> Any:
    if node is not None:
        node = _deref(root, node)
        if _is_union(node):
            node = _branch(root, node, value)
    if isinstance(value, dict):  # a model where the schema names properties, else a dict
        node = node or {}
        if "properties" in node:
            return Wire(root, value, node)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            return {k: _wrap(root, v, extra) for k, v in value.items()}
        return value
    if isinstance(value, list):
        items = (node or {}).get("items")
        if not isinstance(items, dict):
            return [_wrap(root, v, None) for v in value]
        items = _deref(root, items)
        if "properties" in items and not _is_union(items):  # a list of objects: each a Wire
            return WireList(root, value, items)
        return [_wrap(root, v, items) for v in value]
    return value


class WireList(Sequence[Any]):
    """A list of wire objects, each wrapped as it is read: a text that only counts a page
    (``len(result.changes)``) wraps none of its thousand entries."""

    __slots__ = ("_items", "_node", "_root")

    def __init__(self, root: dict[str, Any], items: list[Any], node: dict[str, Any]):
        self._root, self._items, self._node = root, items, node

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self._one(v) for v in self._items[index]]
        return self._one(self._items[index])

    def __iter__(self) -> Iterator[Any]:
        return map(self._one, self._items)

    def __repr__(self) -> str:
        return f"WireList({self._items!r})"

    def _one(self, value: Any) -> Any:
        if isinstance(value, dict):
            return Wire(self._root, value, self._node)
        return _wrap(self._root, value, self._node)


def _is_union(node: dict[str, Any]) -> bool:
    return "anyOf" in node or "oneOf" in node or isinstance(node.get("type"), list)
