"""The lean path: a command line the registry fully explains runs without typer.

Building the typer app (every command, each parameter coerced through pydantic) costs
more than a search itself, so ``parse`` reads the line against the registry's CLI
binding alone and hands the same values typer would to ``runner.run``. It answers only
for what it is sure of: global options, the command words, the binding's options
(``--name value``, ``--name=value``, flags) and positionals, decimal numbers, ``--``.
Anything else (help, completion, a non-registry command, an unknown or abbreviated
option, a missing or malformed value, a value starting with ``-``, an extra positional,
setup's prompt) returns None and typer parses the line, errors and all, as before.
"""

from __future__ import annotations

import os
import re
from typing import Any

from gno_contracts.operations import (
    BY_ID,
    CLI_ALONE,
    CLI_GLOBAL_FLAGS,
    CLI_GLOBAL_VALUES,
    CLI_GROUPS,
    CLI_OPERATIONS,
    CliShape,
    Operation,
)

INT = re.compile(r"(?:0|[1-9][0-9]{0,17})\Z")
FLOAT = re.compile(r"(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?\Z")
DEPTH = max(command.count(" ") + 1 for command in CLI_OPERATIONS)


def _command(argv: list[str]) -> tuple[Operation, list[str], bool] | None:
    """The longest registry command the line starts with (`search`, `graph query`,
    `collection policy get`), the words after it, and whether positionals may follow (not
    when the command is itself a group: a word there would be a subcommand); else what a
    group word runs alone (`gno tags`)."""
    for n in range(min(len(argv), DEPTH), 0, -1):
        command = " ".join(argv[:n])
        if command in CLI_OPERATIONS:
            return BY_ID[CLI_OPERATIONS[command]], argv[n:], command not in CLI_GROUPS
    if argv and argv[0] in CLI_ALONE:
        return BY_ID[CLI_ALONE[argv[0]]], argv[1:], False
    return None


def _value(kind: str, raw: str) -> Any:
    """A value as typer converts it, or None when the lean path is not sure."""
    if raw.startswith("-"):
        return None
    if kind == "int":
        return int(raw) if INT.match(raw) else None
    if kind == "float":
        return float(raw) if FLOAT.match(raw) else None
    return raw


def parse(argv: list[str]) -> tuple[dict[str, Any], Operation, dict[str, Any]] | None:
    """(global options, operation, the values typer would pass) or None (let typer parse)."""
    if os.environ.get("_GNO_COMPLETE") or any(_unencodable(a) for a in argv):
        return None
    globals_: dict[str, Any] = {}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        name, eq, raw = argv[i].partition("=")
        if name in CLI_GLOBAL_VALUES:
            if not eq:
                if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                    return None
                raw, i = argv[i + 1], i + 1
            globals_[CLI_GLOBAL_VALUES[name]] = raw
        elif argv[i] in CLI_GLOBAL_FLAGS:
            globals_[CLI_GLOBAL_FLAGS[argv[i]]] = True
        else:
            return None
        i += 1
    found = _command(argv[i:])
    if found is None:
        return None
    op, rest, positionals = found
    if op.cli_shape is None or op.cli_shape.prompt:  # a prompt is typer's (runner.ask)
        return None
    values = _options(op.cli_shape, rest, positionals)
    return None if values is None else (globals_, op, values)


def _unencodable(arg: str) -> bool:
    """Undecodable bytes on the line (surrogate escapes): typer's conversion decides."""
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _options(shape: CliShape, argv: list[str], positionals: bool) -> dict[str, Any] | None:
    by_flag = {f: p for p in shape.params for f in p.flags}
    values: dict[str, Any] = {
        p.name: False if (p.kind == "bool" and p.flags) else None for p in shape.params
    }
    words: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            words.extend(argv[i:])
            break
        if not arg.startswith("-") or arg == "-":
            words.append(arg)
            continue
        name, eq, raw = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name not in by_flag:
            return None
        p = by_flag[name]
        if p.kind == "bool" and p.flags:
            if eq:
                return None  # a flag takes no value: typer says so
            values[p.name] = True
            continue
        if not eq:
            if i >= len(argv):
                return None
            raw, i = argv[i], i + 1
        value = _value("str" if p.kind == "list" else p.kind, raw)
        if value is None:
            return None
        if p.kind == "list":
            values[p.name] = [*(values[p.name] or []), value]
        else:
            values[p.name] = value
    if words and not positionals:
        return None
    return _positionals(shape, words, values)


def _positionals(
    shape: CliShape, words: list[str], values: dict[str, Any]
) -> dict[str, Any] | None:
    """Positionals in declaration order; a list one takes what is left. Too few or too many
    is typer's error to report."""
    args = [p for p in shape.params if not p.flags]
    listed = [p for p in args if p.kind == "list"]
    if len(listed) > 1 or (listed and listed[0] is not args[-1]):
        return None
    for p in args:
        if p.kind == "list":
            if not words and p.required:
                return None
            values[p.name] = list(words) if words else None
            words = []
        elif words:
            value = _value(p.kind, words.pop(0)) if p.kind != "str" else words.pop(0)
            if value is None:
                return None
            values[p.name] = value
        elif p.required:
            return None
    return None if words else values
