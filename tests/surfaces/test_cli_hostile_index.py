"""A damaged, foreign or too new index file gets a clear error on every command and is
never written to: real `gno` processes on real SQLite files."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import apsw
import pytest

from gno.adapters.sqlite.migrations import MIGRATIONS

GNO = [sys.executable, "-m", "gno.cli.entry"]
LATEST = max(v for v, _ in MIGRATIONS)


def gno(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GNO, *args], capture_output=True, text=True, timeout=timeout, env=os.environ.copy()
    )


def error_of(done: subprocess.CompletedProcess[str]) -> dict:
    assert "Internal error" not in done.stderr, done.stderr
    return json.loads(done.stderr)["error"]


def digest(folder: Path) -> dict[str, str]:
    """Every index file of the data folder by content (the lock file is empty)."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file() and p.suffix != ".lock"
    }


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    """An index of one note; returns the index file."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nsampling\n")
    assert gno("init", str(root), "--name", "notes").returncode == 0
    assert gno("update").returncode == 0
    return Path(os.environ["GNO_DATA_DIR"]) / "index-default.sqlite"


def test_an_index_of_a_newer_gno_is_refused_and_left_as_it_was(indexed: Path) -> None:
    # Before: the newer schema was taken as current, and `gno update` wrote into it.
    conn = apsw.Connection(str(indexed))
    conn.execute("UPDATE schema_meta SET value = ? WHERE key = 'version'", (str(LATEST + 1),))
    conn.execute("CREATE TABLE from_the_future (x)")
    conn.close()
    before = digest(indexed.parent)
    for command in (["status"], ["search", "sampling"], ["update"], ["ls"]):
        done = gno(*command, "--json")
        assert done.returncode == 2, (command, done.stdout)
        error = error_of(done)
        assert error["code"] == "RUNTIME"
        assert f"written by a newer gno (schema {LATEST + 1}" in error["message"]
    done = gno("doctor", "--json")
    database = next(c for c in json.loads(done.stdout)["checks"] if c["name"] == "database")
    assert database["status"] == "error" and "newer gno" in database["message"]
    assert database["command"] == "upgrade gno"  # not "move it aside": it is intact
    assert digest(indexed.parent) == before
    conn = apsw.Connection(str(indexed))
    assert conn.execute("SELECT count(*) FROM from_the_future").fetchone()[0] == 0
    version = conn.execute("SELECT value FROM schema_meta WHERE key = 'version'").fetchone()[0]
    assert version == str(LATEST + 1)


def test_a_schema_version_that_is_not_a_number_is_a_clear_error(indexed: Path) -> None:
    conn = apsw.Connection(str(indexed))
    conn.execute("UPDATE schema_meta SET value = 'thirteen' WHERE key = 'version'")
    conn.close()
    before = digest(indexed.parent)
    done = gno("status", "--json")
    assert done.returncode == 2
    assert "no valid schema version ('thirteen')" in error_of(done)["message"]
    assert digest(indexed.parent) == before


def unprivileged() -> list[str]:
    """A prefix that makes file permissions bind (root ignores them): setpriv drops the
    capabilities that override them, for the one command only."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv is needed to run a command as root without DAC override")
    caps = "-dac_override,-dac_read_search,-fowner"
    return ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]


def gno_unprivileged(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*unprivileged(), *GNO, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )


def rows(index: Path) -> list[tuple[str, str]]:
    conn = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return conn.execute("SELECT collection, uri FROM documents ORDER BY uri").fetchall()
    finally:
        conn.close()


