"""Reading one value from a query that always returns a row (counts, pragmas, max())."""

from __future__ import annotations

from typing import Any

import apsw


def scalar(cursor: apsw.Cursor) -> Any:
    """The first column of the first row. The query must return a row (an aggregate or a
    pragma does); a query that returns none is a bug, reported as such."""
    row = cursor.fetchone()
    if row is None:
        raise LookupError("the query returned no row")
    return row[0]


def all_rows(cursor: apsw.Cursor) -> list[tuple[Any, ...]]:
    """Every row, with values typed by the query that made them rather than by SQLite's
    storage classes (the caller's SQL decides what each column holds)."""
    return cursor.fetchall()
