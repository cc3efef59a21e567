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
"""

from __future__ import annotations

import copy
import keyword
from typing import Any

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
    node = _deref(root, root if node is None else node)
    if "allOf" in node or "not" in node or "if" in node:
        raise Unsure("allOf/not/if")
    if "anyOf" in node or "oneOf" in node or isinstance(node.get("type"), list):
        node = _branch(root, node, value)
    if value is None:
        return None
    kind = node.get("type")
    if isinstance(value, dict):
        if kind not in (None, "object"):
            raise Unsure("object where the schema says otherwise")
        return _object(root, node, value)
    if isinstance(value, list):
        items = node.get("items")
        if kind not in (None, "array") or "prefixItems" in node:
            raise Unsure("array shape")
        return [canonical(root, v, items) if isinstance(items, dict) else v for v in value]
    if kind == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == "integer" and isinstance(value, float):
        if not value.is_integer():
            raise Unsure("a fraction where the schema says integer")
        return int(value)
    # A `format` changes nothing: the models are generated without it (exact strings).
    return value


def _object(root: dict[str, Any], node: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
    properties = node.get("properties") or {}
    extra = node.get("additionalProperties")
    if "patternProperties" in node:
        raise Unsure("patternProperties")
    out = {k: canonical(root, value[k], properties[k]) for k in properties if k in value}
    for key, item in value.items():
        if key not in properties:
            out[key] = canonical(root, item, extra) if isinstance(extra, dict) else item
    return out


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
        if "anyOf" in node or "oneOf" in node or isinstance(node.get("type"), list):
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
        return [_wrap(root, v, items if isinstance(items, dict) else None) for v in value]
    return value
