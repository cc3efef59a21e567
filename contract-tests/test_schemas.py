"""Every schema is valid 2020-12, named after its file, documented by examples that
validate, and mirrored by a generated pydantic model that round-trips them."""

from __future__ import annotations

import copy
import importlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import (
    EXAMPLES,
    FORMAT_CHECKER,
    GENERATED,
    SCHEMA_FILES,
    schema_name,
    validator,
)
from jsonschema import Draft202012Validator
from pydantic import BaseModel
from pydantic import ValidationError as ModelError

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


SCHEMAS: dict[str, dict[str, Any]] = {f"{p.parent.name}/{p.name}": _load(p) for p in SCHEMA_FILES}
NAMES = {fname: schema_name(s["$id"]) for fname, s in SCHEMAS.items()}
EXAMPLE_CASES = [
    pytest.param(fname, ex, id=f"{NAMES[fname]}/{ex.name}")
    for fname in SCHEMAS
    for ex in sorted((EXAMPLES / NAMES[fname]).glob("*.json"))
]


def model_for(fname: str) -> type[BaseModel]:
    """The generated class: title of the gno_contracts/schemas copy -> class in the module."""
    name = NAMES[fname]
    copy_ = _load(GENERATED / "schemas" / f"{name}.json")
    module = importlib.import_module(f"gno_contracts.models.{name.replace('-', '_')}")
    cls = getattr(module, copy_["title"], None)
    assert cls is not None, f"gno_contracts.models.{module.__name__} has no class {copy_['title']}"
    assert issubclass(cls, BaseModel)
    return cls


def model_accepts(cls: type[BaseModel], payload: Any) -> bool:
    try:
        cls.model_validate(payload)
    except ModelError:
        return False
    return True


# ------------------------------------------------------------------ schemas


def test_there_are_schemas() -> None:
    assert len([p for p in SCHEMA_FILES if p.parent.name == "output"]) >= 10
    assert len([p for p in SCHEMA_FILES if p.parent.name == "input"]) >= 10


@pytest.mark.parametrize("fname", SCHEMAS)
def test_schema_is_valid_2020_12(fname: str) -> None:
    schema = SCHEMAS[fname]
    assert schema.get("$schema") == DRAFT
    Draft202012Validator.check_schema(schema)
    assert isinstance(schema.get("title"), str) and re.fullmatch(
        r"[A-Z][A-Za-z0-9]*", schema["title"]
    )
    assert schema.get("type") in ("object", "array")  # collection-list is a bare array


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_schema_id_matches_file_name(path: Path) -> None:
    stem = path.name.removesuffix(".schema.json")
    expected = stem if path.parent.name == "output" else f"{stem}-input"
    assert re.fullmatch(rf"gno://schemas/{re.escape(expected)}@\d+\.\d+", _load(path)["$id"])


def test_schema_ids_and_titles_are_unique() -> None:
    ids = [s["$id"] for s in SCHEMAS.values()]
    assert len(ids) == len(set(ids))
    names = [schema_name(i) for i in ids]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("fname", SCHEMAS)
def test_all_refs_resolve_locally(fname: str) -> None:
    schema = SCHEMAS[fname]
    refs: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    for ref in refs:
        assert ref.startswith("#/$defs/"), f"non-local $ref {ref}"
        assert ref.removeprefix("#/$defs/") in schema.get("$defs", {}), f"dangling $ref {ref}"


# ------------------------------------------------------------------ examples


@pytest.mark.parametrize("fname", SCHEMAS)
def test_schema_has_at_least_two_examples(fname: str) -> None:
    assert len(list((EXAMPLES / NAMES[fname]).glob("*.json"))) >= 2


def test_no_orphan_example_folders() -> None:
    folders = {p.name for p in EXAMPLES.iterdir() if p.is_dir()}
    assert folders == set(NAMES.values())


