"""Rendering command results: JSON (the schema object) and the text formats.

Everything the CLI prints goes through here: ``write`` (text to stdout),
``write_err`` (text to stderr) and ``write_json`` (an output model as its schema
object). The texts themselves come from the registry's renderers (gno/render/).
"""

from __future__ import annotations

import json
import sys
from typing import Any


def dump(model: Any) -> dict[str, Any] | list[Any]:
    """The wire form: fields the handler set (explicit nulls included), JSON types."""
    return model.model_dump(mode="json", exclude_unset=True)  # type: ignore[no-any-return]


def _line(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def write(text: str) -> None:
    sys.stdout.write(_line(text))


def write_err(text: str) -> None:
    """Text to stderr (errors, warnings, explain lines)."""
    sys.stderr.write(_line(text))


def write_json(model: Any) -> None:
    write(json.dumps(dump(model), indent=2, ensure_ascii=False))
