"""The CLI rules a registry binding declares (schemas/operations.yaml `cli`: `rules`,
`routes`, `formatted`, `env`, dotted `to`, `sets`, `excludes`), each through a real `gno`
process: the line GNO accepts does what it says, the line it refuses exits 1 with the
binding's message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.surfaces.test_cli_process import indexed, run


def refused(*args: str) -> str:
    """The message of a line the CLI refuses (exit 1, usage error)."""
    done = run(*args, check=False)
    assert done.returncode == 1, (args, done.stdout, done.stderr)
    return done.stderr.strip()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("graph --neighbors notes/n0.md --from notes/n0.md --to notes/n1.md", "Choose --neighbors or --from/--to, not both"),
        ("graph --neighbors notes/n0.md --to notes/n1.md", "Choose --neighbors or --from/--to, not both"),
        ("graph --neighbors notes/n0.md --max-depth 2", "--max-depth goes with --from/--to"),
        ("graph --from notes/n0.md", "--from and --to go together"),
        ("graph --to notes/n1.md --max-depth 2", "--from and --to go together"),
        ("graph --from notes/n0.md --to notes/n1.md --direction in", "--direction goes with --neighbors"),
        ("graph --direction in --max-depth 2", "--direction goes with --neighbors"),
        ("graph --max-depth 2", "--max-depth goes with --from/--to"),
        ("rename notes/n0.md other.md --apply", "--apply needs --plan-digest (the planDigest of the preview)"),
        ("rename notes/n0.md other.md --plan-digest abc", "--plan-digest goes with --apply"),
        ("move notes/n0.md sub --apply", "--apply needs --plan-digest (the planDigest of the preview)"),
        ("egress-audit purge", "egress-audit purge deletes every receipt: pass --confirm"),
        ("search x --project-root /tmp --no-project-affinity", "Choose --project-root or --no-project-affinity, not both"),
        ("query x --query-mode nonsense", "Invalid --query-mode 'nonsense': use term:<text>, intent:<text> or hyde:<text>"),
        ("ask x --query-mode hyde:", "Invalid --query-mode 'hyde:': use term:<text>, intent:<text> or hyde:<text>"),
    ],
)  # fmt: skip
def test_refused_lines_name_the_rule(line: str, message: str) -> None:
    assert refused(*line.split()) == f"Error: {message}"


def test_routes_run_the_other_operation(tmp_path: Path) -> None:
    """`graph --neighbors` runs graph_neighbors, `graph --from --to` graph_path; the report
    otherwise."""
    root = indexed(tmp_path)
    (root / "n0.md").write_text("# Note 0\n\nsee [[n1]]\n")
    (root / "n1.md").write_text("# Note 1\n\nsee [[n2]]\n")
    run("update")
    report = json.loads(run("graph", "--json").stdout)
    assert "neighbors" not in report and "path" not in report
    near = json.loads(run("graph", "--neighbors", "notes/n1.md", "--json").stdout)
    assert near["source"]["uri"] == "gno://notes/n1.md"
    assert {n["node"]["uri"] for n in near["neighbors"]} == {
        "gno://notes/n0.md",
        "gno://notes/n2.md",
    }
    path = json.loads(run("graph", "--from", "notes/n0.md", "--to", "notes/n2.md", "--json").stdout)
    assert [n["uri"] for n in path["path"]["nodes"]] == [f"gno://notes/n{i}.md" for i in range(3)]


def test_machine_formats_show_twenty_hits(tmp_path: Path) -> None:
    """`formatted: {limit: 20}`: 5 hits in the terminal, 20 in a machine format, -n wins."""
    indexed(tmp_path, n=8)
    assert len(json.loads(run("search", "sampling", "--json").stdout)["results"]) == 8
    assert len(run("search", "sampling", "--files").stdout.splitlines()) == 8
    assert len(json.loads(run("search", "sampling", "-n", "3", "--json").stdout)["results"]) == 3
    terminal = run("search", "sampling").stdout
    assert sum(f"n{i}.md" in terminal for i in range(8)) == 5


def planned(*args: str) -> dict[str, object]:
    """The input a command runs with, as --verbose prints it on stderr."""
    done = run("--verbose", *args, check=False)
    line = next(x for x in done.stderr.splitlines() if x.startswith("[verbose]") and ": {" in x)
    return json.loads(line.split(": ", 1)[1])


def test_dotted_fields_and_flags_that_set_more(tmp_path: Path) -> None:
    """A dotted `to` fills an object field (capture's `source`, egress check's `caller`,
    both flags always present); `--apply` also sets the apply fields GNO's tools spell out."""
    indexed(tmp_path)
    check = ["collection", "policy", "check", "--action", "serve", "--destination", "remote"]
    caller = planned(*check, "--content-class", "snippet", "--authenticated", "--json")["caller"]
    assert caller == {"authenticated": True, "operationAuthorized": False}
    captured = planned("capture", "hi", "-c", "notes", "--source-url", "http://x.example",
                       "--source-kind", "web", "--json")  # fmt: skip
    assert captured["source"] == {"kind": "web", "url": "http://x.example"}
    assert "source" not in planned("capture", "hi again", "-c", "notes", "--json")
    applied = planned("rename", "notes/n0.md", "x.md", "--apply", "--plan-digest", "a" * 64)
    assert {k: applied[k] for k in ("action", "schemaVersion", "confirmation", "confirm")} == {
        "action": "apply", "schemaVersion": "1.0", "confirmation": "apply", "confirm": True
    }  # fmt: skip
    assert "confirm" not in planned("rename", "notes/n0.md", "x.md", "--json")


def test_env_options_set_the_run_environment(tmp_path: Path) -> None:
    """`embed --model <uri>` is the run's GNO_EMBED_MODEL (no input field): the embed run
    looks for that model."""
    indexed(tmp_path)
    done = run("--verbose", "embed", "--model", "file:/nowhere/model.gguf", check=False)
    assert done.returncode != 0
    assert "Model file for embed not found: /nowhere/model.gguf" in done.stderr, done.stderr
    assert '"model"' not in done.stderr.splitlines()[0]
