"""CLI spellings of the write commands the registry cannot say as data."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from gno.errors import ValidationError

STDIN_MARK = "\x00stdin"  # what --stdin puts in `content` (NUL never is valid content)
MAX_READ = 1024 * 1024 + 1  # one byte past the capture limit, so the limit is reported


def read_file(path: str) -> str:
    """``--file <path>``: the note's text."""
    try:
        data = Path(path).expanduser().read_bytes()[:MAX_READ]
    except OSError as exc:
        raise ValidationError(f"Cannot read --file {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError(f"--file {path} is not UTF-8 text") from None


def capture(op_id: str, fields: dict[str, Any], fmt: str | None) -> tuple[str, dict[str, Any]]:
    """``--stdin`` reads the note from standard input; ``--source-*`` build ``source``."""
    if fields.get("content") == STDIN_MARK:
        data = sys.stdin.buffer.read(MAX_READ)
        try:
            fields["content"] = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValidationError("Standard input is not UTF-8 text") from None
    source = {
        k.removeprefix("source."): fields.pop(k) for k in list(fields) if k.startswith("source.")
    }
    if source:
        fields["source"] = source
    return op_id, fields
