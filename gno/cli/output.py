"""Rendering command results: JSON (the schema object) and the text formats.

Everything the CLI prints goes through ``write``/``write_err`` (text, made
``terminal_safe``) or ``write_json``/``json_text`` (JSON, control characters
escaped): indexed data (titles, file names, snippets) is hostile, and a control
sequence in it must not reach the terminal (set its title, clear it, move the
cursor, answer back), with or without colour. The texts themselves come from the
registry's renderers (gno/render/).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from gno.render import dump, json_text
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
    """Show ``text`` through ``$PAGER`` (default ``less -R``) when it is taller than the
    terminal; False when it was not paged (short, no pager found) and must be written."""
    import shlex
    import shutil
    import subprocess

    if text.count("\n") + 1 < shutil.get_terminal_size().lines:
        return False
    command = shlex.split(os.environ.get("PAGER") or "less -R")
    if not command:
        return False
    env = {**os.environ, "LESS": os.environ.get("LESS", "FRX")}
    try:
        pager = subprocess.Popen(command, stdin=subprocess.PIPE, env=env)
    except OSError:
        return False
    assert pager.stdin is not None
    try:
        pager.stdin.write(_line(text).encode("utf-8", "replace"))
        pager.stdin.close()
    except BrokenPipeError:  # the reader quit the pager early
        pass
    pager.wait()
    return True


def write_err(text: str) -> None:
    """Human text to stderr (errors, warnings, explain lines), terminal-safe."""
    sys.stderr.write(_line(terminal_safe(text)))


def write_json(model: Any) -> None:
    sys.stdout.write(_line(json_text(dump(model))))
