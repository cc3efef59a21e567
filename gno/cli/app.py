"""The typer application: global options and the command groups.

The operation commands are built from the registry (``runner.register``): each
turns its flags into the operation's generated input model, calls the registry
handler and renders the generated output model; its help line is the registry
summary. `serve`, `daemon` and the stdio `mcp` server are not operations and are
declared in ``server`` and ``mcp``.
"""

from __future__ import annotations

import sys
import typing
from typing import Annotated

import typer

from gno import __version__
from gno.cli.settings import settings

app = typer.Typer(
    name="gno",
    help="gno — local-first knowledge engine: index folders, search them from the CLI, MCP, REST and a Web UI.",
    no_args_is_help=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
)
collection_app = typer.Typer(help="Manage collections (indexed folders).", rich_markup_mode=None)
app.add_typer(collection_app, name="collection")
models_app = typer.Typer(
    help="Models: what each role uses and the local cache.", rich_markup_mode=None
)
app.add_typer(models_app, name="models")
context_app = typer.Typer(
    help="Context: configured guidance, and Context Capsules (build, verify).",
    rich_markup_mode=None,
)
app.add_typer(context_app, name="context")
# `gno mcp`: the stdio server (the group's default action, gno/cli/mcp.py) and
# `mcp install | status | uninstall`, which register it in AI clients' configs.
mcp_app = typer.Typer(
    help="MCP: serve gno to AI clients over stdio, and register it in their configs.",
    rich_markup_mode=None,
)
app.add_typer(mcp_app, name="mcp")
skill_app = typer.Typer(
    help="Agent skills: install gno's SKILL.md where Claude, Codex, OpenCode, OpenClaw and Hermes read skills.",
    rich_markup_mode=None,
)
app.add_typer(skill_app, name="skill")


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


@app.callback(invoke_without_command=True)
def main(
    ctx: typer.Context,
    index: Annotated[
        str | None, typer.Option("--index", help="Index name (one SQLite file each).")
    ] = None,
    config: Annotated[str | None, typer.Option("--config", help="Path of index.yml.")] = None,
    json_: Annotated[
        bool, typer.Option("--json", help="JSON output (errors as error@1.0 on stderr).")
    ] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Only essential output.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", help="Diagnostics on stderr.")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="Never prompt; accept safe defaults.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="Plain output.")] = False,
    offline: Annotated[bool, typer.Option("--offline", help="Use cached models only.")] = False,
    no_pager: Annotated[bool, typer.Option("--no-pager", help="Never page output.")] = False,
    version: Annotated[
        bool,
        typer.Option(
            "-V", "--version", callback=_version, is_eager=True, help="Print the version."
        ),
    ] = False,
    skill: Annotated[
        bool,
        typer.Option("--skill", callback=_skill, is_eager=True, help="Print SKILL.md and exit."),
    ] = False,
) -> None:
    ctx.obj = settings(
        index=index, config=config, json=json_, quiet=quiet, verbose=verbose, yes=yes,
        no_color=no_color, offline=offline, no_pager=no_pager,
    )  # fmt: skip
    if ctx.invoked_subcommand is None:  # `gno` alone: what it is and how to start
        from gno.render.usage import usage

        sys.stdout.write(usage(json_))


# Root options GNO also accepts after the command (entry.py moves them to the front);
# --json and --version stay where they are (commands have a --json of their own).
NOT_HOISTED = frozenset({"--json", "--version", "-V", "--skill"})


def global_options() -> tuple[frozenset[str], frozenset[str]]:
    """(options taking a value, flags) of the root command, read from ``main``'s declaration,
    so the global options are declared once."""
    with_value: set[str] = set()
    flags: set[str] = set()
    for name, hint in typing.get_type_hints(main, include_extras=True).items():
        args = typing.get_args(hint)
        info = next((a for a in args[1:] if isinstance(a, typer.models.OptionInfo)), None)
        if name == "return" or info is None:
            continue
        # In an Annotated typer.Option the first name sits in ``default``.
        first = [info.default] if isinstance(info.default, str) else []
        decls = {*first, *(info.param_decls or ())} - NOT_HOISTED
        (flags if args[0] is bool else with_value).update(decls)
    return frozenset(with_value), frozenset(flags)


from gno.cli import commands, completion, mcp, server  # noqa: E402  (they import this module's settings)

completion.register(app)

mcp.register(mcp_app)
commands.register(
    {
        "": app,
        "collection": collection_app,
        "models": models_app,
        "mcp": mcp_app,
        "skill": skill_app,
        "context": context_app,
    }
)
server.register(app)
