"""Values a JSON parser lets through that no handler can use, found before any handler runs.

Python's ``json`` (and JSON itself) accepts ``"\\ud800"``: a lone UTF-16 surrogate, which
is no Unicode text (SQLite, UTF-8 encoders and the MCP SDK's parser all reject it), and
Python's parser accepts ``NaN``/``Infinity``, which are no JSON numbers and compare false
with every schema bound. Both are refused at the surfaces as the caller's input error,
naming where they are. The walk is iterative: nesting depth costs no stack.
"""

from __future__ import annotations

import math
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_SHOWN_PATH = 80
# No gno input nests more than a few levels; deeper values would only reach validators
# that recurse once per level (jsonschema's enum/const comparison, pydantic) and could
# exhaust the stack there, so they are refused here, before anything recurses.
MAX_DEPTH = 64


def _where(trail: list[tuple[int, str | int]], at: int) -> str:
    """The dotted path of node ``at``, rebuilt from parent links only when reported."""
    parts: list[str] = []
    while at > 0:
        at, key = trail[at]
        parts.append(str(key))
    shown = ".".join(reversed(parts)) or "input"
    return shown if len(shown) <= MAX_SHOWN_PATH else shown[:MAX_SHOWN_PATH] + "…"


def unusable_value(value: Any) -> str | None:
    """The first lone surrogate (in a string or a key), non-finite number or nesting deeper
    than ``MAX_DEPTH`` in ``value``, as a message naming its place; None when there is none."""
    trail: list[tuple[int, str | int]] = [(0, "")]  # node id -> (parent id, key); 0 = root
    stack: list[tuple[Any, int, int]] = [(value, 0, 0)]
    while stack:
        node, at, depth = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return f"{_where(trail, at)}: text holds a lone UTF-16 surrogate (not Unicode)"
        elif isinstance(node, float):
            if not math.isfinite(node):
                return f"{_where(trail, at)}: {node} is not a JSON number"
        elif isinstance(node, dict | list):
            if depth >= MAX_DEPTH:
                return f"{_where(trail, at)}: nested deeper than {MAX_DEPTH} levels"
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, item in items:
                if isinstance(key, str) and _SURROGATE.search(key):
                    return f"{_where(trail, at)}: a key holds a lone UTF-16 surrogate (not Unicode)"
                trail.append((at, key))
                stack.append((item, len(trail) - 1, depth + 1))
    return None


def reject_constant(name: str) -> Any:
    """``json.loads(parse_constant=...)``: NaN, Infinity and -Infinity are no JSON."""
    raise ValueError(f"{name} is not a JSON number")


def whole_numbers(schema: dict[str, Any], value: Any, root: dict[str, Any] | None = None) -> Any:
    """``value`` with each whole float where ``schema`` wants an integer made an int. JSON has
    one number type: ``3.0`` is the integer 3 to a JSON Schema (and to GNO's JavaScript);
    a strict model refuses the float. Follows the schema's properties, items and local
    ``$ref``s only, so it recurses no deeper than the schema does."""
    root = root if root is not None else schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        schema = root.get("$defs", {}).get(ref.removeprefix("#/$defs/"), {})
    kind = schema.get("type")
    wants_int = kind == "integer" or (isinstance(kind, list) and "integer" in kind)
    if wants_int and isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    props = schema.get("properties")
    if isinstance(value, dict) and isinstance(props, dict):
        return {k: whole_numbers(props.get(k, {}), v, root) for k, v in value.items()}
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        return [whole_numbers(items, v, root) for v in value]
    return value