def test_a_read_only_index_is_a_clear_error_and_index_yml_stays_as_it_was(
    indexed: Path, tmp_path: Path
) -> None:
    config = Path(os.environ["GNO_CONFIG_DIR"]) / "index.yml"
    before = config.read_bytes()
    indexed.chmod(0o444)
    try:
        # Before: "Internal error (ReadOnlyError …)", and index.yml had the new collection.
        done = gno_unprivileged(
            "collection", "add", str(tmp_path / "notes"), "-n", "more", "--json"
        )
        assert done.returncode == 2, done.stdout
        error = error_of(done)
        assert error["code"] == "RUNTIME" and "cannot be written" in error["message"]
        assert config.read_bytes() == before
        done = gno_unprivileged("context", "add", "/", "always cite")  # no --json: text
        assert done.returncode == 2 and done.stderr.startswith("Error: The index ")
        assert "cannot be written" in done.stderr and "Internal error" not in done.stderr
        assert config.read_bytes() == before
        config.write_bytes(before)  # the same text in a new file: the mirror is due again
        done = gno_unprivileged("status", "--json")
        assert done.returncode == 2 and "cannot be written" in error_of(done)["message"]
    finally:
        indexed.chmod(0o644)
    assert gno("collection", "list", "--json").stdout.count('"name"') == 1


def test_an_unwritable_config_folder_leaves_the_index_as_it_was(indexed: Path) -> None:
    folder = Path(os.environ["GNO_CONFIG_DIR"])
    before = rows(indexed)
    assert before == [("notes", "gno://notes/a.md")]
    folder.chmod(0o555)
    try:
        # Before: "Internal error (PermissionError …)" after the rows were renamed, under
        # an index.yml that kept the old name.
        done = gno_unprivileged("collection", "rename", "notes", "renamed", "--json")
        assert done.returncode == 2, done.stdout
        assert error_of(done)["message"].startswith(f"Cannot write config {folder}/index.yml")
        assert rows(indexed) == before
        done = gno_unprivileged("collection", "remove", "notes", "--json")
        assert done.returncode == 2 and "Cannot write config" in error_of(done)["message"]
    finally:
        folder.chmod(0o755)
    assert json.loads(gno("search", "sampling", "--json").stdout)["results"][0]["uri"] == (
        "gno://notes/a.md"
    )


def test_a_trace_database_of_a_newer_gno_is_refused_and_never_written(indexed: Path) -> None:
    # Before: `gno search` recorded its trace into the newer file, whatever its schema held.
    config = Path(os.environ["GNO_CONFIG_DIR"]) / "index.yml"
    config.write_text(config.read_text() + "retrievalTraces:\n  enabled: true\n")
    assert gno("search", "sampling", "--json").stderr.startswith("Trace: trc_")
    traces = indexed.with_name("trace-default.db")
    conn = apsw.Connection(str(traces))
    newer = conn.execute("PRAGMA user_version").fetchone()[0] + 1
    conn.execute(f"PRAGMA user_version = {newer}")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = traces.read_bytes()
    done = gno("search", "sampling", "--json")
    assert done.returncode == 0, done.stderr  # the read answers, untraced
    assert json.loads(done.stdout)["results"] and "Trace:" not in done.stderr
    done = gno("trace", "list", "--json")
    assert done.returncode == 2
    assert error_of(done)["message"].startswith(
        f"The retrieval trace database {traces} was written by a newer gno (schema {newer};"
    )
    assert traces.read_bytes() == before


def test_a_data_folder_where_no_lock_file_can_be_made_is_a_clear_error(indexed: Path) -> None:
    # Before: "Internal error (PermissionError …index-default.lock)" for a collection
    # change, the same for `gno serve` (resident.lock) and `--detach` (serve.log).
    config = Path(os.environ["GNO_CONFIG_DIR"]) / "index.yml"
    before = config.read_text()
    folder = indexed.parent
    for lock in folder.glob("*.lock"):
        lock.unlink()
    other = indexed.parent.parent / "more"
    other.mkdir()
    folder.chmod(0o555)
    try:
        done = gno_unprivileged("collection", "add", str(other), "--name", "more", "--json")
        assert done.returncode == 2, done.stdout
        assert error_of(done)["message"] == f"Cannot use the folder {folder}: Permission denied"
        for command in (["serve", "--port", "0"], ["serve", "--detach", "--port", "0"]):
            done = gno_unprivileged(*command)
            assert done.returncode == 2, (command, done.stderr)
            assert "Internal error" not in done.stderr
            assert str(folder) in done.stderr and "Permission denied" in done.stderr
    finally:
        folder.chmod(0o755)
    assert config.read_text() == before
