"""`gno setup` on a terminal: ask for what the flags left out (the folder, a model preset).

Scripts give the folder as an argument; without one and without a terminal (or with
--yes) setup is a usage error instead of a prompt that would hang a pipe."""

from __future__ import annotations

import sys
from typing import Any

from gno.errors import ValidationError

PRESETS = ("slim-tuned", "slim", "balanced", "quality")


def _interactive() -> bool:
    """A terminal on both ends, and no global --yes (which never prompts)."""
    try:  # typer's own (vendored) click holds the running command's context
        from typer._click.globals import get_current_context
    except ImportError:  # pragma: no cover - an older typer on plain click
        from click import get_current_context  # type: ignore[no-redef]

    context = get_current_context(silent=True)
    settings = context.find_root().obj if context is not None else None
    if getattr(settings, "yes", False):
        return False
    return sys.stdin.isatty() and sys.stderr.isatty()


def prepare(op_id: str, fields: dict[str, Any], fmt: str | None) -> tuple[str, dict[str, Any]]:
    if fields.get("path"):
        return op_id, fields
    if not _interactive():
        raise ValidationError(
            "Missing folder: gno setup <folder> (asked for only on a terminal, never with --yes)"
        )
    import typer

    fields["path"] = typer.prompt("Folder to index", err=True).strip()
    if "preset" not in fields:
        choice = typer.prompt(
            f"Model preset ({', '.join(PRESETS)})", default=PRESETS[0], err=True
        ).strip()
        fields["preset"] = choice
    return op_id, fields
