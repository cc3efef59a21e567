"""Validate a CLI command's `--json` stdout against its operation's output schema (the
registry names it), for tests that run gno as a process in a temp home."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

OUTPUT = Path(__file__).resolve().parents[2] / "schemas" / "output"


@cache
def _validator(schema_id: str) -> Draft202012Validator:
    name = schema_id.removeprefix("gno://schemas/").split("@")[0]
    schema = json.loads((OUTPUT / f"{name}.schema.json").read_text())
    assert schema["$id"] == schema_id, (schema["$id"], schema_id)
    return Draft202012Validator(schema)


def check_json_output(args: tuple[str, ...], stdout: str) -> Any:
    """The parsed stdout of a successful ``gno <args> --json``, validated against the
    output schema of the operation the command runs."""
    from gno_contracts.operations import BY_ID, CLI_OPERATIONS

    words = [a for a in args if not a.startswith("-")]
    command = next(
        (" ".join(words[:n]) for n in (3, 2, 1) if " ".join(words[:n]) in CLI_OPERATIONS), None
    )
    assert command is not None, args
    payload = json.loads(stdout)
    _validator(BY_ID[CLI_OPERATIONS[command]].output_schema).validate(payload)
    return payload