@pytest.mark.parametrize(("fname", "example"), EXAMPLE_CASES)
def test_example_validates(fname: str, example: Path) -> None:
    errors = list(validator(SCHEMAS[fname]["$id"]).iter_errors(_load(example)))
    assert not errors, [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]


def test_format_checker_checks_date_time() -> None:
    """The date-time format must really be checked (jsonschema skips it silently
    when rfc3339-validator is missing; contract_helpers supplies a checker)."""
    assert FORMAT_CHECKER.conforms("2026-08-01T12:00:00.000Z", "date-time")
    assert FORMAT_CHECKER.conforms("2026-08-01T12:00:00+02:00", "date-time")
    assert not FORMAT_CHECKER.conforms("2026-08-01", "date-time")
    assert not FORMAT_CHECKER.conforms("2026-13-01T00:00:00Z", "date-time")
    assert not FORMAT_CHECKER.conforms("yesterday", "date-time")


# ------------------------------------------------------------------ generated models


@pytest.mark.parametrize("fname", SCHEMAS)
def test_generated_schema_copy_is_identical(fname: str) -> None:
    assert _load(GENERATED / "schemas" / f"{NAMES[fname]}.json") == SCHEMAS[fname]


@pytest.mark.parametrize("fname", SCHEMAS)
def test_generated_model_has_schema_title(fname: str) -> None:
    assert model_for(fname).__name__ == SCHEMAS[fname]["title"]


@pytest.mark.parametrize(("fname", "example"), EXAMPLE_CASES)
def test_model_round_trips_example(fname: str, example: Path) -> None:
    data = _load(example)
    dumped = model_for(fname).model_validate(data).model_dump(mode="json", exclude_unset=True)
    assert dumped == data


# ------------------------------------------------------------------ invalid mutations


