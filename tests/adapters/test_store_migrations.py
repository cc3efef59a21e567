import apsw
import pytest

from gno.adapters.sqlite.migrations import MIGRATIONS
from gno.adapters.sqlite.store import SqliteStore
from gno.errors import LockedError, NotInitializedError

EXPECTED_TABLES = {
    "schema_meta",
    "collections",
    "contexts",
    "documents",
    "content",
    "content_chunks",
    "documents_fts",
    "outline_fts",
    "doc_tags",
    "doc_links",
    "ingest_errors",
    "expansion_cache",
}


LATEST = max(v for v, _ in MIGRATIONS)


def test_versions_unique_and_increasing():
    # Branches reserve numbers (m003 and m004 are written in parallel), so a branch may
    # lack one; what must hold is that no number is used twice and order is by number.
    versions = [v for v, _ in MIGRATIONS]
    assert versions == sorted(set(versions)) and versions[0] == 1


def test_blank_database_reaches_current_schema(tmp_path):
    store = SqliteStore.open(tmp_path / "i.sqlite", create=True)
    names = {
        r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table')")
    }
    assert names >= EXPECTED_TABLES
    assert store.schema_version() == LATEST
    assert store.get_meta("fts_tokenizer") == "porter unicode61 remove_diacritics 2"
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    sql = store.conn.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'documents_fts'"
    ).fetchone()[0]
    assert "porter unicode61" in sql
    store.close()
    reopened = SqliteStore.open(tmp_path / "i.sqlite")  # migrations are idempotent
    assert reopened.schema_version() == LATEST
    reopened.close()


def test_missing_database_is_not_created(tmp_path):
    with pytest.raises(NotInitializedError):
        SqliteStore.open(tmp_path / "nope.sqlite")
    assert not (tmp_path / "nope.sqlite").exists()


def test_failed_write_rolls_back_and_locked_writer_is_reported(tmp_path, monkeypatch):
    path = tmp_path / "i.sqlite"
    store = SqliteStore.open(path, create=True)
    with pytest.raises(RuntimeError), store.write():
        store.set_meta("probe", "1")
        raise RuntimeError("boom")
    assert store.get_meta("probe") is None
    other = apsw.Connection(str(path))
    other.execute("BEGIN IMMEDIATE")
    with pytest.raises(LockedError), store.write():
        pass
    other.execute("ROLLBACK")
    with store.write():
        store.set_meta("probe", "2")
    assert store.get_meta("probe") == "2"


def test_an_opener_that_waited_for_another_migration_runs_no_step_twice(tmp_path, monkeypatch):
    # Two processes open an old index at once (`gno serve` and `gno status` after an
    # upgrade): the second read the old version, waited for the first one's migration,
    # then ran the same steps again: "Internal error (SQLError: table graph_state already
    # exists)". Two connections on one real file, the first held inside its last step
    # until the second has read the version.
    import threading

    import gno.adapters.sqlite.store as store_module

    path = tmp_path / "i.sqlite"
    with monkeypatch.context() as patched:
        patched.setattr(store_module, "MIGRATIONS", [m for m in MIGRATIONS if m[0] <= 9])
        SqliteStore.open(path, create=True).close()
    monkeypatch.setenv("GNO_BUSY_TIMEOUT_MS", "60000")
    first_inside, second_read = threading.Event(), threading.Event()
    version, last_step = MIGRATIONS[-1]

    def held_step(conn, settings):
        if not first_inside.is_set():
            first_inside.set()
            assert second_read.wait(60)
        last_step(conn, settings)

    monkeypatch.setattr(store_module, "MIGRATIONS", [*MIGRATIONS[:-1], (version, held_step)])
    read_version = SqliteStore.schema_version

    def noted(self):
        found = read_version(self)
        if threading.current_thread().name == "second" and not second_read.is_set():
            assert found == 9  # it read the old version: the race happened
            second_read.set()
        return found

    monkeypatch.setattr(SqliteStore, "schema_version", noted)
    outcomes: dict[str, object] = {}

    def opener(name):
        try:
            store = SqliteStore.open(path)
            outcomes[name] = read_version(store)
            store.close()
        except BaseException as exc:
            outcomes[name] = exc

    first = threading.Thread(target=opener, args=("first",), name="first")
    first.start()
    assert first_inside.wait(60)
    second = threading.Thread(target=opener, args=("second",), name="second")
    second.start()
    first.join(60)
    second.join(60)
    assert second_read.is_set()
    assert outcomes == {"first": LATEST, "second": LATEST}
