"""The lean argv path (gno/cli/fast.py) reads a command line exactly as typer does, or
leaves it to typer: for every registry command, the values and global settings it hands
the runner are the ones the typer app hands it for the same line."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gno_contracts.operations import OPERATIONS, CliParam, Operation

from gno.cli import fast, runner
from gno.cli.entry import hoist_globals
from gno.cli.settings import HOISTED_FLAGS, HOISTED_VALUES, Settings

SAMPLE = {"int": "7", "float": "0.25", "str": "some value", "list": "one"}
CLI_OPS = [op for op in OPERATIONS if op.cli_shape is not None and not op.cli_shape.prompt]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GNO_OFFLINE", "NO_COLOR", "GNO_VERBOSE", "_GNO_COMPLETE"):
        monkeypatch.delenv(name, raising=False)


def through_typer(argv: list[str]) -> tuple[Settings, str, dict[str, Any]] | None:
    """What the typer app hands the runner for ``argv`` (None: it ran nothing, e.g. an error)."""
    from gno.cli.app import app

    seen: list[tuple[Settings, str, dict[str, Any]]] = []

    def capture(settings: Settings, op: Operation, values: dict[str, Any]) -> int:
        seen.append((settings, op.id, dict(values)))
        return 0

    original = runner.run
    runner.run = capture  # type: ignore[assignment]
    try:
        app(args=argv, prog_name="gno", standalone_mode=False)
    except Exception:
        return None
    finally:
        runner.run = original  # type: ignore[assignment]
        os.environ.pop("GNO_OFFLINE", None)
        os.environ.pop("NO_COLOR", None)
    return seen[-1] if seen else None


def through_fast(argv: list[str]) -> tuple[Settings, str, dict[str, Any]] | None:
    parsed = fast.parse(argv)
    if parsed is None:
        return None
    options, op, values = parsed
    try:
        return Settings(**options), op.id, values
    finally:
        os.environ.pop("GNO_OFFLINE", None)
        os.environ.pop("NO_COLOR", None)


def normalized(found: tuple[Settings, str, dict[str, Any]]) -> tuple[Any, ...]:
    """Lists and tuples compare alike: the runner joins, splits or copies both the same way."""
    s, op_id, values = found
    plain = {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
    return dataclasses.astuple(s), op_id, plain


def _option(p: CliParam, form: str) -> list[str]:
    if p.kind == "bool":
        return [p.flags[-1]]
    value = SAMPLE[p.kind]
    flag = p.flags[0] if form == "short" else p.flags[-1]
    if form == "equals" and flag.startswith("--"):
        return [f"{flag}={value}"]
    return [flag, value]


def spellings(op: Operation) -> list[list[str]]:
    """Lines that exercise every argument and option of the command, in several forms."""
    shape = op.cli_shape
    assert shape is not None
    words = shape.command.split()
    positionals: list[str] = []
    for p in shape.params:
        if not p.flags:
            positionals += (
                (["alpha", "beta"] if p.kind == "list" else ["gamma"])
                if (p.required or p.kind != "list")
                else []
            )
    lines = [words + positionals]
    for form in ("short", "long", "equals"):
        line = list(words)
        for p in shape.params:
            if p.flags and not (p.kind == "bool" and p.excludes):
                line += _option(p, form)
        for name in shape.formats[:1]:
            line.append(f"--{name}")
        lines.append(line + positionals)
    lines.append(["--index", "work", "-q", *words, *positionals, "--no-color", "--verbose"])
    lines.append(["--config=/tmp/x.yml", "--offline", "--no-pager", *words, "--", *positionals])
    return [hoist_globals(line, HOISTED_VALUES, HOISTED_FLAGS) for line in lines]


@pytest.mark.parametrize("op", CLI_OPS, ids=lambda op: op.id)
def test_every_command_reads_as_typer_reads_it(op: Operation) -> None:
    read = 0
    for argv in spellings(op):
        ours = through_fast(argv)
        theirs = through_typer(argv)
        if ours is None:
            continue  # typer parses it, as it always did
        read += 1
        assert theirs is not None, f"typer refuses {argv} but the lean path ran it"
        assert normalized(ours) == normalized(theirs), argv
    assert read >= 3, f"the lean path read too few spellings of {op.cli}"


@pytest.mark.parametrize(
    "argv",
    [
        ["tags", "--json"],  # what a group runs alone
        ["tags", "-c", "notes", "--prefix", "a"],
        ["graph", "--json"],
        ["graph", "--neighbors", "x", "--direction", "in"],
        ["mcp", "status", "--json"],  # under a group whose own callback is not an operation
        ["query", "diagnose", "a", "b", "--target", "x"],
        ["links", "list", "x"],
        ["--json", "search", "q"],  # the global --json before the command
        ["search", "--", "-q", "--full"],  # after --, words
    ],
)
def test_group_and_hook_spellings_read_as_typer_reads_them(argv: list[str]) -> None:
    ours, theirs = through_fast(argv), through_typer(argv)
    assert ours is not None and theirs is not None
    assert normalized(ours) == normalized(theirs)


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["-h"],
        ["search", "--help"],
        ["search", "-h", "q"],
        ["--version"],
        ["--skill"],
        [],
        ["search"],  # missing argument: typer's message
        ["search", "q", "-n", "ten"],  # typer's conversion error
        ["search", "q", "-n"],  # missing value
        ["search", "q", "-n5"],  # attached short value
        ["search", "q", "--limit", "-5"],  # a value that looks like an option
        ["search", "q", "--lim", "5"],  # not an option
        ["search", "q", "--full=yes"],  # a flag with a value
        ["get", "a", "b"],  # an extra positional
        ["graph", "--json", "query", "x"],  # group options before a subcommand
        ["tags", "nope"],  # not a subcommand
        ["collection"],  # a group alone
        ["mcp"],  # the stdio server: not a registry command
        ["serve", "--port", "0"],
        ["completion", "bash"],
        ["setup", "/tmp"],  # prompts through typer's context
        ["nonsense"],
        ["search", "q\udcff"],  # undecodable bytes
    ],
)
def test_lines_it_is_unsure_of_go_to_typer(argv: list[str]) -> None:
    assert fast.parse(argv) is None


def test_completion_requests_go_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_GNO_COMPLETE", "bash_complete")
    assert fast.parse(["search", "q"]) is None


def test_global_options_match_the_root_declaration() -> None:
    """settings.py's tables are what the typer root command declares (app.py builds its
    options from the registry's cli_globals; --json, --version and --skill stay in place)."""
    import typer.main

    from gno.cli.app import app

    with_value: set[str] = set()
    flags: set[str] = set()
    for param in typer.main.get_command(app).params:
        names = set(param.opts) - {"--json", "--version", "-V", "--skill"}
        (flags if param.is_flag else with_value).update(names)  # type: ignore[attr-defined]
    assert (with_value, flags) == (HOISTED_VALUES, HOISTED_FLAGS)


