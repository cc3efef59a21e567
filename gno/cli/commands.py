"""The typer commands of the registry operations: ``register`` turns each CLI binding
(schemas/operations.yaml ``cli``) into a command whose arguments and options are the
binding's, so --help, completion and parsing of every spelling are typer's own; the
command hands its values to ``runner.run``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer
from gno_contracts.operations import CLI_FORMATS, OPERATIONS, CliParam, Operation

from gno.cli import runner
from gno.cli.settings import Settings

KINDS: dict[str, Any] = {"bool": bool, "int": int, "float": float, "str": str, "list": list[str]}
Param = inspect.Parameter


def settings(ctx: typer.Context) -> Settings:
    return ctx.find_root().obj


def run(ctx: typer.Context, op: Operation, values: dict[str, Any]) -> None:
    code = runner.run(settings(ctx), op, values)
    if code:
        raise typer.Exit(code)


def parameter(p: CliParam) -> Param:
    """The typer parameter of one registry argument or option."""
    if p.kind == "bool" and p.flags:
        option = typer.Option(*p.flags, help=p.help)
        return Param(p.name, Param.KEYWORD_ONLY, annotation=Annotated[bool, option], default=False)
    kind = KINDS[p.kind]
    if not p.flags:
        argument = typer.Argument(help=p.help)
        if p.required:
            return Param(p.name, Param.KEYWORD_ONLY, annotation=Annotated[kind, argument])
        return Param(
            p.name, Param.KEYWORD_ONLY, annotation=Annotated[kind | None, argument], default=None
        )
    # The schema default applies when the option is absent; --help still names it.
    shown = f"{p.help}  [default: {p.shown}]" if p.shown is not None else p.help
    option = typer.Option(*p.flags, help=shown)
    return Param(
        p.name, Param.KEYWORD_ONLY, annotation=Annotated[kind | None, option], default=None
    )


def format_parameters(formats: tuple[str, ...]) -> list[Param]:
    """The output format flags (declared once, in the registry's ``cli_formats``)."""
    return [
        Param(
            f"format_{name}",
            Param.KEYWORD_ONLY,
            annotation=Annotated[bool, typer.Option(f"--{name}", help=CLI_FORMATS[name])],
            default=False,
        )
        for name in formats
    ]


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


def register(groups: dict[str, typer.Typer]) -> None:
    """Add a command for every operation with a CLI binding, in registry order.

    A first word no group owns yet (`graph` of `graph query`) becomes a group; the
    operation whose command is that word alone, or a two-word one marked ``default``
    (`tags list`), is what the group runs when invoked without a subcommand."""
    shapes = [op.cli_shape for op in OPERATIONS if op.cli_shape is not None]
    # Every proper prefix of a command is a group: `collection policy get` makes
    # `collection` and `collection policy` (a subgroup, attached below).
    prefixes = {
        " ".join(words[:i])
        for words in (s.command.split() for s in shapes)
        for i in range(1, len(words))
    }
    for word in sorted(prefixes - set(groups)):
        groups[word] = typer.Typer(
            invoke_without_command=True, rich_markup_mode=None, add_completion=False
        )
    defaults: set[str] = set()
    for op in OPERATIONS:
        shape = op.cli_shape
        if shape is None:
            continue
        *group, name = shape.command.split()
        params = [parameter(p) for p in shape.params] + format_parameters(shape.formats)

        def body(ctx: typer.Context, _op: Operation = op, **values: Any) -> None:
            run(ctx, _op, values)

        def alone(ctx: typer.Context, _op: Operation = op, **values: Any) -> None:
            if ctx.invoked_subcommand is None:
                run(ctx, _op, values)

        if not group and name in groups:  # `graph` itself, beside `graph query`
            groups[name].callback(help=op.summary)(command(params, alone, op.summary))
            defaults.add(name)
            continue
        groups[" ".join(group)].command(name, help=op.summary)(command(params, body))
        if shape.default and group[0] not in defaults:
            groups[group[0]].callback(help=op.summary)(command(params, alone, op.summary))
            defaults.add(group[0])
    root = groups[""]
    for word in sorted(prefixes):
        *parent, last = word.split()
        above = groups[" ".join(parent)] if parent else root
        if not any(g.name == last for g in above.registered_groups):
            above.add_typer(groups[word], name=last)
