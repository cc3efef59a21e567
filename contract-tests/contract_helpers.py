"""Helpers shared by the contract tests (imported by conftest.py and the test
modules): schemas, validators, the registry and a real ``gno`` process runner
pointed at throw-away directories."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker

REPO = Path(__file__).resolve().parent.parent
SCHEMAS = REPO / "schemas"
EXAMPLES = SCHEMAS / "examples"
GENERATED = REPO / "generated" / "gno_contracts"
GNO = Path(sys.executable).with_name("gno")
if not GNO.exists():  # pytest run from outside the venv
    GNO = REPO / ".venv" / "bin" / "gno"
TIMEOUT = 60

SCHEMA_FILES = sorted((SCHEMAS / "output").glob("*.schema.json")) + sorted(
    (SCHEMAS / "input").glob("*.schema.json")
)

# ---------------------------------------------------------------- formats

# jsonschema only checks `date-time` when the optional rfc3339-validator package
# is installed; without it the format is silently accepted. Check it ourselves
# (RFC 3339 grammar + a real calendar date) so the format keyword is not a no-op.
_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)


def _is_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return True
    m = _RFC3339.match(value)
    if not m:
        return False
    try:
        datetime(*(int(m.group(i)) for i in range(1, 4)))
    except ValueError:
        return False
    hh, mm, ss = (int(m.group(i)) for i in range(4, 7))
    return hh < 24 and mm < 60 and ss < 61


def format_checker() -> FormatChecker:
    base = Draft202012Validator.FORMAT_CHECKER
    if "date-time" in base.checkers:
        return base
    checker = FormatChecker(formats=list(base.checkers))
    checker.checks("date-time")(_is_datetime)
    return checker


FORMAT_CHECKER = format_checker()


# ---------------------------------------------------------------- schemas


def schema_name(schema_id: str) -> str:
    """``gno://schemas/get-input@1.0`` -> ``get-input``."""
    return schema_id.removeprefix("gno://schemas/").split("@")[0]


@cache
def schemas_by_id() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for path in SCHEMA_FILES:
        schema = json.loads(path.read_text())
        out[schema["$id"]] = schema
    return out


@cache
def validator(schema_id: str) -> Draft202012Validator:
    return Draft202012Validator(schemas_by_id()[schema_id], format_checker=FORMAT_CHECKER)


def assert_valid(schema_id: str, payload: Any) -> None:
    errors = sorted(validator(schema_id).iter_errors(payload), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [
            f"  at /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in errors[:10]
        ]
        pytest.fail(f"payload does not validate against {schema_id}:\n" + "\n".join(lines))


def examples_of(name: str) -> list[Path]:
    return sorted((EXAMPLES / name).glob("*.json"))


# ---------------------------------------------------------------- registry


@cache
def operations() -> tuple[Any, ...]:
    from gno_contracts.operations import OPERATIONS

    return OPERATIONS


def cli_groups() -> set[str]:
    """Command groups of the CLI: the leading words of longer bindings (``collection``,
    ``models``, ``collection policy``)."""
    return {
        " ".join(words[:i])
        for words in (op.cli.split() for op in operations() if op.cli)
        for i in range(1, len(words))
    }


def op_for_cli(argv: list[str]) -> Any:
    """The registry operation a command line runs (``collection add`` = 2 words)."""
    groups = cli_groups()
    size = 1
    while size < len(argv) and " ".join(argv[:size]) in groups:
        size += 1
    command = " ".join(argv[:size])
    for op in operations():
        if op.cli == command:
            return op
    for op in operations():  # a group invoked alone: `graph`, or `tags` (= `tags list`)
        if op.cli == argv[0] or (
            op.cli_shape and op.cli_shape.default and op.cli.split()[0] == argv[0]
        ):
            return op
    raise AssertionError(f"no registry operation has cli binding {command!r}")


# ---------------------------------------------------------------- gno process


def gno_env(root: Path) -> dict[str, str]:
    agents = ("CLAUDE_SKILLS_DIR", "CODEX_SKILLS_DIR", "CODEX_HOME", "XDG_CONFIG_HOME")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_") and k not in agents}
    # A home of its own: REST connector installs (skills, MCP client entries) write there.
    (root / "home").mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(root / "home"),
        GNO_CONFIG_DIR=str(root / "config"),
        GNO_DATA_DIR=str(root / "data"),
        GNO_CACHE_DIR=str(root / "cache"),
        HF_HUB_OFFLINE="1",
        NO_COLOR="1",
        PYTHONIOENCODING="utf-8",
    )
    return env


