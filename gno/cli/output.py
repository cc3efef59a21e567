"""Rendering command results: JSON (the schema object) and the text formats.

Everything the CLI prints goes through ``write``/``write_err`` (text, made
``terminal_safe``) or ``json_text`` (JSON, control characters escaped): indexed data
(titles, file names, snippets) is hostile, and a control sequence in it must not reach the
terminal (set its title, clear it, move the cursor, answer back), with or without colour. The texts themselves come from the
registry's renderers (gno/render/).
"""

from __future__ import annotations

import os
import sys

from gno.render.style import terminal_safe


def _line(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def write(text: str) -> None:
    """Human text to stdout, terminal-safe."""
    sys.stdout.write(_line(terminal_safe(text)))


def write_partial(text: str) -> None:
    """Human text to stdout as it arrives (a streamed answer): no newline, flushed."""
    sys.stdout.write(terminal_safe(text))
    sys.stdout.flush()


def write_styled(text: str) -> None:
    """Text a renderer styled itself: every piece of data in it is already terminal-safe
    (gno/render/style.py), the escape sequences are gno's own."""
    sys.stdout.write(_line(text))


def page(text: str) -> bool:
    """Show ``text`` through click's pager (``$PAGER``, else ``less``, here with ``LESS=FRX``
    unless set) when it is taller than the terminal; False when it is short and must be
    written. Without a keyboard on stdin, or a pager that cannot start, click writes it."""
    import shutil

    if text.count("\n") + 1 < shutil.get_terminal_size().lines:
        return False
    import click

    os.environ.setdefault("LESS", "FRX")
    click.echo_via_pager(_line(text), color=True)
    return True


def write_err(text: str) -> None:
    """Human text to stderr (errors, warnings, explain lines), terminal-safe."""
    sys.stderr.write(_line(terminal_safe(text)))
