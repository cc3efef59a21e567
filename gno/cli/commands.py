"""The typer commands of the registry operations: each CLI binding (schemas/operations.yaml
``cli``) becomes a command with the binding's arguments and options, so --help, completion
and parsing are typer's own; the command hands its values to ``runner.run``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer
from gno_contracts.operations import (
    CLI_ALONE,
    CLI_COMMANDS,
    CLI_GROUPS,
    OPERATIONS,
    CliParam,
    Operation,
)

from gno.cli import runner
from gno.cli.settings import Settings

KINDS: dict[str, Any] = {"bool": bool, "int": int, "float": float, "str": str, "list": list[str]}
Param = inspect.Parameter


def settings(ctx: typer.Context) -> Settings:
    return ctx.find_root().obj


def option(name: str, kind: Any, *flags: str, default: Any = None, **more: Any) -> Param:
    """One parameter of a typer command: an option with ``flags``, an argument without;
    ``more`` is typer's (help, min, hidden, ...)."""
    info = typer.Option(*flags, **more) if flags else typer.Argument(**more)
    return Param(name, Param.KEYWORD_ONLY, annotation=Annotated[kind, info], default=default)


def parameter(p: CliParam) -> Param:
    """The typer parameter of one registry argument or option."""
    if p.kind == "bool" and p.flags:
        return option(p.name, bool, *p.flags, default=False, help=p.help)
    kind = KINDS[p.kind]
    if not p.flags and p.required:
        return option(p.name, kind, default=Param.empty, help=p.help)
    # The schema default applies when the option is absent; --help still names it.
    shown = f"{p.help}  [default: {p.shown}]" if p.shown is not None and p.flags else p.help
    return option(p.name, kind | None, *p.flags, help=shown)


def command(
    params: list[Param], body: Callable[..., None], doc: str | None = None
) -> Callable[..., None]:
    """A function typer can read: ``ctx`` then ``params``, calling ``body(ctx, **values)``."""

    def invoke(ctx: typer.Context, **values: Any) -> None:
        body(ctx, **values)

    every = [Param("ctx", Param.POSITIONAL_OR_KEYWORD, annotation=typer.Context), *params]
    invoke.__signature__ = inspect.Signature(every)  # type: ignore[attr-defined]
    invoke.__annotations__ = {p.name: p.annotation for p in every} | {"return": None}
    invoke.__doc__ = doc
    return invoke


def groups(root: typer.Typer) -> dict[str, typer.Typer]:
    """Every command group by its words ("" is ``root``), attached to its parent in registry
    order (``CLI_GROUPS``), with its help line from ``cli_commands`` if any."""
    found = {"": root}
    for word in CLI_GROUPS:
        found[word] = (
            typer.Typer(help=CLI_COMMANDS[word], rich_markup_mode=None)
            if word in CLI_COMMANDS
            else typer.Typer(
                invoke_without_command=True, rich_markup_mode=None, add_completion=False
            )
        )
    for word in CLI_GROUPS:
        *parent, last = word.split()
        found[" ".join(parent)].add_typer(found[word], name=last)
    return found


def register(groups: dict[str, typer.Typer], words: frozenset[str] | None = None) -> None:
    """A command for every operation with a CLI binding, in registry order; with ``words``,
    one whose first word is not among them gets its help line only. A group runs alone
    (``CLI_ALONE``) the operation named by its word (`graph`) or marked ``default`` (`tags
    list`)."""
    for op in OPERATIONS:
        shape = op.cli_shape
        if shape is None:
            continue
        *group, name = shape.command.split()
        named = words is None or (group or [name])[0] in words
        params = [parameter(p) for p in shape.params] if named else []

        def body(ctx: typer.Context, _op: Operation = op, **values: Any) -> None:
            # a group's own action runs only alone
            if ctx.invoked_subcommand is None and (code := runner.run(settings(ctx), _op, values)):
                raise typer.Exit(code)

        if shape.command in CLI_GROUPS:  # `graph` itself, beside `graph query`
            groups[shape.command].callback(help=op.summary)(command(params, body, op.summary))
            continue
        groups[" ".join(group)].command(name, help=op.summary)(command(params, body))
        if shape.default and CLI_ALONE[group[0]] == op.id:
            groups[group[0]].callback(help=op.summary)(command(params, body, op.summary))
