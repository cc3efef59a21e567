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


def _where(trail: list[tuple[int, str | int]], at: int) -> str:
    """The dotted path of node ``at``, rebuilt from parent links only when reported."""
    parts: list[str] = []
    while at > 0:
        at, key = trail[at]
        parts.append(str(key))
    shown = ".".join(reversed(parts)) or "input"
    return shown if len(shown) <= MAX_SHOWN_PATH else shown[:MAX_SHOWN_PATH] + "…"


def unusable_value(value: Any) -> str | None:
    """The first lone surrogate (in a string or a key) or non-finite number in ``value``,
    as a message naming its place; None when there is none."""
    trail: list[tuple[int, str | int]] = [(0, "")]  # node id -> (parent id, key); 0 = root
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return f"{_where(trail, at)}: text holds a lone UTF-16 surrogate (not Unicode)"
        elif isinstance(node, float):
            if not math.isfinite(node):
                return f"{_where(trail, at)}: {node} is not a JSON number"
        elif isinstance(node, dict | list):
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, item in items:
                if isinstance(key, str) and _SURROGATE.search(key):
                    return f"{_where(trail, at)}: a key holds a lone UTF-16 surrogate (not Unicode)"
                trail.append((at, key))
                stack.append((item, len(trail) - 1))
    return None


def reject_constant(name: str) -> Any:
    """``json.loads(parse_constant=...)``: NaN, Infinity and -Infinity are no JSON."""
    raise ValueError(f"{name} is not a JSON number")
