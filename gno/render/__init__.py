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


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """JSON with every control character escaped: the data stays intact, a terminal sees
    none of it raw."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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
