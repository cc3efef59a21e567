"""`PRAGMA quick_check` (status, doctor) reads every page of the index; a pass is remembered
beside it, so the next process skips the check until the index or its WAL changes."""

from __future__ import annotations

from pathlib import Path

from gno.adapters.sqlite.store import SqliteStore


def _checks(store: SqliteStore) -> list[str]:
    """The quick_check statements the store's connection runs from now on."""
    seen: list[str] = []

    def trace(cursor: object, sql: str, bindings: object) -> bool:
        if "quick_check" in sql:
            seen.append(sql)
        return True

    store.conn.exec_trace = trace
    return seen


def test_a_pass_is_remembered_until_the_index_changes(tmp_path: Path) -> None:
    db = tmp_path / "index-default.sqlite"
    SqliteStore.open(db, create=True).close()  # made and closed (its WAL checkpointed)
    first = SqliteStore.open(db)
    ran = _checks(first)
    assert first.integrity_ok() and len(ran) == 1
    first.close()
    assert (tmp_path / "index-default.checked").read_text().startswith("integrity-v1 ")

    second = SqliteStore.open(db)  # another process, nothing written since
    ran = _checks(second)
    assert second.integrity_ok() and ran == []
    second.set_meta("touched", "yes")  # a write: the WAL grows
    third = SqliteStore.open(db)
    ran = _checks(third)
    assert third.integrity_ok() and len(ran) == 1
    third.close()
    second.close()


def test_a_stamp_of_other_files_is_not_trusted(tmp_path: Path) -> None:
    db = tmp_path / "index-default.sqlite"
    SqliteStore.open(db, create=True).close()
    (tmp_path / "index-default.checked").write_text("integrity-v1 1:2:3 -", encoding="ascii")
    store = SqliteStore.open(db)
    ran = _checks(store)
    assert store.integrity_ok() and len(ran) == 1
    store.close()
