"""The error tree: every user-visible failure class lives in gno/errors.py and carries its
three surface mappings (CLI exit code, HTTP status, wire code), documented where they show."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import gno.errors as errors
from gno.errors import GnoError
from gno.rest.errors import REST_CODES

ROOT = Path(__file__).resolve().parents[2]
GNO = ROOT / "gno"


def _tree() -> list[type[GnoError]]:
    found: list[type[GnoError]] = []
    pending: list[type[GnoError]] = [GnoError]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


ERROR_CLASSES = [cls for cls in _tree() if cls.__module__ == "gno.errors"]
ERROR_NAMES = {cls.__name__ for cls in ERROR_CLASSES}


def _bases(node: ast.ClassDef) -> set[str]:
    names = set()
    for base in node.bases:
        if isinstance(base, ast.Name):
            names.add(base.id)
        elif isinstance(base, ast.Attribute):
            names.add(base.attr)
    return names


def test_every_error_class_is_defined_in_gno_errors() -> None:
    # Parsed, not imported: a class in a module no test imports is found too.
    strays = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"
        for path in sorted(GNO.rglob("*.py"))
        if path != GNO / "errors.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and _bases(node) & ERROR_NAMES
    ]
    assert strays == [], "GnoError subclasses outside gno/errors.py"


def test_every_loaded_error_class_comes_from_gno_errors() -> None:
    for module in ("gno.rest.app", "gno.services.jobs", "gno.resident.runtime", "gno.mcp.tools"):
        importlib.import_module(module)

    assert [c.__qualname__ for c in _tree() if c.__module__ != "gno.errors"] == []


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda c: c.__name__)
def test_error_class_has_exit_code_http_status_and_wire_code(cls: type[GnoError]) -> None:
    # Context Capsule codes are GNO's lowercase ones; every other code is upper snake.
    pattern = r"[a-z][a-z_]*" if issubclass(cls, errors.ContextError) else r"[A-Z][A-Z_]*"
    assert re.fullmatch(pattern, cls.code), cls.code
    assert cls.exit_code in (1, 2, 130)
    assert 400 <= cls.http_status <= 599
    assert cls("x").cli_code == ("VALIDATION" if cls.exit_code == 1 else "RUNTIME")


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda c: c.__name__)
def test_error_class_is_in_the_documented_tree(cls: type[GnoError]) -> None:
    doc = errors.__doc__ or ""
    line = next((row for row in doc.splitlines() if f" {cls.__name__} (" in row), None)
    assert line is not None, f"{cls.__name__} is missing from the tree in gno/errors.py"
    assert cls.code in line


def _rest_table() -> dict[int, str]:
    text = (ROOT / "spec" / "rest.md").read_text(encoding="utf-8")
    return {int(m[1]): m[2] for m in re.finditer(r"^\| (\d{3}) \| (.*) \|$", text, re.M)}


@pytest.mark.parametrize(
    "cls", [c for c in ERROR_CLASSES if c.http_status not in (499, 500)], ids=lambda c: c.__name__
)
def test_rest_status_and_code_are_in_the_spec_table(cls: type[GnoError]) -> None:
    row = _rest_table().get(cls.http_status, "")
    assert f"`{REST_CODES.get(cls.code, cls.code)}`" in row, (cls.http_status, row)
