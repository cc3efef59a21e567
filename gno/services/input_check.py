"""How a request's arguments are checked against an operation's input schema: by the
generated model alone (strict JSON validation) when it states every rule of the schema,
else by the JSON Schema validator first. REST routes (``parse_request``), ``/api/op``
(``schema_problem``) and the SDK (``sdk_input``) check alike, so one value is refused or
accepted the same way on each surface. No web framework is imported here: the SDK's local
transport loads this module."""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

from gno.core.wire_values import unusable_value, whole_numbers
from gno.errors import ValidationError
from gno.services.wire import contract_schema

if TYPE_CHECKING:
    from pydantic import BaseModel


@cache
def _validator(schema_id: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(contract_schema(schema_id))


# Schema keywords a generated model does not state (combinators, uniqueness, formats …):
# a schema using any of them keeps its JSON Schema validator.
UNSTATED = frozenset(
    {
        "not", "oneOf", "anyOf", "allOf", "if", "dependentRequired", "dependentSchemas",
        "uniqueItems", "format", "contains", "minContains", "maxContains", "patternProperties",
        "propertyNames", "minProperties", "maxProperties", "unevaluatedProperties",
        "unevaluatedItems",
    }
)  # fmt: skip


def _has_combinators(node: Any, in_properties: bool = False) -> bool:
    if isinstance(node, list):
        return any(_has_combinators(item) for item in node)
    if not isinstance(node, dict):
        return False
    if not in_properties and UNSTATED & node.keys():
        return True
    return any(_has_combinators(v, k in ("properties", "$defs")) for k, v in node.items())


def _contract(schema_id: str) -> dict[str, Any]:
    return contract_schema(schema_id)  # cached there


def _nullable(prop: Any) -> bool:
    kind = prop.get("type") if isinstance(prop, dict) else None
    return kind is None or kind == "null" or (isinstance(kind, list) and "null" in kind)


def _nested_optional(node: Any, top: bool = True) -> bool:
    """An object below the top level with a property that may be left out: its model field
    defaults to None and would take an explicit null the schema refuses."""
    if isinstance(node, list):
        return any(_nested_optional(item, False) for item in node)
    if not isinstance(node, dict):
        return False
    props = node.get("properties")
    if not top and isinstance(props, dict):
        required = set(node.get("required", ()))
        if any(k not in required and not _nullable(v) for k, v in props.items()):
            return True
    return any(
        _nested_optional(v, False) for k, v in node.items() if k not in ("properties",)
    ) or any(_nested_optional(v, False) for v in (props or {}).values())


def _required_const(node: Any) -> bool:
    """A required property fixed by ``const`` (``confirmation: "apply"``): the generated
    model defaults it, so a request leaving it out would pass the model alone."""
    if isinstance(node, list):
        return any(_required_const(item) for item in node)
    if not isinstance(node, dict):
        return False
    props = node.get("properties")
    if isinstance(props, dict) and any(
        isinstance(props.get(k), dict) and "const" in props[k] for k in node.get("required", ())
    ):
        return True
    return any(_required_const(v) for v in node.values())


@cache
def model_says_it_all(schema_id: str) -> bool:
    """True when the generated model of ``schema_id`` states every rule of the schema: no
    keyword it cannot state (``UNSTATED``) and no optional property below the top level
    (an optional field takes null, the schema does not; top-level nulls are checked in
    ``parse_request``) and no required ``const`` (the model would default it). Its strict
    JSON validation is then the one check of a request; otherwise the JSON Schema
    validator checks it first."""
    schema = _contract(schema_id)
    return (
        not _has_combinators(schema)
        and not _nested_optional(schema)
        and not _required_const(schema)
    )


def parse_request(schema_id: str, parse: type[BaseModel], args: dict[str, Any]) -> BaseModel:
    """The request's arguments as the route's typed model, validated once. Strict JSON
    validation keeps JSON's types ("5" is no integer, 1 no boolean) as the JSON Schema
    does, and an explicit null is refused where the schema does not allow it; a schema the
    model cannot state alone is checked by its JSON Schema validator, then parsed."""
    if model_says_it_all(schema_id):
        props = _contract(schema_id).get("properties", {})
        for key, value in args.items():
            if value is None and key in props and not _nullable(props[key]):
                kind = props[key].get("type")
                raise ValidationError(f"Invalid request: {key}: None is not of type {kind!r}")
        args = whole_numbers(_contract(schema_id), args)  # 3.0 is an integer to the schema
        return parse.model_validate_json(json.dumps(args), strict=True)
    if problem := schema_problem(schema_id, args):
        raise ValidationError(problem)
    return parse.model_validate(args)


def schema_problem(schema_id: str, args: dict[str, Any]) -> str | None:
    """The first way ``args`` break the schema, naming the field; None when valid."""
    if (found := schema_error(schema_id, args)) is None:
        return None
    where, detail = found
    return f"Invalid request: {where}: {detail}" if where else f"Invalid request: {detail}"


def schema_error(schema_id: str, args: dict[str, Any]) -> tuple[str, str] | None:
    """(where, what) of the first way ``args`` break the schema; None when valid."""
    errors = sorted(_validator(schema_id).iter_errors(args), key=lambda e: list(e.path))
    if not errors:
        return None
    first = errors[0]
    where = ".".join(str(p) for p in first.absolute_path)
    detail = first.message if len(first.message) <= 200 else first.message[:200] + "…"
    return where, detail


def sdk_input(schema_id: str, parse: type[BaseModel], fields: dict[str, Any]) -> BaseModel:
    """An SDK call's keyword arguments as the operation's input model, checked as
    ``POST /api/op/<id>`` checks the same values sent as JSON (spec/sdk.md): JSON's types
    ("3" is no integer, True no number, 1 no boolean; 3.0 is 3), and the JSON Schema where
    the model cannot state it all (a required ``const`` the model would default: an
    ``egress_audit_purge(confirm=None)`` purged every receipt). A bad value is
    ``ValidationError`` naming the field, before anything runs."""
    from pydantic import ValidationError as ModelError

    if problem := unusable_value(fields):  # a lone surrogate, NaN: no JSON text holds them
        raise ValidationError(f"Invalid {problem}")
    try:  # tuples are arrays, str enums strings; a Path, a set or NaN is no JSON value
        args = json.loads(json.dumps(fields, allow_nan=False))
    except (TypeError, ValueError) as exc:
        where = next((k for k in fields if not _is_json(fields[k])), "input")
        raise ValidationError(f"Invalid {where}: not a JSON value ({exc})") from None
    if model_says_it_all(schema_id):
        checked = whole_numbers(_contract(schema_id), args)  # 3.0 is an integer to the schema
        try:
            return parse.model_validate_json(json.dumps(checked), strict=True)
        except ModelError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "input"
            raise ValidationError(f"Invalid {where}: {first['msg']}") from None
    if (found := schema_error(schema_id, args)) is not None:
        raise ValidationError(f"Invalid {found[0] or 'input'}: {found[1]}")
    try:
        return parse.model_validate(args)
    except ModelError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "input"
        raise ValidationError(f"Invalid {where}: {first['msg']}") from None


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True
