"""Terminal renderings of operation results: the output model in, text out.

The registry names each CLI command's renderer (``cli.render``) and exit rule
(``cli.exit``); ``gno/cli/runner.py`` calls them. Renderers never see a dict: they
read the generated output models, the same objects MCP and REST serialize.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from gno.core.wire import Wire

# json.dumps escapes C0 itself; DEL and C1 it leaves raw unless ensure_ascii.
_JSON_RAW = re.compile("[\x7f-\x9f]")


# Python's json indents in pure Python: 13 ms for `gno graph --json` on the bench corpus
# (358 KB), 42 ms for a page of 1,000 journal entries (1.4 MB). orjson writes the same text
# in 0.3 and 3 ms but costs 4-6 ms to import, so it takes only answers past this size.
_LARGE_JSON = 160 * 1024  # estimated compact characters


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """JSON with every control character escaped: the data stays intact, a terminal sees
    none of it raw. Keys keep their order; a large answer is the same text, written
    faster (a float below 1e-4 as REST writes it: ``1e-7`` for Python's ``1e-07``)."""
    text = _large_json(value) if indent == 2 and _estimated_size(value) > _LARGE_JSON else None
    if text is None:
        text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _estimated_size(value: Any) -> int:
    """A cheap guess at an answer's compact JSON size: each top-level list as long as
    its first item times its length (an answer's bulk is its lists of hits, nodes,
    entries)."""
    if isinstance(value, list):
        lists = [value]
    elif isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
    else:
        return 0
    return sum(
        len(items) * len(json.dumps(items[0], ensure_ascii=False)) for items in lists if items
    )


def _large_json(value: Any) -> str | None:
    import orjson

    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONEncodeError:  # an integer past 64 bits, a key that is not a string
        return None


def dump(model: Any) -> dict[str, Any] | list[Any]:
    """The wire form: fields the handler set (explicit nulls included), JSON types. The
    lean read path's ``Wire`` holds that form already (gno/services/wire.py)."""
    if isinstance(model, Wire):
        return model.wire
    return model.model_dump(mode="json", exclude_unset=True)


@dataclass(frozen=True)
class View:
    """How the user asked to see a result: the output format (None = terminal text)
    and the display flags of the command."""

    fmt: str | None = None
    full: bool = False
    line_numbers: bool = False
    streamed: str | None = None  # text already written to the terminal while generated
    color: bool = False  # terminal text may carry gno's ANSI styles (render/style.py)
    quiet: bool = False  # -q: results only, no summary lines


@dataclass(frozen=True)
class Shown:
    """What a renderer produced: text for stdout (None = nothing), lines for stderr
    and the exit code."""

    out: str | None = None
    err: str = ""
    code: int = 0
    styled: bool = False  # ``out`` is terminal-safe already and carries gno's own styles


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    return '"' + escape(text).replace('"', "&quot;") + '"'


def size(n: float) -> str:
    """Bytes for people: 512 B, 1.5 KiB, 3.2 GiB."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"
