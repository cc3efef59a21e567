"""The lean path: a command line the registry fully explains runs without typer.

Building the typer app costs more than a search, so ``parse`` reads the line against the
registry's CLI binding alone and hands ``runner.run`` the values typer would. It answers only
when sure: global options, command words, the binding's options (``--name value``,
``--name=value``, flags) and positionals, decimal numbers, ``--``. Anything else (help,
completion, an unknown or abbreviated option, a missing or malformed value, a value starting
with ``-``, an extra positional, a prompt) returns None, and typer parses the line as before.
"""

from __future__ import annotations

import os
import re
from typing import Any

from gno_contracts.operations import (
    BY_ID,
    CLI_ALONE,
    CLI_GLOBALS,
    CLI_GROUPS,
    CLI_OPERATIONS,
    CliParam,
    CliShape,
    Operation,
)

INT = re.compile(r"(?:0|[1-9][0-9]{0,17})\Z")
FLOAT = re.compile(r"(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?\Z")
SURROGATE = re.compile("[\ud800-\udfff]")  # the only code points UTF-8 cannot encode
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
    # completion, or undecodable bytes (surrogate escapes): typer's conversion decides
    if os.environ.get("_GNO_COMPLETE") or any(SURROGATE.search(a) for a in argv):
        return None
    read = _read(CLI_GLOBALS, argv, command=True)
    found = None if read is None else _command(read[1])
    if read is None or found is None:
        return None
    op, rest, positionals = found
    shape = op.cli_shape
    if shape is None or shape.prompt:  # a prompt is typer's (runner.ask)
        return None
    options = _read(shape.params, rest, command=False)
    if options is None or (options[1] and not positionals):
        return None
    values = _positionals(shape, *options)
    return None if values is None else (read[0], op, values)


def _read(
    params: tuple[CliParam, ...], argv: list[str], command: bool
) -> tuple[dict[str, Any], list[str]] | None:
    """The values of ``params``' options on ``argv``, and its other words; with ``command``,
    the options before the command (the global ones) and the words from the command on."""
    by_flag = {f: p for p in params for f in p.flags}
    values: dict[str, Any] = {
        p.name: False if (p.kind == "bool" and p.flags) else None for p in params
    }
    words: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            if command:
                return None
            words.extend(argv[i:])
            break
        if not arg.startswith("-") or arg == "-":
            if command:
                return values, argv[i - 1 :]
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
    return values, words


def _positionals(
    shape: CliShape, values: dict[str, Any], words: list[str]
) -> dict[str, Any] | None:
    """Positionals in declaration order; a list one (only ever the last: schemas/generate.py)
    takes what is left. Too few or too many is typer's error to report."""
    for p in [p for p in shape.params if not p.flags]:
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
