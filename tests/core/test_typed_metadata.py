"""Typed frontmatter metadata (spec/records.md § Typed metadata)."""

from __future__ import annotations

import datetime as dt

from gno.core.typed_metadata import typed_metadata, typed_value


def test_types() -> None:
    assert typed_value(3) == ("number", 3)
    assert typed_value("-1.5") == ("number", -1.5)
    assert typed_value("1.") == ("number", 1.0)  # once a ValueError that lost the note
    assert typed_value("-7.") == ("number", -7.0)
    assert typed_value(".") == ("string", ".") and typed_value("-") == ("string", "-")
    assert typed_value("1e5") == ("string", "1e5")
    assert typed_value("nan") == ("string", "nan")
    assert typed_value(float("inf")) is None
    assert typed_value(True) == ("string", "true")
    assert typed_value(dt.date(2026, 12, 24)) == ("date", "2026-12-24T00:00:00.000Z")
    assert typed_value("2026-12-24") == ("date", "2026-12-24T00:00:00.000Z")
    assert typed_value("2026 plans") == ("string", "2026 plans")
    assert typed_value(["a", 1, {"x": 1}]) == ("list", ["a", "1"])
    assert typed_value({"a": 1}) is None
    assert typed_value("  ") is None


def test_keys_normalized_and_bounded() -> None:
    data = {"dueDate": "2026-01-01", "relations": {"a": ["b"]}, **{f"k{i}": i for i in range(100)}}
    typed = typed_metadata(data)
    assert typed["due_date"][0] == "date" and "relations" not in typed
    assert len(typed) == 64
