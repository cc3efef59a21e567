"""The operations registry: schemas/operations.yaml, its generated table, the
schemas, the service handlers and the CLI all agree."""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import subprocess
import sys

import pytest
import yaml
from contract_helpers import (
    REPO,
    SCHEMA_FILES,
    SCHEMAS,
    cli_groups,
    gno_env,
    run_gno,
    schemas_by_id,
)
from gno_contracts.operations import BY_ID, OPERATIONS, McpBinding, Operation, RestBinding

REGISTRY_YAML = SCHEMAS / "operations.yaml"
RAW = yaml.safe_load(REGISTRY_YAML.read_text(encoding="utf-8"))["operations"]
OP_IDS = [op.id for op in OPERATIONS]

# POST /api/models/pull: {started: true}; POST /api/embed waits for the run: {embedded, errors}
GNO_200_JOBS = frozenset({"models_pull", "embed"})


def test_registry_is_not_empty() -> None:
    assert len(OPERATIONS) >= 10
    assert all(isinstance(op, Operation) for op in OPERATIONS)


# ------------------------------------------------------------------ yaml <-> generated


def test_same_ids_in_same_order() -> None:
    assert [op["id"] for op in RAW] == OP_IDS


@pytest.mark.parametrize("index", range(len(RAW)), ids=[op["id"] for op in RAW])
def test_generated_entry_matches_yaml(index: int) -> None:
    raw, op = RAW[index], OPERATIONS[index]
    assert op.id == raw["id"]
    assert op.summary == raw["summary"]
    assert op.input_schema == f"gno://schemas/{raw['input']}"
    assert op.output_schema == f"gno://schemas/{raw['output']}"
    assert op.access == raw["access"]
    assert op.job is bool(raw.get("job"))
    cli = raw.get("cli")
    assert op.cli == (cli["command"] if isinstance(cli, dict) else cli)
    mcp, rest = raw.get("mcp"), raw.get("rest")
    expected_mcp = None
    if mcp:
        receipt = mcp.get("receipt")
        expected_mcp = McpBinding(
            mcp["tool"],
            tuple(mcp["profiles"]),
            f"gno://schemas/{receipt}" if receipt else None,
            mcp.get("brief"),
            bool(mcp.get("destructive", False)),
            bool(mcp.get("idempotent", True)),
            mcp.get("text"),
        )
    assert op.mcp == expected_mcp
    expected_rest = None
    if rest:
        own = {}
        for key in ("input", "output"):
            ref = rest.get(key)
            own[key] = (
                (f"gno://schemas/{ref}", _schema_model_ref(f"gno://schemas/{ref}"))
                if ref
                else (None, None)
            )
        roots = rest.get("roots")
        expected_rest = RestBinding(
            rest["method"],
            rest["path"],
            rest.get("status", 200),
            *own["input"],
            *own["output"],
            rest.get("body"),
            rest.get("view"),
            rest.get("redact"),
            tuple(roots.split(".")) if roots else None,
        )
    assert op.rest == expected_rest


def _schema_model_ref(schema_id: str) -> str:
    """``module:Class`` of a schema's generated model."""
    name = schema_id.removeprefix("gno://schemas/").split("@")[0].replace("-", "_")
    return f"{name}:{schemas_by_id()[schema_id]['title']}"


def test_by_id_indexes_every_operation() -> None:
    assert list(BY_ID) == OP_IDS
    assert all(BY_ID[op.id] is op for op in OPERATIONS)


def test_yaml_entries_have_only_known_keys() -> None:
    known = {"id", "summary", "input", "output", "access", "job", "cli", "mcp", "rest"}
    known |= {"handler", "starter", "payload", "execution", "cancellable", "cacheable", "daemon"}
    for raw in RAW:
        assert set(raw) <= known, f"{raw['id']}: unknown keys {set(raw) - known}"
        assert {"id", "summary", "input", "output", "access"} <= set(raw)


