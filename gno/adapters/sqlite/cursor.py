"""Reading one value from a query that always returns a row (counts, pragmas, max()), and
the index state a connection sees."""

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


def index_state(conn: apsw.Connection) -> tuple[int, int]:
    """Moves whenever the index this connection reads may have changed: SQLite's
    ``PRAGMA data_version`` (another connection committed) with this connection's
    ``total_changes()`` (its own writes). What is derived from the index is kept under it."""
    ((version,),) = conn.execute("PRAGMA data_version").fetchall()
    return int(str(version)), conn.total_changes()
