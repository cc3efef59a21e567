"""GNO's CLI spellings the registry's CLI rules cannot say (``cli.prepare``): each takes
(operation id, input fields, output format) and returns the operation to run and its fields."""

from __future__ import annotations

import sys
from typing import Any, BinaryIO

from gno.errors import ValidationError
from gno.paths import expand_home

Prepared = tuple[str, dict[str, Any]]  # (operation id to run, its input fields)
STDIN_MARK = "\x00stdin"  # what capture's --stdin puts in `content` (NUL never is valid content)
MAX_READ = 1024 * 1024 + 1


def query(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """GNO's `gno query diagnose <query> --target <ref>`, which runs query_diagnose."""
    words: list[str] = fields.pop("query")
    target = fields.pop("target", None)
    if words and words[0] == "diagnose" and not target:
        raise ValidationError("gno query diagnose <query> needs --target <ref>")
    if target and words and words[0] == "diagnose":
        if fmt not in (None, "json"):
            raise ValidationError("query diagnose prints JSON or terminal text only")
        fields.pop("explain", None)  # query's --explain: query_diagnose has no such field
        return "query_diagnose", fields | {"query": " ".join(words[1:]), "target": target}
    return op_id, fields | {"query": " ".join(words)}


def links(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`gno links <doc>` and `gno links list <doc>` are the same command."""
    words: list[str] = fields.pop("ref")
    if len(words) == 2 and words[0] == "list":
        words = words[1:]
    if len(words) != 1:
        raise ValidationError("Usage: gno links [list] <doc>")
    return op_id, fields | {"ref": words[0]}


def context_build(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`context build` without --budget, or with one outside 1 to 1,000,000, is the
    contract's invalid_budget (context-input@1.0), not a usage error about a missing field."""
    budget = fields.get("budgetTokens")
    if budget is None or not 1 <= budget <= 1_000_000:
        from gno.errors import InvalidBudgetError

        reason = "--budget is required" if budget is None else "--budget must be 1 to 1,000,000"
        raise InvalidBudgetError("Context budget is invalid or too small for any evidence.",
                                 details={"reason": reason})  # fmt: skip
    return op_id, fields


def context_verify(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`context verify <file|->`: the Capsule read from the file (or stdin) as JSON."""
    from gno.services.context_verify import read_capsule

    source = fields.get("capsule")
    capsule = read_capsule(sys.stdin.buffer if source == "-" else str(source))
    return op_id, fields | {"capsule": capsule}


def read_file(path: str) -> str:
    """Capture's ``--file <path>``: the note's text, from a regular file only."""
    from gno.services.capture import read_note_file

    return read_note_file(expand_home(path), f"--file {path}")


def capture(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """``--stdin`` reads the note from standard input."""
    if fields.get("content") == STDIN_MARK:
        fields["content"] = _text(sys.stdin.buffer, "Standard input")
    return op_id, fields


def _text(source: BinaryIO, what: str) -> str:
    try:  # one byte past the limit, so that capture reports the limit
        return source.read(MAX_READ).decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError(f"{what} is not UTF-8 text") from None
