"""Helpers shared by the contract tests (imported by conftest.py and the test
modules): schemas, validators, the registry and a real ``gno`` process runner
pointed at throw-away directories."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
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
        lines = [f"  at /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in errors[:10]]
        pytest.fail(f"payload does not validate against {schema_id}:\n" + "\n".join(lines))


def examples_of(name: str) -> list[Path]:
    return sorted((EXAMPLES / name).glob("*.json"))


# ---------------------------------------------------------------- registry


@cache
def operations() -> tuple[Any, ...]:
    from gno_contracts.operations import OPERATIONS

    return OPERATIONS


def op_for_cli(argv: list[str]) -> Any:
    """The registry operation a command line runs (``collection add`` = 2 words)."""
    words = argv[:2] if argv and argv[0] == "collection" else argv[:1]
    command = " ".join(words)
    for op in operations():
        if op.cli == command:
            return op
    raise AssertionError(f"no registry operation has cli binding {command!r}")


# ---------------------------------------------------------------- gno process


def gno_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.update(
        GNO_CONFIG_DIR=str(root / "config"),
        GNO_DATA_DIR=str(root / "data"),
        GNO_CACHE_DIR=str(root / "cache"),
        HF_HUB_OFFLINE="1",
        NO_COLOR="1",
        PYTHONIOENCODING="utf-8",
    )
    return env


def run_gno(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
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


def gno_ok(env: dict[str, str], *args: str) -> Any:
    """Run a command that must succeed; validate stdout against its output schema."""
    proc = run_gno(env, *args)
    assert proc.returncode == 0, f"gno {' '.join(args)} -> {proc.returncode}\nstderr: {proc.stderr}"
    try:
        payload = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        pytest.fail(f"gno {' '.join(args)}: stdout is not JSON ({exc}):\n{proc.stdout[:500]}")
    schema_id = op_for_cli(list(args)).output_schema if args[0] != "--json" else "gno://schemas/cli-usage@1.0"
    assert_valid(schema_id, payload)
    return payload


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