def test_search_runs_without_typer_or_its_app(tmp_path: Path) -> None:
    """A real `gno search` process: the lean path answers, typer is never imported."""
    env = {
        **os.environ,
        "GNO_CONFIG_DIR": str(tmp_path / "config"),
        "GNO_DATA_DIR": str(tmp_path / "data"),
        "GNO_CACHE_DIR": str(tmp_path / "cache"),
    }
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Sampling\n\nTail sampling keeps slow traces.\n")
    gno = [sys.executable, "-m", "gno.cli.entry"]
    subprocess.run([*gno, "init", str(notes), "--name", "notes"], env=env, check=True)
    subprocess.run([*gno, "update"], env=env, check=True, capture_output=True)
    probe = (
        "import sys; from gno.cli.entry import run; code = run(sys.argv[1:]); "
        "print(code, 'typer' in sys.modules, 'gno.cli.app' in sys.modules, file=sys.stderr)"
    )
    for argv in (["search", "tail", "--files"], ["status"], ["links", "notes/a.md", "--json"]):
        done = subprocess.run(
            [sys.executable, "-c", probe, *argv], env=env, capture_output=True, text=True
        )
        assert done.stderr.splitlines()[-1] == "0 False False", (argv, done.stderr)
    done = subprocess.run(
        [sys.executable, "-c", probe, "search", "--help"], env=env, capture_output=True, text=True
    )
    assert "Usage: gno search" in done.stdout and done.stderr.endswith("0 True True\n")
