"""The CLI built from the registry: unset options leave the schema default in force,
options declared once, the flag rules the registry states."""

from __future__ import annotations

from typing import Any

import pytest
import typer.main
from gno_contracts.operations import BY_ID, OPERATIONS

from gno.cli.app import app
from gno.cli.runner import collect
from gno.errors import ValidationError
from gno.services import validated


def _defaults(op_id: str, **given: Any) -> dict[str, Any]:
    """What typer hands the runner when only ``given`` is on the command line."""
    shape = BY_ID[op_id].cli_shape
    assert shape is not None
    values: dict[str, Any] = {}
    for p in shape.params:
        values[p.name] = False if (p.kind == "bool" and p.flags) else None
    return values | given


def _command(words: str) -> Any:
    cmd: Any = typer.main.get_command(app)
    for word in words.split():
        cmd = cmd.commands[word]
    return cmd


@pytest.mark.parametrize("op", [op for op in OPERATIONS if op.cli_shape], ids=lambda op: op.id)
def test_value_options_default_to_unset(op: Any) -> None:
    """No restated defaults: every option that carries a value is None until given."""
    for param in _command(op.cli).params:
        if param.param_type_name == "option" and not param.is_flag:
            assert param.default is None, f"{op.cli} {param.opts}"


@pytest.mark.parametrize(
    ("op_id", "field", "schema_default"),
    [("multi_get", "maxBytes", 10240), ("ls", "limit", 20), ("embed", "batchSize", 32)],
)
def test_schema_default_holds_when_the_option_is_absent(
    op_id: str, field: str, schema_default: int
) -> None:
    shape = BY_ID[op_id].cli_shape
    assert shape is not None
    given = {"refs": ["notes/a.md"]} if op_id == "multi_get" else {}
    fields, _ = collect(shape, _defaults(op_id, **given))
    assert field not in fields
    assert getattr(validated(op_id, fields), field) == schema_default
    cmd = _command(BY_ID[op_id].cli or "")
    help_text = cmd.get_help(typer.Context(cmd))
    assert f"[default: {schema_default}]" in " ".join(help_text.split())


def test_option_wins_over_the_positional_collection() -> None:
    shape = BY_ID["embed"].cli_shape
    assert shape is not None
    fields, _ = collect(shape, _defaults("embed", collection_arg="notes", collection="misc"))
    assert fields["collection"] == "misc"
    fields, _ = collect(shape, _defaults("embed", collection_arg="notes"))
    assert fields["collection"] == "notes"


def test_comma_lists_flags_and_view_flags() -> None:
    shape = BY_ID["search"].cli_shape
    assert shape is not None
    fields, view = collect(
        shape, _defaults("search", query=["a", "b"], category="x, y,", full=True, line_numbers=True)
    )
    assert fields["query"] == "a b" and fields["categories"] == ["x", "y"]
    assert fields["full"] is True and fields["includeAbsPath"] is False  # a flag is its value
    assert view == {"full": True, "line_numbers": True}


def test_exclusive_flags_are_refused() -> None:
    shape = BY_ID["query"].cli_shape
    assert shape is not None
    with pytest.raises(ValidationError, match="Choose --fast or --thorough, not both"):
        collect(shape, _defaults("query", query=["q"], fast=True, thorough=True))
    with pytest.raises(ValidationError, match="Choose --expand or --no-expand, not both"):
        collect(shape, _defaults("query", query=["q"], expand=True, no_expand=True))
    fields, _ = collect(shape, _defaults("query", query=["q"], no_expand=True, no_rerank=True))
    assert fields["expand"] is False and fields["rerank"] is False


def test_role_flags_append_and_all_clears() -> None:
    shape = BY_ID["models_pull"].cli_shape
    assert shape is not None
    fields, _ = collect(shape, _defaults("models_pull", embed=True, gen=True))
    assert fields["roles"] == ["embed", "gen"]
    fields, _ = collect(shape, _defaults("models_pull", embed=True, all_=True))
    assert "roles" not in fields
    fields, _ = collect(shape, _defaults("models_pull"))
    assert "roles" not in fields


def test_global_options_are_read_from_the_root_declaration() -> None:
    """entry.py moves them to the front; the list is the registry's cli_globals, declared once."""
    from gno.cli.entry import hoist_globals
    from gno.cli.settings import HOISTED_FLAGS as flags
    from gno.cli.settings import HOISTED_VALUES as with_value

    assert with_value == {"--index", "--config"}
    assert flags == {"--no-color", "--verbose", "--yes", "-q", "--quiet", "--offline", "--no-pager"}
    argv = ["search", "x", "--index", "work", "-q", "--json", "--", "--yes"]
    assert hoist_globals(argv, with_value, flags) == [
        "--index", "work", "-q", "search", "x", "--json", "--", "--yes"
    ]  # fmt: skip
