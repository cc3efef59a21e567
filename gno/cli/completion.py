"""`gno completion bash|zsh|fish` (print the script) and `gno completion install` (write it
where the shell loads it). The script calls `gno` back with `_GNO_COMPLETE` set, and typer
answers from the command tree: every registry command and flag completes."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from gno.cli.output import write
from gno.errors import ValidationError
from gno.paths import SHELLS, install_completion, login_shell

COMPLETE_VAR = "_GNO_COMPLETE"


def script(shell: str) -> str:
    from typer._completion_shared import get_completion_script

    if shell not in SHELLS:
        raise ValidationError(f"Unknown shell {shell!r}: use bash, zsh or fish")
    return get_completion_script(prog_name="gno", complete_var=COMPLETE_VAR, shell=shell) + "\n"


def completion(
    ctx: typer.Context,
    action: Annotated[str, typer.Argument(help="bash, zsh or fish (print), or install.")],
    shell: Annotated[
        str | None,
        typer.Option("--shell", help="With install: bash, zsh or fish (default: $SHELL)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="With install: JSON output.")] = False,
) -> None:
    """Shell completion: print a shell's script (`source <(gno completion bash)`), or
    `install` it where the shell loads it (no rc file is edited)."""
    if action != "install":
        if shell is not None or as_json:
            raise ValidationError("--shell and --json go with `gno completion install`")
        write(script(action))
        return
    chosen = shell or login_shell()
    text = script(chosen)
    path, note = install_completion(chosen, text)
    if as_json or ctx.find_root().obj.json:
        write(json.dumps({"installed": {"shell": chosen, "path": str(path), "next": note}}))
    else:
        write(f"Installed {chosen} completion at {path}; {note}.")