def test_only_reads_the_cli_runs_have_a_payload_function() -> None:
    """The lean read path (gno/services/wire.py) answers without a write lease or a job."""
    lean = [op for op in OPERATIONS if op.payload is not None]
    assert {op.id for op in lean} >= {"search", "get", "status"}
    for op in lean:
        assert (op.access, op.job, op.cli_shape is not None) == ("read", False, True), op.id


def _yaml_summary_text(op_id: str) -> str:
    """The summary exactly as written in operations.yaml (rest of the line)."""
    text = REGISTRY_YAML.read_text(encoding="utf-8")
    block = re.search(rf"- id: {re.escape(op_id)}\n(.*?)(?=\n  - id: |\Z)", text, re.S)
    assert block, op_id
    line = re.search(r"^\s*summary:\s*(.*)$", block.group(1), re.M)
    assert line, op_id
    return line.group(1).strip().strip("'\"")


@pytest.mark.parametrize("op", OPERATIONS, ids=OP_IDS)
def test_summary_is_a_whole_sentence(op: Operation) -> None:
    """The one description every surface shows: a full sentence, and exactly what
    the YAML author wrote (an unquoted ` #` starts a YAML comment and cuts it)."""
    assert op.summary == _yaml_summary_text(op.id)
    assert op.summary[:1].isupper() and op.summary.endswith(".")


# ------------------------------------------------------------------ registry <-> schemas


def test_ids_unique_and_snake_case() -> None:
    assert len(OP_IDS) == len(set(OP_IDS))
    assert all(re.fullmatch(r"[a-z][a-z_]*", i) for i in OP_IDS)


FOLDER_OF = {json.loads(p.read_text(encoding="utf-8"))["$id"]: p.parent.name for p in SCHEMA_FILES}


@pytest.mark.parametrize("op", OPERATIONS, ids=OP_IDS)
def test_schemas_exist_in_the_right_folder(op: Operation) -> None:
    assert FOLDER_OF.get(op.input_schema) == "input", op.input_schema
    assert FOLDER_OF.get(op.output_schema) == "output", op.output_schema


def _import_model(ref: str) -> type:
    module, _, cls = ref.partition(":")
    return getattr(importlib.import_module(f"gno_contracts.models.{module}"), cls)


@pytest.mark.parametrize("op", OPERATIONS, ids=OP_IDS)
def test_models_import_and_match_schema_titles(op: Operation) -> None:
    from pydantic import BaseModel, RootModel

    for ref, schema_id in ((op.input_model, op.input_schema), (op.output_model, op.output_schema)):
        schema = schemas_by_id()[schema_id]
        module, _, cls_name = ref.partition(":")
        assert module == schema_id.removeprefix("gno://schemas/").split("@")[0].replace("-", "_")
        assert cls_name == schema["title"]
        cls = _import_model(ref)
        assert cls.__name__ == schema["title"]
        assert issubclass(cls, BaseModel | RootModel)


def test_every_operation_model_is_what_services_resolve() -> None:
    from gno.services import model

    for op in OPERATIONS:
        assert model(op.input_model) is _import_model(op.input_model)
        assert model(op.output_model) is _import_model(op.output_model)


@pytest.mark.parametrize("op", OPERATIONS, ids=OP_IDS)
def test_access_and_job_flags(op: Operation) -> None:
    assert op.access in ("read", "write")
    assert isinstance(op.job, bool)
    if op.job:
        assert op.access == "write", "only writes run as background jobs"


# ------------------------------------------------------------------ surface bindings


def test_mcp_tool_names_unique_and_well_formed() -> None:
    tools = [op.mcp.tool for op in OPERATIONS if op.mcp]
    assert tools, "no operation is exposed over MCP"
    assert len(tools) == len(set(tools))
    for op in OPERATIONS:
        if op.mcp:
            assert re.fullmatch(r"gno_[a-z_]+", op.mcp.tool), op.mcp.tool
            assert op.mcp.profiles and len(set(op.mcp.profiles)) == len(op.mcp.profiles)
            assert all(re.fullmatch(r"[a-z]+", p) for p in op.mcp.profiles)


