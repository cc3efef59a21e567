"""Typed metadata filters (GNO's ``filter`` object, ``metadata-predicate@1.0``). Pure.

A filter is one predicate, validated here into a small tree and compiled into one SQL
condition on ``documents.metadata_json`` (``{"key": [type, value]}``, written by
``core/typed_metadata``). The grammar is GNO's:

- ``{"op": "eq"|"ne", "key", "value"}`` — a scalar (string, finite number, boolean);
- ``{"op": "gt"|"gte"|"lt"|"lte", "key", "value"}`` — a number, or (gno) a date: an
  ISO-8601 date / date-time or a relative token (``today``, ``last week`` …);
- ``{"op": "in"|"nin"|"all", "key", "values": [...]}`` — non-empty, one scalar type;
- ``{"op": "exists", "key", "value": true|false}``;
- ``{"op": "and"|"or", "predicates": [...]}`` (non-empty), ``{"op": "not", "predicate"}``.

Comparisons are typed by the stored value: a string value compares with string keys
exactly (case included) and, when it reads as a date, with date keys (a date-only value
covers its whole UTC day); a number with number keys; a boolean with the strings
``true``/``false`` (how typed metadata stores booleans). A list key matches ``in``,
``nin`` and ``all`` on its members (strings; a number or boolean value is compared by
its text); ``eq``/``ne`` never match a list and ``ne``/``nin`` never match a missing
key or a key of another type, while ``not`` negates the whole child result (so
``not(eq)`` matches a missing key). Every leaf is 0 or 1 in SQL, never NULL, so ``not``
is exact.

Bounds (a hostile filter costs little): 64 KiB of JSON, 128 nodes, depth 8, 128
values per membership and 1,024 in all (gno's: each row checks them), keys ≤ 128 characters (``__proto__``, ``prototype``,
``constructor`` refused), strings ≤ 4,096. Any violation is a ``ValidationError``
naming the field path (``filter.predicates[1].value``); nothing is silently dropped.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from gno.core.dates import relative_range
from gno.core.frontmatter import normalize_key, parse_date
from gno.errors import ValidationError

MAX_FILTER_BYTES = 65_536
MAX_NODES = 128
MAX_DEPTH = 8
MAX_VALUES = 128
MAX_TOTAL_VALUES = 1024  # gno: membership values of the whole filter (each row checks them)
MAX_KEY_CHARS = 128
MAX_STRING_CHARS = 4096
FORBIDDEN_KEYS = frozenset({"__proto__", "prototype", "constructor"})

EQUALITY = ("eq", "ne")
ORDERING = ("gt", "gte", "lt", "lte")
MEMBERSHIP = ("in", "nin", "all")
LOGICAL = ("and", "or")
OPS = (*EQUALITY, *ORDERING, *MEMBERSHIP, "exists", *LOGICAL, "not")

Scalar = str | int | float | bool


@dataclass(frozen=True, slots=True)
class Leaf:
    op: str
    key: str  # normalized like frontmatter keys (camelCase -> snake_case)
    value: Scalar | None = None
    values: tuple[Scalar, ...] = ()


@dataclass(frozen=True, slots=True)
class Group:
    op: str  # and | or | not (one child)
    children: tuple[Leaf | Group, ...]


Node = Leaf | Group


def parse_filter_text(text: str, field: str = "filter") -> Node:
    """A filter given as JSON text (the CLI's ``--filter``, ``GET /api/docs?filter=``)."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILTER_BYTES:
        raise ValidationError(f"{field}: at most {MAX_FILTER_BYTES:,} bytes of JSON")
    try:
        raw = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise ValidationError(f"{field}: not valid JSON ({str(exc)[:120]})") from None
    return parse_filter(raw, field)


def cli_filter(text: str) -> dict[str, Any]:
    """The CLI's ``--filter '<JSON>'``: checked here, handed on as the input's object."""
    node = parse_filter_text(text, "--filter")
    return to_json(node)


def parse_filter(raw: Any, field: str = "filter") -> Node:
    """Validate a decoded filter object; raises ``ValidationError`` with the field path."""
    size = _json_size(raw)
    if size > MAX_FILTER_BYTES:
        raise ValidationError(f"{field}: at most {MAX_FILTER_BYTES:,} bytes of JSON")
    counter = [0, 0]  # predicates, membership values
    return _node(raw, field, 1, counter)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _json_size(raw: Any) -> int:
    try:
        return len(json.dumps(raw, allow_nan=False, separators=(",", ":")))
    except (ValueError, TypeError, RecursionError):
        return MAX_FILTER_BYTES + 1  # non-finite numbers, cycles: refused by size first


def _node(raw: Any, path: str, depth: int, counter: list[int]) -> Node:
    if depth > MAX_DEPTH:
        raise ValidationError(f"{path}: predicates nest at most {MAX_DEPTH} deep")
    counter[0] += 1
    if counter[0] > MAX_NODES:
        raise ValidationError(f"{path}: a filter has at most {MAX_NODES} predicates")
    if isinstance(raw, dict) and isinstance(raw.get("values"), list):
        counter[1] += len(raw["values"])
        if counter[1] > MAX_TOTAL_VALUES:
            raise ValidationError(
                f"{path}.values: a filter has at most {MAX_TOTAL_VALUES:,} values in all"
            )
    if not isinstance(raw, dict):
        raise ValidationError(f"{path}: a predicate is an object with op")
    op = raw.get("op")
    if not isinstance(op, str) or op not in OPS:
        raise ValidationError(f"{path}.op: one of {', '.join(OPS)}")
    if op in LOGICAL:
        _fields(raw, path, ("op", "predicates"))
        items = raw["predicates"]
        if not isinstance(items, list) or not items:
            raise ValidationError(f"{path}.predicates: a non-empty list of predicates")
        if len(items) > MAX_NODES:
            raise ValidationError(f"{path}.predicates: at most {MAX_NODES}")
        children = tuple(
            _node(item, f"{path}.predicates[{i}]", depth + 1, counter)
            for i, item in enumerate(items)
        )
        return Group(op, children)
    if op == "not":
        _fields(raw, path, ("op", "predicate"))
        return Group("not", (_node(raw["predicate"], f"{path}.predicate", depth + 1, counter),))
    if op in MEMBERSHIP:
        _fields(raw, path, ("op", "key", "values"))
        return Leaf(op, _key(raw["key"], path), values=_values(raw["values"], f"{path}.values"))
    _fields(raw, path, ("op", "key", "value"))
    key = _key(raw["key"], path)
    value = raw["value"]
    if op == "exists":
        if not isinstance(value, bool):
            raise ValidationError(f"{path}.value: exists takes true or false")
        return Leaf(op, key, value)
    value = _scalar(value, f"{path}.value")
    if op in ORDERING and (
        isinstance(value, bool) or (isinstance(value, str) and _date_range(value) is None)
    ):
        raise ValidationError(
            f"{path}.value: {op} takes a number or a date (ISO-8601 or today, last week…)"
        )
    return Leaf(op, key, value)


def _fields(raw: dict[str, Any], path: str, wanted: tuple[str, ...]) -> None:
    for name in wanted:
        if name not in raw:
            raise ValidationError(f"{path}.{name}: required for op {raw['op']}")
    extra = sorted(str(k) for k in raw if k not in wanted)
    if extra:
        raise ValidationError(f"{path}.{extra[0]}: not a field of op {raw['op']}")


def _key(raw: Any, path: str) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise ValidationError(f"{path}.key: a non-empty string")
    if len(raw) > MAX_KEY_CHARS:
        raise ValidationError(f"{path}.key: at most {MAX_KEY_CHARS} characters")
    if raw.strip() in FORBIDDEN_KEYS:
        raise ValidationError(f"{path}.key: {raw.strip()!r} is not allowed")
    key = normalize_key(raw)
    if not key:
        raise ValidationError(f"{path}.key: names no metadata key")
    return key


def _scalar(value: Any, path: str) -> Scalar:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise ValidationError(f"{path}: a finite number")
        return value
    if isinstance(value, str):
        if len(value) > MAX_STRING_CHARS:
            raise ValidationError(f"{path}: at most {MAX_STRING_CHARS:,} characters")
        return value
    raise ValidationError(
        f"{path}: a string, a finite number or a boolean (not null, a list or an object)"
    )


def _values(raw: Any, path: str) -> tuple[Scalar, ...]:
    if not isinstance(raw, list) or not raw:
        raise ValidationError(f"{path}: a non-empty list")
    if len(raw) > MAX_VALUES:
        raise ValidationError(f"{path}: at most {MAX_VALUES} values")
    values = tuple(_scalar(v, f"{path}[{i}]") for i, v in enumerate(raw))
    if len({_kind(v) for v in values}) > 1:
        raise ValidationError(f"{path}: values of one type (strings, numbers or booleans)")
    return values


def _kind(value: Scalar) -> str:
    if isinstance(value, bool):
        return "boolean"
    return "string" if isinstance(value, str) else "number"


def _date_range(text: str, now: datetime | None = None) -> tuple[str, str] | None:
    """(first, last) ISO instants a date value stands for: a date-only value is its UTC
    day, a relative token its period, a date-time itself; None when it is no date."""
    text = text.strip()
    relative = relative_range(text, now)
    if relative is not None:
        return _iso(relative[0]), _iso(relative[1])
    iso = parse_date(text) if text[:4].isdigit() else None
    if iso is None:
        return None
    if len(text) == 10:
        end = datetime.fromisoformat(iso.replace("Z", "+00:00")) + timedelta(days=1)
        return iso, _iso(end - timedelta(milliseconds=1))
    return iso, iso


def _iso(moment: datetime) -> str:
    return (
        moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    )


def to_json(node: Node) -> dict[str, Any]:
    """The normalized filter (keys normalized), as a predicate object again."""
    if isinstance(node, Group):
        if node.op == "not":
            return {"op": "not", "predicate": to_json(node.children[0])}
        return {"op": node.op, "predicates": [to_json(c) for c in node.children]}
    if node.op in MEMBERSHIP:
        return {"op": node.op, "key": node.key, "values": list(node.values)}
    return {"op": node.op, "key": node.key, "value": node.value}


# ---------------------------------------------------------------- SQL


def filter_sql(node: Node, column: str = "metadata_json") -> tuple[str, list[Any]]:
    """One SQL condition (0 or 1 per row, never NULL) and its parameters."""
    params: list[Any] = []
    return _sql(node, column, params), params


def _sql(node: Node, column: str, params: list[Any]) -> str:
    if isinstance(node, Group):
        if node.op == "not":
            return f"NOT ({_sql(node.children[0], column, params)})"
        joiner = " AND " if node.op == "and" else " OR "
        return "(" + joiner.join(_sql(c, column, params) for c in node.children) + ")"
    return "coalesce((" + _leaf(node, column, params) + "), 0)"


class _Key:
    """SQL for the stored type and value of one key (paths as parameters)."""

    def __init__(self, key: str, column: str, params: list[Any]) -> None:
        self.key, self.column, self.params = key, column, params

    def type_is(self, kind: str) -> str:
        self.params += [f'$."{self.key}"[0]', kind]
        return f"json_extract({self.column}, ?) IS ?"

    def present(self, exists: bool = True) -> str:
        self.params.append(f'$."{self.key}"[0]')
        return f"json_extract({self.column}, ?) IS {'NOT ' if exists else ''}NULL"

    def value(self) -> str:
        self.params.append(f'$."{self.key}"[1]')
        return f"json_extract({self.column}, ?)"

    def members(self) -> str:
        self.params.append(f'$."{self.key}"[1]')
        return f"json_each({self.column}, ?)"


def _text(value: Scalar) -> str:
    """How a list member or a stored boolean spells a value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _equal(k: _Key, value: Scalar, params: list[Any]) -> str:
    """The stored scalar equals ``value`` (typed; 0 for lists and missing keys)."""
    if isinstance(value, bool):
        return f"({k.type_is('string')} AND {k.value()} = ?)" + _push(params, _text(value))
    if not isinstance(value, str):
        return f"({k.type_is('number')} AND {k.value()} = ?)" + _push(params, value)
    branches = [f"({k.type_is('string')} AND {k.value()} = ?)" + _push(params, value)]
    if (span := _date_range(value)) is not None:
        branches.append(
            f"({k.type_is('date')} AND {k.value()} BETWEEN ? AND ?)" + _push(params, *span)
        )
    return "(" + " OR ".join(branches) + ")"


def _push(params: list[Any], *values: Any) -> str:
    params += values
    return ""


def _same_type(k: _Key, values: tuple[Scalar, ...]) -> str:
    """The key holds a scalar these values can be compared with (the presence rule of
    ``ne`` and ``nin``; values are of one type)."""
    first = values[0]
    if isinstance(first, bool):
        return f"({k.type_is('string')} AND {k.value()} IN ('true', 'false'))"
    if not isinstance(first, str):
        return k.type_is("number")
    kinds = [k.type_is("string")]
    if any(_date_range(str(v)) is not None for v in values):
        kinds.append(k.type_is("date"))
    return "(" + " OR ".join(kinds) + ")"


def _any_member(k: _Key, values: tuple[Scalar, ...], params: list[Any]) -> str:
    """A stored scalar equals one of ``values``, or a stored list holds one of them. The
    values travel as one JSON array parameter each way (``json_each``), so a membership
    costs a constant number of SQL parameters, whatever its length. Parameters are
    pushed in the order the SQL text reads them."""
    first = values[0]
    branches: list[str] = []
    if isinstance(first, (bool, str)):
        is_string = k.type_is("string")
        stored = k.value()
        wanted = [_text(v) for v in values] if isinstance(first, bool) else list(values)
        params.append(json.dumps(wanted))
        branches.append(f"({is_string} AND {stored} IN (SELECT value FROM json_each(?)))")
        spans = [s for v in values if isinstance(v, str) and (s := _date_range(v))]
        if spans:
            is_date = k.type_is("date")
            params.append(json.dumps(spans))
            moment = k.value()
            branches.append(
                f"({is_date} AND EXISTS (SELECT 1 FROM json_each(?) AS span WHERE {moment} "
                "BETWEEN json_extract(span.value, '$[0]') AND json_extract(span.value, '$[1]')))"
            )
    else:
        is_number = k.type_is("number")
        stored = k.value()
        params.append(json.dumps(list(values)))
        branches.append(f"({is_number} AND {stored} IN (SELECT value FROM json_each(?)))")
    is_list = k.type_is("list")
    members = k.members()
    params.append(json.dumps(list(dict.fromkeys(_text(v) for v in values))))
    branches.append(
        f"({is_list} AND EXISTS (SELECT 1 FROM {members} AS member "
        "WHERE member.value IN (SELECT value FROM json_each(?))))"
    )
    return "(" + " OR ".join(branches) + ")"


def _leaf(leaf: Leaf, column: str, params: list[Any]) -> str:
    k = _Key(leaf.key, column, params)
    op, value = leaf.op, leaf.value
    if op == "exists":
        return k.present(bool(value))
    if op == "eq":
        assert value is not None
        return _equal(k, value, params)
    if op == "ne":
        assert value is not None
        same = _same_type(k, (value,))
        return f"({same} AND NOT {_equal(k, value, params)})"
    if op in ORDERING:
        return _order(k, op, value, params)
    if op == "in":
        return _any_member(k, leaf.values, params)
    if op == "nin":
        present = f"{k.type_is('list')} OR {_same_type(k, leaf.values)}"
        return f"(({present}) AND NOT {_any_member(k, leaf.values, params)})"
    # all: a list holding every requested member
    texts = list(dict.fromkeys(_text(v) for v in leaf.values))
    is_list = k.type_is("list")  # parameters are pushed in the order the SQL reads them
    members = k.members()
    params.append(json.dumps(texts))
    counted = (
        f"(SELECT count(DISTINCT member.value) FROM {members} AS member "
        "WHERE member.value IN (SELECT value FROM json_each(?)))"
    )
    return f"({is_list} AND {counted} = ?)" + _push(params, len(texts))


def _order(k: _Key, op: str, value: Scalar | None, params: list[Any]) -> str:
    sign = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}[op]
    if isinstance(value, str):
        span = _date_range(value)
        assert span is not None  # checked when parsed
        first, last = span
        # gt/lte compare with the end of a day or period, gte/lt with its start
        bound = last if op in ("gt", "lte") else first
        return f"({k.type_is('date')} AND {k.value()} {sign} ?)" + _push(params, bound)
    return f"({k.type_is('number')} AND {k.value()} {sign} ?)" + _push(params, value)
