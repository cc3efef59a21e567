"""The retrieval trace database's schema versions (gno/adapters/sqlite/trace_db.py): a file
written by an older gno is upgraded in place, keeping its traces, one of a newer gno is
refused unwritten, and retention's aggregate reads a narrow index instead of every stored
trace."""

from __future__ import annotations

import json
from pathlib import Path

import apsw
import pytest

from gno.adapters.sqlite.trace_db import SCHEMA_V1, SCHEMA_VERSION, TraceDb
from gno.errors import NewerIndexError

RETENTION_READ = "SELECT count(*), total(byte_size), min(expires_at_ms) FROM retrieval_traces"


def _version_1_file(path: Path, traces: int) -> None:
    conn = apsw.Connection(str(path))
    conn.execute(SCHEMA_V1)
    conn.execute("PRAGMA user_version = 1")
    for n in range(traces):
        conn.execute(
            "INSERT INTO retrieval_traces (trace_id, status, trace_json, created_at_ms, "
            "updated_at_ms, expires_at_ms, byte_size) VALUES (?, 'completed', ?, ?, ?, ?, ?)",
            (f"trc_{n}", json.dumps({"n": n, "pad": "x" * 2000}), n, n, 1000 + n, 2000),
        )
    conn.close()


def _indexes(conn: apsw.Connection) -> set[str]:
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'retrieval_traces'"
    )
    return {str(name) for (name,) in rows}


def test_a_version_1_file_is_upgraded_in_place_and_keeps_its_traces(tmp_path: Path) -> None:
    path = tmp_path / "trace-x.db"
    _version_1_file(path, traces=30)
    db = TraceDb.open(path)
    try:
        assert db.version() == SCHEMA_VERSION == 2
        names = _indexes(db.conn)
        assert "retrieval_traces_budget" in names and "retrieval_traces_expires" not in names
        assert db.conn.execute(RETENTION_READ).fetchone() == (30, 60000.0, 1000)
    finally:
        db.close()
    TraceDb.open(path).close()  # opening an upgraded file again changes nothing


def test_retention_reads_the_covering_index_not_the_traces(tmp_path: Path) -> None:
    db = TraceDb.open(tmp_path / "trace-new.db")
    try:
        plan = " ".join(
            str(row[-1]) for row in db.conn.execute("EXPLAIN QUERY PLAN " + RETENTION_READ)
        )
        assert "COVERING INDEX retrieval_traces_budget" in plan, plan
    finally:
        db.close()


def test_a_file_from_a_newer_gno_is_refused_and_never_written(tmp_path: Path) -> None:
    # Before: it was opened and written to (a newer schema's rows may not be what this gno
    # writes); now it is refused before any write, the journal mode's included.
    path = tmp_path / "trace-newer.db"
    _version_1_file(path, traces=1)
    conn = apsw.Connection(str(path))
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(NewerIndexError) as refused:
        TraceDb.open(path)
    assert refused.value.message == (
        f"The retrieval trace database {path} was written by a newer gno (schema "
        f"{SCHEMA_VERSION + 1}; this gno knows up to {SCHEMA_VERSION}): traces are off until "
        "gno is upgraded; nothing was changed"
    )
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace-newer.db"]  # no WAL either