def test_rest_bindings_well_formed_and_unique() -> None:
    routes = [(op.rest.method, op.rest.path) for op in OPERATIONS if op.rest]
    assert routes, "no operation is exposed over REST"
    assert len(routes) == len(set(routes))
    for op in OPERATIONS:
        if op.rest:
            assert op.rest.path.startswith("/api/"), op.rest.path
            assert re.fullmatch(r"/api(/([a-z0-9_-]+|{[A-Za-z]+}))+", op.rest.path), op.rest.path
            assert op.rest.method in ("GET", "POST", "PUT", "PATCH", "DELETE")
            assert op.rest.status in (200, 201, 202)
            # Jobs answer 202, but where GNO's route answers 200 (a model pull) gno keeps it.
            job_status = 200 if op.id in GNO_200_JOBS else 202
            assert (op.rest.status == job_status) if op.job else op.rest.status != 202, op.id
            if op.access == "write":
                assert op.rest.method != "GET", f"{op.id} writes but is bound to GET"
            for schema_id, folder in (
                (op.rest.input_schema, "input"),
                (op.rest.output_schema, "output"),
            ):
                if schema_id is not None:
                    assert FOLDER_OF.get(schema_id) == folder, schema_id


def test_cli_bindings_unique() -> None:
    commands = [op.cli for op in OPERATIONS if op.cli]
    assert len(commands) == len(set(commands))
    # one to three words: `collection policy get` (surfaces.md §2.4) is the only three
    assert all(re.fullmatch(r"[a-z-]+( [a-z-]+){0,2}", c) for c in commands)


# ------------------------------------------------------------------ handlers


def test_every_operation_names_its_handler_and_job_starter() -> None:
    assert all(op.handler for op in OPERATIONS)
    assert {op.id for op in OPERATIONS if op.starter} == {op.id for op in OPERATIONS if op.job}


@pytest.mark.parametrize("op", OPERATIONS, ids=OP_IDS)
def test_handler_resolves_to_a_callable(op: Operation) -> None:
    from gno.services import handler

    assert callable(handler(op.id))


def _references() -> list[str]:
    """Every dotted reference the registry carries (behaviour per surface)."""
    refs = []
    for op in OPERATIONS:
        refs += [op.handler, op.starter]
        if op.mcp:
            refs.append(op.mcp.text)
        if op.rest:
            refs += [op.rest.body, op.rest.view, op.rest.redact]
        if op.cli_shape:
            refs += [op.cli_shape.prepare, op.cli_shape.render, op.cli_shape.exit]
    return sorted({r for r in refs if r})


@pytest.mark.parametrize("ref", _references())
def test_every_registry_reference_resolves_to_a_callable(ref: str) -> None:
    from gno.services import resolve

    assert callable(resolve(ref))


