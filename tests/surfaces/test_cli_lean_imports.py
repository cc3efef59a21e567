"""What the read commands' start must not import (issue 13 item 2, bench/README.md "CLI
start, session 7"): each module here was made lazy to cut `gno search`, `get`, `status` and
`links` start-up, and would come back silently through one module-level import.

Each command runs as a real process through the console entry point (`gno.cli.entry.main`,
so the lean argv path and the PYDANTIC_DISABLE_PLUGINS set-up are the ones a user gets) on
a small real index; the probe lists the forbidden modules found in ``sys.modules``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Never on a read command's path: the typer app, the servers and the models' runtimes.
HEAVY = (
    "typer",
    "click",
    "rich",
    "fastapi",
    "mcp",
    "uvicorn",
    "numpy",
    "llama_cpp",
    "gno.cli.app",
)
# Made lazy in session 7: a read builds none of these.
EVERY_READ = (
    "gno.core.journal",  # the knowledge-delta journal: sync only
    "gno.core.egress",  # the egress rule and its address ranges (a hit needs egress_lineage)
    "gno.services.trace_record",  # the trace recorder: only with tracing enabled
    "gno.core.traces",
    "gno.core.metadata_filter",  # filter parsers: only when an input has a filter
    "gno.core.dates",
    "gno.core.expansion",
    "tempfile",
    "gno.file_replace",  # index.yml's atomic writer
    "gno.conversion_ports",  # session 9: the converters' ports (gno/ports.py loads them on use)
    "gno.core.regions",  # session 9: the fence scanner, for a text's hashtags (a sync's)
)
# Session 8: search, get and status answer from the wire form (gno/services/wire.py): no model.
# (``pydantic.plugin._loader`` is entry.py's stand-in, not pydantic: ``pydantic.main`` is.)
NO_MODELS = ("pydantic.main", "pydantic_core", "gno_contracts.base", "gno_contracts.models")
# Issue 20: tags, changes and diff build no link graph.
NO_GRAPH = ("gno.core.typed_graph", "gno.core.link_resolver", "gno.core.traversal")
# Issue 20: only a read that builds hits or documents' text loads the result builder.
NO_RESULTS = ("gno.services.results", "gno.core.records", "gno.core.snippets")
# Session 9: the CLI defers ``inspect`` (``gno.start_stand_ins.defer_stdlib``): its stand-in sits in
# sys.modules, so the probe watches what the real one imports. A dataclass without a docstring
# on a read's path runs it again (dataclasses describes such a class with inspect.signature).
NO_INSPECT = ("ast", "dis", "tokenize")
# Session 9: hashlib is deferred the same way; a read that hashes nothing never loads OpenSSL.
NO_OPENSSL = ("_hashlib",)
# Session 9: the journal's rows and the link row live apart from the sync's (gno/journal_rows.py,
# gno/core/link_rows.py): changes, diff and the graph reads build no sync dataclass.
NO_SYNC_ROWS = ("gno.sync_rows",)
FRONTMATTER = "gno.core.frontmatter"  # sync's parser: a graph read needs the edge types only
NOT_FOR = {
    "search": (
        *EVERY_READ,
        *NO_INSPECT,
        FRONTMATTER,  # a hit needs where the block ends: gno.core.frontmatter_span
        *NO_MODELS,
        "gno.sync_rows",
        "gno.core.typed_graph",
        "gno.core.link_resolver",
        "gno.core.content_types",  # the graph hints' rules
        "gno.config",
        "yaml",
        "gno_contracts.models.get",
        "gno_contracts.models.multi_get",
    ),
    "get": (
        *EVERY_READ,
        *NO_INSPECT,
        *NO_OPENSSL,
        FRONTMATTER,  # and its dates: only a hit's snippet needs the frontmatter's span
        "_datetime",
        "gno.core.snippets",
        "gno.core.records",  # the record lane's types: a read asks gno.core.record_paths
        "gno.services.filters",
        *NO_MODELS,
        "gno.sync_rows",
        "gno.core.fts",
        "gno.core.globs",
        "gno.core.typed_graph",
        "gno_contracts.models.multi_get",
        "gno_contracts.models.ls",
        "gno_contracts.models.search_results",
    ),
    "status": (
        *EVERY_READ,
        *NO_INSPECT,
        FRONTMATTER,  # index.yml's depth check is gno.core.yaml_depth
        "gno.services.filters",
        *NO_MODELS,
        "gno.sync_rows",
        "gno.core.typed_graph",
        "gno_contracts.models.peek",
        "gno_contracts.models.capabilities",
        "gno_contracts.models.health",
        "gno_contracts.models.index_status",
        "gno_contracts.models.resident_status",
    ),
    "links": (
        *NO_INSPECT,
        *EVERY_READ,
        *NO_SYNC_ROWS,
        *NO_MODELS,
        *NO_RESULTS,
        FRONTMATTER,
        "gno.core.fts",
        "gno_contracts.models.get",
        "gno_contracts.models.multi_get",
        "gno_contracts.models.ls",
        "gno_contracts.models.graph_query",
        "gno_contracts.models.impact",
        "gno_contracts.models.backlinks",
        "gno_contracts.models.tags_list",
    ),
    # Session 8, issue 20: the graph family's reads answer from the wire form too.
    "backlinks": (
        *NO_SYNC_ROWS,
        *NO_INSPECT,
        *NO_RESULTS,
        FRONTMATTER,
        *EVERY_READ,
        *NO_MODELS,
        "gno.core.fts",
    ),
    "graph": (
        *NO_SYNC_ROWS,
        *NO_INSPECT,
        *NO_RESULTS,
        FRONTMATTER,
        *EVERY_READ,
        *NO_MODELS,
        "gno.core.fts",
    ),
    "graph query": (
        *NO_INSPECT,
        *NO_SYNC_ROWS,
        *NO_RESULTS,
        FRONTMATTER,
        *EVERY_READ,
        *NO_MODELS,
        "gno.core.fts",
    ),
    "tags": (
        *NO_RESULTS,
        *NO_INSPECT,
        *NO_OPENSSL,
        FRONTMATTER,
        *EVERY_READ,
        *NO_MODELS,
        *NO_GRAPH,
        "gno.sync_rows",
        "gno.core.fts",
    ),
    "changes": (
        *NO_INSPECT,
        *NO_SYNC_ROWS,
        *NO_OPENSSL,
        *NO_RESULTS,
        FRONTMATTER,
        *NO_MODELS,
        *NO_GRAPH,
        "gno.core.fts",
        "tempfile",
    ),
    "diff": (
        *NO_INSPECT,
        *NO_SYNC_ROWS,
        *NO_RESULTS,
        FRONTMATTER,
        *NO_MODELS,
        *NO_GRAPH,
        "gno.core.fts",
        "tempfile",
    ),
    "impact": (*NO_RESULTS, *NO_INSPECT, FRONTMATTER, *EVERY_READ, *NO_MODELS, "gno.core.fts"),
    "similar": (*NO_RESULTS, *EVERY_READ, *NO_MODELS, "gno.core.fts"),
    "ls": (
        *NO_RESULTS,
        *NO_INSPECT,
        *NO_OPENSSL,
        FRONTMATTER,
        *EVERY_READ,
        *NO_MODELS,
        "gno.core.fts",
        "gno.core.typed_graph",
    ),
    "multi-get": (
        *NO_INSPECT,
        *NO_OPENSSL,
        *EVERY_READ,
        *NO_MODELS,
        "gno.core.fts",
        "gno.core.typed_graph",
    ),
}
ARGV = {
    "search": ["search", "sampling", "--json"],
    "get": ["get", "notes/n1.md", "--json"],
    "status": ["status", "--json"],
    "links": ["links", "notes/n0.md", "--json"],
    "backlinks": ["backlinks", "notes/n0.md", "--json"],
    "graph": ["graph", "--json"],
    "graph query": ["graph", "query", "notes/n0.md", "--json"],
    "tags": ["tags", "--json"],
    "changes": ["changes", "--json"],
    "diff": ["diff", "notes/n0.md", "--json"],
    "impact": ["impact", "notes/n0.md", "--json"],
    "similar": ["similar", "notes/n0.md", "--json"],
    "ls": ["ls", "--json"],
    "multi-get": ["multi-get", "notes/n*.md", "--json"],
}


def gno(*args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gno.cli.entry", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    for i in range(3):
        (root / f"n{i}.md").write_text(
            f"# Note {i}\n\nsampling body {i}, see [[n{(i + 1) % 3}]] and [next](n{(i + 1) % 3}.md)\n"
        )
    gno("init", str(root), "--name", "notes")
    gno("update")
    seed_vectors({f"notes/n{i}.md": [1.0, 0.1 * i, 0.0, 0.0] for i in range(3)})  # similar
    return root


def seed_vectors(vectors: dict[str, list[float]]) -> None:
    from gno.app import App
    from gno.paths import resolve_paths
    from tests.services.test_graph_engine import _seed_vectors

    app = App(resolve_paths())
    try:
        _seed_vectors(app, vectors)
    finally:
        app.close()


def loaded(argv: list[str], watched: tuple[str, ...]) -> tuple[list[str], int, str]:
    """(the watched modules the command imported, its exit code, its stdout)."""
    probe = (
        "import io, json, sys\n"
        f"sys.argv = ['gno', *{argv!r}]\n"
        "out, sys.stdout = sys.stdout, io.StringIO()\n"
        "from gno.cli.entry import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as stop:\n"
        "    code = stop.code\n"
        "text, sys.stdout = sys.stdout.getvalue(), out\n"
        f"watched = {watched!r}\n"
        "found = sorted(m for m in sys.modules if m in watched or m.split('.')[0] in watched)\n"
        "print(json.dumps({'found': found, 'code': code, 'out': text}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    return report["found"], report["code"], report["out"]


@pytest.mark.parametrize("command", sorted(ARGV))
def test_read_command_imports_none_of_what_it_does_not_use(notes: Path, command: str) -> None:
    found, code, out = loaded(ARGV[command], HEAVY + NOT_FOR[command])
    assert code == 0
    assert json.loads(out)  # the command answered: the probe watched a real run
    assert found == [], f"`gno {command}` imported {found}"


def test_the_probe_sees_an_import(notes: Path) -> None:
    """The same probe on a command that uses the graph rows and filters reports them: an
    empty list above means not imported, not a probe that sees nothing."""
    found, code, _ = loaded(
        ["search", "sampling", "--json", "--since", "2000-01-01"],
        ("gno.core.dates", "gno.core.typed_graph"),
    )
    assert code == 0
    assert found == ["gno.core.dates"]


def test_a_deferred_module_runs_on_first_use() -> None:
    """``defer_stdlib``'s stand-in: ``import`` binds it without running the module, the first
    attribute read runs it, and a dataclass without a docstring still gets its signature."""
    probe = (
        "import sys\n"
        "from gno.start_stand_ins import defer_stdlib\n"
        "defer_stdlib()\n"
        "from dataclasses import dataclass\n"
        "import inspect\n"
        "before = 'ast' in sys.modules\n"
        "@dataclass\n"
        "class Point:\n"
        "    x: int\n"
        "    y: str = ''\n"
        "from inspect import signature\n"
        "print(before, 'ast' in sys.modules, Point.__doc__, signature(Point),\n"
        "      sys.modules['inspect'] is not inspect, inspect.isclass(Point))\n"
        "import hashlib\n"
        "unloaded = '_hashlib' not in sys.modules\n"
        "print(unloaded, hashlib.sha256(b'gno').hexdigest()[:12], '_hashlib' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    first, second = done.stdout.split("\n")[:2]
    assert first == "False True Point(x: int, y: str = '') (x: int, y: str = '') -> None True True"
    assert second == "True a5477a787d4a True"  # sha256(b"gno"): the real digest, loaded on use