def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while isinstance(node, dict) and "$ref" in node:
        node = root["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node


def _object_nodes(
    root: dict[str, Any], node: dict[str, Any], value: Any, path: tuple
) -> Iterator[tuple]:
    """(path, schema node, value) of every JSON object in an example, with the
    (resolved) schema that describes it."""
    node = _resolve(root, node)
    for branch in node.get("anyOf", []) + node.get("oneOf", []):
        branch = _resolve(root, branch)
        if isinstance(value, dict) and branch.get("type") == "object":
            yield from _object_nodes(root, branch, value, path)
    if isinstance(value, dict) and "properties" in node:
        yield path, node, value
        for key, sub in value.items():
            if key in node["properties"]:
                yield from _object_nodes(root, node["properties"][key], sub, (*path, key))
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for i, item in enumerate(value):
            yield from _object_nodes(root, node["items"], item, (*path, i))


def _enum_paths(root: dict[str, Any], value: Any) -> Iterator[tuple]:
    for path, node, obj in _object_nodes(root, root, value, ()):
        for key in obj:
            prop = _resolve(root, node["properties"].get(key, {}))
            if "enum" in prop or "const" in prop:
                yield (*path, key)


def _set(doc: Any, path: tuple, value: Any) -> Any:
    doc = copy.deepcopy(doc)
    target = doc
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return doc


def _mutation_cases() -> list[Any]:
    cases = []
    for fname, schema in SCHEMAS.items():
        for example in sorted((EXAMPLES / NAMES[fname]).glob("*.json")):
            data = _load(example)
            tag = f"{NAMES[fname]}/{example.stem}"
            closed = [
                p
                for p, n, _ in _object_nodes(schema, schema, data, ())
                if n.get("additionalProperties") is False
            ]
            if schema.get("type") == "object" and example.stem.startswith("01"):
                # Open inputs (GNO ignores unknown keys) still take objects only.
                cases.append(pytest.param(fname, ["not", "an", "object"], id=f"{tag}:type@root"))
            for path in closed[:3]:  # root first, then the first nested closed objects
                where = "/".join(map(str, path)) or "root"
                cases.append(
                    pytest.param(
                        fname, _set(data, (*path, "zzUnexpected"), 1), id=f"{tag}:extra@{where}"
                    )
                )
            for path in sorted(
                set(_enum_paths(schema, data)), key=lambda p: (len(p), list(map(str, p)))
            )[:3]:
                cases.append(
                    pytest.param(
                        fname,
                        _set(data, path, "zz-not-allowed"),
                        id=f"{tag}:enum@{'/'.join(map(str, path))}",
                    )
                )
            # A required `const` (schemaVersion) is generated with a default
            # (--use-one-literal-as-default), so the model fills it in instead of
            # rejecting its absence: by design, not a mutation the model must catch.
            required = [
                k for k in schema.get("required", []) if "const" not in schema["properties"][k]
            ]
            for key in required[:2]:
                if isinstance(data, dict) and key in data:
                    missing = {k: v for k, v in data.items() if k != key}
                    cases.append(pytest.param(fname, missing, id=f"{tag}:missing@{key}"))
    return cases


MUTATIONS = _mutation_cases()


def test_mutations_cover_every_schema() -> None:
    covered = {p.values[0] for p in MUTATIONS}
    assert covered == set(SCHEMAS)
    kinds = {p.id.rsplit(":", 1)[1].split("@")[0] for p in MUTATIONS}
    assert kinds == {"extra", "enum", "missing", "type"}


@pytest.mark.parametrize(("fname", "payload"), MUTATIONS)
def test_invalid_mutation_is_rejected(fname: str, payload: Any) -> None:
    assert not validator(SCHEMAS[fname]["$id"]).is_valid(payload), (
        "jsonschema accepted an invalid payload"
    )
    assert not model_accepts(model_for(fname), payload), (
        "the generated model accepted an invalid payload"
    )


@pytest.mark.parametrize(
    ("name", "pointer", "value"),
    [
        ("search-input", ("limit",), 0),
        ("search-input", ("limit",), 101),
        ("search-input", ("query",), ""),
        ("search-results", ("results", 0, "docid"), "abc123"),
        ("search-results", ("results", 0, "score"), 1.5),
        ("search-results", ("results", 0, "uri"), "notes/plan.md"),
        ("collection-add-input", ("name",), "Bad Name!"),
        ("error", ("error", "message"), 42),
    ],
    ids=lambda v: "/".join(map(str, v)) if isinstance(v, tuple) else repr(v),
)
def test_constraint_violations_are_rejected(name: str, pointer: tuple, value: Any) -> None:
    fname = next(f for f, n in NAMES.items() if n == name)
    data = _load(
        sorted((EXAMPLES / name).glob("*.json"))[-1 if name == "collection-add-input" else 0]
    )
    bad = _set(data, pointer, value)
    assert not validator(SCHEMAS[fname]["$id"]).is_valid(bad)
    assert not model_accepts(model_for(fname), bad)


def _open_object_cases() -> list[Any]:
    """The first open object (no additionalProperties: false) in each schema's examples."""
    cases = []
    for fname, schema in SCHEMAS.items():
        for example in sorted((EXAMPLES / NAMES[fname]).glob("*.json")):
            data = _load(example)
            found = [
                p
                for p, n, _ in _object_nodes(schema, schema, data, ())
                if "additionalProperties" not in n
            ]
            if found:
                where = "/".join(map(str, found[0])) or "root"
                cases.append(
                    pytest.param(fname, data, found[0], id=f"{NAMES[fname]}/{example.stem}@{where}")
                )
                break
    return cases


@pytest.mark.parametrize(("fname", "data", "path"), _open_object_cases())
def test_open_object_keeps_unknown_keys(fname: str, data: Any, path: tuple) -> None:
    """Open objects accept unknown keys (forward compatibility); the model must keep
    them, not drop them, or a dump loses data the schema allows."""
    extended = _set(data, (*path, "zzFutureField"), "kept")
    assert validator(SCHEMAS[fname]["$id"]).is_valid(extended)
    dumped = model_for(fname).model_validate(extended).model_dump(mode="json", exclude_unset=True)
    assert dumped == extended