def _generator() -> object:
    spec = importlib.util.spec_from_file_location("gno_generate", SCHEMAS / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generator_refuses_a_missing_reference() -> None:
    generate = _generator()
    assert generate.check_ref("gno.services.search:search", "x") == "gno.services.search:search"  # type: ignore[attr-defined]
    for bad in (
        "gno.services.search:no_such_handler",
        "gno.no_such_module:f",
        "gno.services.search",
    ):
        with pytest.raises(SystemExit) as stopped:
            generate.check_ref(bad, "operation x handler")  # type: ignore[attr-defined]
        assert "operation x handler" in str(stopped.value)


def test_generator_refuses_an_option_for_no_input_field() -> None:
    generate = _generator()
    schema = {"$id": "gno://schemas/x-input@1.0", "properties": {"limit": {"type": "integer"}}}
    ok = generate._param({"to": "limit", "flags": ["-n"], "help": "h."}, schema, False, "op")  # type: ignore[attr-defined]
    assert "kind='int'" in ok
    with pytest.raises(SystemExit) as stopped:
        generate._param({"to": "limt", "flags": ["-n"], "help": "h."}, schema, False, "op x cli")  # type: ignore[attr-defined]
    assert "limt" in str(stopped.value)


def test_generator_refuses_a_list_argument_before_another() -> None:
    """The CLI's lean parser gives a list argument the words left over (gno/cli/fast.py)."""
    generate = _generator()
    registry = {"operations": [], "cli_groups": {}, "cli_formats": {}}
    props = {"ref": {"type": "string"}, "query": {"type": "string"}}
    schema = {"$id": "gno://schemas/x-input@1.0", "properties": props}
    words = {"name": "words", "to": "query", "join": " ", "help": "h."}
    op = {"id": "x", "cli": {"command": "x", "args": [words, {"to": "ref", "help": "h."}]}}
    with pytest.raises(SystemExit) as stopped:
        generate._cli_shape(op, schema, registry)  # type: ignore[attr-defined]
    assert "only the last argument may be a list" in str(stopped.value)
    op["cli"]["args"].reverse()  # type: ignore[index]
    assert "kind='list'" in generate._cli_shape(op, schema, registry)  # type: ignore[attr-defined]


def test_rest_execution_classes_are_known() -> None:
    assert {op.execution for op in OPERATIONS} <= {"reader", "writer", "memory", "lane"}
    assert all(op.execution == "writer" for op in OPERATIONS if op.access == "write")
    # a body mapping exists exactly where REST has its own input schema
    for op in OPERATIONS:
        if op.rest:
            assert bool(op.rest.body) == bool(op.rest.input_schema), op.id


# ------------------------------------------------------------------ CLI


def _help_commands(text: str) -> dict[str, str]:
    """``name -> help line`` from the Commands: section of click help output."""
    section = text.split("Commands:", 1)[1]
    found = {}
    for line in section.splitlines():
        m = re.match(r"^  ([a-z][a-z-]*)\s{2,}(.*)$", line)
        if m:
            found[m.group(1)] = m.group(2).strip()
    return found


@pytest.fixture(scope="module")
def help_listing(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    env = gno_env(tmp_path_factory.mktemp("help"))
    listing = {}
    for group in ["", *sorted(cli_groups())]:
        done = run_gno(env, *group.split(), "--help")
        assert done.returncode == 0, done.stderr
        listing[group] = _help_commands(done.stdout)
    return listing


@pytest.mark.parametrize(
    "op", [op for op in OPERATIONS if op.cli], ids=[op.id for op in OPERATIONS if op.cli]
)
def test_cli_command_is_listed_in_help(
    op: Operation, help_listing: dict[str, dict[str, str]]
) -> None:
    group, _, name = op.cli.rpartition(" ")
    listing = help_listing[group]
    assert name in listing, f"`gno {group} --help` does not list {name}"
    shown = listing[name].removesuffix("...")
    assert op.summary.startswith(shown), (
        f"help line {listing[name]!r} is not the registry summary {op.summary!r}"
    )


# Commands that run a server rather than one operation (the MCP stdio server).
SERVER_COMMANDS = {"mcp serve"}


def test_help_lists_no_unregistered_commands(help_listing: dict[str, dict[str, str]]) -> None:
    registered = {op.cli for op in OPERATIONS if op.cli}
    groups = cli_groups()
    # a group that is also a command (`graph` beside `graph query`) counts as both
    listed = {n for n in help_listing[""] if n not in groups or n in registered} | {
        f"{group} {n}" for group in groups for n in help_listing[group]
    }
    listed -= SERVER_COMMANDS
    # Commands without a registry operation (e.g. future serve/mcp) are allowed,
    # but none of the listed data commands may be missing from the registry.
    assert registered <= listed
    for group in groups:  # inside a group, every command is a registry operation
        assert {c for c in listed if c.startswith(f"{group} ")} == {
            c for c in registered if c.startswith(f"{group} ")
        }


def test_cli_command_help_is_the_registry_summary() -> None:
    import typer.main

    from gno.cli.app import app

    root = typer.main.get_command(app)
    for op in OPERATIONS:
        if not op.cli:
            continue
        cmd = root
        for word in op.cli.split():
            cmd = cmd.commands[word]  # type: ignore[attr-defined]
        assert cmd.help == op.summary, op.id


# ------------------------------------------------------------------ generated/ freshness


def test_generated_code_is_fresh() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "schemas" / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr or proc.stdout
