"""The typer application: global options, the command groups, and the registry's commands
(``commands.register``); `serve`, `daemon` and the stdio `mcp` server, which are no
operations, come from ``server``, `completion` from ``completion``."""

from __future__ import annotations

import sys
from typing import Any

import typer
from gno_contracts.operations import CLI_COMMANDS, CLI_GLOBALS

from gno import __version__
from gno.cli import commands, completion, server
from gno.cli.commands import option
from gno.cli.settings import Settings


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"gno {__version__}\n")
        raise typer.Exit(0)


def _skill(value: bool) -> None:
    """`gno --skill`: the bundled SKILL.md (how an agent uses gno), as GNO prints its own."""
    if value:
        from importlib.resources import files

        sys.stdout.write(files("gno.skill").joinpath("SKILL.md").read_text(encoding="utf-8"))
        raise typer.Exit(0)


def main(ctx: typer.Context, version: bool, skill: bool, **options: Any) -> None:
    ctx.obj = Settings(**options)
    if ctx.invoked_subcommand is None:  # `gno` alone: what it is and how to start
        from gno.render.usage import usage

        sys.stdout.write(usage(options["json"]))


ROOT = [
    *(commands.parameter(p) for p in CLI_GLOBALS),
    option("version", bool, "-V", "--version", default=False, callback=_version, is_eager=True, help="Print the version."),
    option("skill", bool, "--skill", default=False, callback=_skill, is_eager=True, help="Print SKILL.md and exit."),
]  # fmt: skip


def build(words: frozenset[str] | None = None) -> typer.Typer:
    """The typer app. With ``words`` (the command line's), only the commands named there get
    their parameters: building every parameter of every command was most of `gno --help`."""
    app = typer.Typer(
        name="gno",
        help=CLI_COMMANDS[""],
        no_args_is_help=False,
        add_completion=False,
        context_settings={"help_option_names": ["-h", "--help"]},
        rich_markup_mode=None,
    )
    app.callback(invoke_without_command=True)(commands.command(ROOT, main))
    groups = commands.groups(app)
    app.command("completion")(completion.completion)
    server.register_mcp(groups["mcp"])
    commands.register(groups, words)
    server.register(app)
    return app


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole app, as tests and the --help snapshots read it
        return build()
    raise AttributeError(name)
