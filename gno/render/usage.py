"""What `gno` alone prints: the usage summary as text, or ``cli-usage@1.0`` with --json."""

from __future__ import annotations

import json

USAGE = {
    "name": "gno",
    "description": "Local-first knowledge engine: one SQLite index over your notes, code and documents.",
    "usage": "gno [global options] <command> [options]",
    "examples": [
        "gno init ~/notes --name notes",
        "gno update",
        'gno search "tail sampling processor"',
        "gno get gno://notes/plan.md:10 -l 20",
    ],
    "help": "gno --help",
}


def usage(as_json: bool) -> str:
    if as_json:
        from gno_contracts.models.cli_usage import CliUsage

        return json.dumps(CliUsage.model_validate(USAGE).model_dump(mode="json"), indent=2) + "\n"
    examples = "".join(f"  {e}\n" for e in USAGE["examples"])
    return (
        f"{USAGE['description']}\n\nUsage: {USAGE['usage']}\n\nExamples:\n{examples}"
        "\nRun `gno --help` for all commands.\n"
    )