def run_gno(
    env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    if cwd is None:  # the home folder: never the repo, so no stray config is found
        cwd = Path(env["GNO_CONFIG_DIR"]).parent
        cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [str(GNO), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT,
        check=False,
    )


def check_ok(args: tuple[str, ...] | list[str], returncode: int, stdout: str, stderr: str) -> Any:
    """A finished command that must have succeeded: exit 0 and stdout one JSON
    document valid against the operation's output schema (bare ``gno --json``:
    cli-usage@1.0)."""
    shown = " ".join(args)
    assert returncode == 0, f"gno {shown} -> exit {returncode}\nstderr: {stderr[:1000]}"
    try:
        payload = json.loads(stdout)
    except json.JSONDecodeError as exc:
        pytest.fail(f"gno {shown}: stdout is not JSON ({exc}):\n{stdout[:500]}")
    schema_id = (
        "gno://schemas/cli-usage@1.0"
        if args[0] == "--json"
        else op_for_cli(list(args)).output_schema
    )
    assert_valid(schema_id, payload)
    return payload


def gno_ok(env: dict[str, str], *args: str) -> Any:
    """Run a command that must succeed; validate stdout against its output schema."""
    proc = run_gno(env, *args)
    return check_ok(args, proc.returncode, proc.stdout, proc.stderr)


def gno_err(env: dict[str, str], code: int, *args: str) -> dict[str, Any]:
    """Run a command that must fail with ``code``; stdout empty, stderr an error@1.0."""
    proc = run_gno(env, *args)
    assert proc.returncode == code, (
        f"gno {' '.join(args)}: expected exit {code}, got {proc.returncode}\n"
        f"stdout: {proc.stdout[:500]}\nstderr: {proc.stderr[:500]}"
    )
    assert proc.stdout == "", f"stdout must be empty on error, got: {proc.stdout[:500]}"
    try:
        payload = json.loads(proc.stderr)
    except json.JSONDecodeError as exc:
        pytest.fail(f"stderr is not one JSON object ({exc}):\n{proc.stderr[:500]}")
    assert_valid("gno://schemas/error@1.0", payload)
    assert payload["error"]["code"] == ("VALIDATION" if code == 1 else "RUNTIME")
    assert payload["error"]["message"].strip()
    return payload["error"]


# ---------------------------------------------------------------- the test corpus

# Collection "notes": 8 files (6 Markdown, one .txt, one .py, a subfolder).
NOTES: dict[str, str] = {
    "alpha.md": (
        "---\n"
        "title: Alpha Notes\n"
        "tags: [project, urgent]\n"
        "author: Ada Lovelace\n"
        "date: 2024-03-15\n"
        "---\n"
        "# Alpha\n"
        "\n"
        "The zephyrquartz protocol keeps the lighthouse running. #kanban\n"
        "See [[Beta Plan]] and [the gamma doc](sub/gamma.md).\n"
    ),
    "beta.md": (
        "---\n"
        "title: Beta Plan\n"
        "tags: [project]\n"
        "author: Bob Builder\n"
        "date: 2023-01-10\n"
        "---\n"
        "Beta plan for the tail sampling processor near the lighthouse.\n"
        "Line eight here.\n"
    ),
    "japanese.md": (
        "---\n"
        "title: 東京メモ\n"
        "tags: [japanese, travel]\n"
        "author: 山田\n"
        "date: 2024-05-01\n"
        "---\n"
        "東京の図書館で検索エンジンを作りました。\n"
        "lighthouse\n"
    ),
    "spanish.md": (
        "---\n"
        "title: Notas de viaje\n"
        "tags: [travel]\n"
        "author: María García\n"
        "date: 2024-06-02\n"
        "---\n"
        "La biblioteca municipal abre los domingos por la mañana. El faro es precioso.\n"
        "Un lighthouse en la costa.\n"
    ),
    "notes.txt": "plain text file about widgets and the lighthouse\nsecond line\n",
    "tool.py": 'def lighthouse_beacon():\n    """Return the beacon colour."""\n    return "amber"\n',
    "sub/gamma.md": "# Gamma\n\nSampling of the tail happens at the lighthouse.\n",
    "sub/delta.md": (
        "---\n"
        "title: Delta Archive\n"
        "tags: [archive]\n"
        "author: Dora\n"
        "date: 2022-07-01\n"
        "---\n"
        "Old archive entry about the lighthouse.\n"
    ),
}
# Collection "misc": 2 more files.
MISC: dict[str, str] = {
    "readme.md": "# Misc\n\nA lighthouse keeper's log.\n",
    "todo.txt": "buy candles\n",
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def indexed_notes(root: Path, files: dict[str, str]) -> dict[str, str]:
    """The environment of a gno home under ``root`` whose one collection, ``notes``, holds
    ``files`` and is synced (no vectors)."""
    notes = write_tree(root / "notes", files)
    env = gno_env(root)
    for args in (["init"], ["collection", "add", str(notes), "--name", "notes"], ["update"]):
        done = run_gno(env, *args)
        assert done.returncode == 0, done.stderr
    return env


@dataclass
class Indexed:
    """An initialized gno home with collections notes + misc, synced twice.

    Built once per run (shared by the xdist workers through a file lock); the
    read commands a test module lists in ``READ_COMMANDS`` are run up front, in
    parallel, and their raw results stored, so each one costs one process per run.
    Checks (exit code, JSON, schema) happen in the tests that ask for them."""

    root: Path
    env: dict[str, str]
    notes: Path
    misc: Path
    raw: dict[str, dict[str, Any]]  # key(argv) or setup label -> {args, returncode, stdout, stderr}

    def ok(self, *args: str) -> Any:
        """Exit 0 and stdout valid against the command's output schema."""
        found = self.raw.get(key(args))
        if found is None:
            proc = run_gno(self.env, *args)
            found = {
                "args": list(args),
                "returncode": proc.returncode,
                "stdout": proc.stdout,
                "stderr": proc.stderr,
            }
        return check_ok(args, found["returncode"], found["stdout"], found["stderr"])

    def setup_output(self, label: str) -> Any:
        found = self.raw[label]
        return check_ok(found["args"], found["returncode"], found["stdout"], found["stderr"])


def key(args: tuple[str, ...] | list[str]) -> str:
    """Cache key of a command line; where --json sits on it does not matter."""
    return "\x1f".join([a for a in args if a != "--json"] + ["--json"] * ("--json" in args))
