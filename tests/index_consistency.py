"""What an index must look like after any interruption (Ctrl-C, SIGTERM, a killed
server): SQLite's own integrity check passes, and the tables agree with each other."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import apsw


def _one(conn: apsw.Connection, sql: str) -> int:
    return int(conn.execute(sql).fetchone()[0])


def assert_consistent(db: Path) -> int:
    """Check the index at ``db``; returns the number of active indexed documents.

    - ``PRAGMA integrity_check`` is ``ok``;
    - the FTS rows (``documents_fts`` and ``outline_fts``) are exactly the active documents
      with content (no document missing from search, none inactive or failed still searchable);
    - every document's mirror has its content row and its chunks;
    - no chunk without content, no content that no document uses (the index is fresh:
      nothing was replaced, so nothing awaits ``gno cleanup``).
    """
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READWRITE)  # recovers the WAL
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        searchable = {
            row[0]
            for row in conn.execute(
                "SELECT id FROM documents WHERE active = 1 AND mirror_hash IS NOT NULL"
            )
        }
        fts = {row[0] for row in conn.execute("SELECT rowid FROM documents_fts")}
        assert fts == searchable, (len(fts), len(searchable))
        outline = {row[0] for row in conn.execute("SELECT rowid FROM outline_fts")}
        assert outline == searchable, ("outline_fts", len(outline), len(searchable))
        assert not _one(
            conn,
            "SELECT count(*) FROM documents d WHERE d.mirror_hash IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM content c WHERE c.mirror_hash = d.mirror_hash)",
        ), "a document without its content"
        assert not _one(
            conn,
            "SELECT count(*) FROM documents d WHERE d.mirror_hash IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM content_chunks k WHERE k.mirror_hash = d.mirror_hash)",
        ), "a document without chunks"
        assert not _one(
            conn,
            "SELECT count(*) FROM content_chunks k WHERE NOT EXISTS "
            "(SELECT 1 FROM content c WHERE c.mirror_hash = k.mirror_hash)",
        ), "orphan chunks"
        assert not _one(
            conn,
            "SELECT count(*) FROM content c WHERE NOT EXISTS "
            "(SELECT 1 FROM documents d WHERE d.mirror_hash = c.mirror_hash)",
        ), "content no document uses"
        _journal_agrees(conn)
        return len(searchable)
    finally:
        conn.close()


def _journal_agrees(conn: apsw.Connection) -> None:
    """The change journal's counters match its rows, and every active document that was
    read has an event (its create, or a later one) that committed with it."""
    state = conn.execute(
        "SELECT last_sequence, retention_floor, retained_entries, retained_bytes "
        "FROM document_change_journal_state"
    ).fetchall()
    (last, floor, entries, size) = state[0]
    count, total, top = conn.execute(
        "SELECT count(*), coalesce(sum(bytes), 0), coalesce(max(sequence), 0) FROM document_changes"
    ).fetchone()
    assert (entries, size) == (count, total), "journal counters disagree with its rows"
    assert top <= last and floor <= last
    if floor == 0:
        journaled = count
        read = _one(
            conn, "SELECT count(*) FROM documents WHERE active = 1 AND source_hash IS NOT NULL"
        )
        assert journaled >= read, "an active document without a journal event"


def documents(db: Path) -> int:
    """Document rows committed so far (0 while the index or its schema does not exist)."""
    if not db.exists():
        return 0
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        conn.set_busy_timeout(1000)
        return _one(conn, "SELECT count(*) FROM documents")
    except apsw.Error:  # the schema is still being created
        return 0
    finally:
        conn.close()


def wait_for_documents(db: Path, timeout: float = 60) -> int:
    """Wait until a sync committed its first batch; returns the document count."""
    deadline = time.monotonic() + timeout
    while (count := documents(db)) == 0:
        assert time.monotonic() < deadline, "no batch was committed"
        time.sleep(0.02)
    return count


@contextmanager
def writes_held(db: Path) -> Iterator[int]:
    """Hold the index's write lock (``BEGIN IMMEDIATE``) for the block; yields the number
    of documents committed before it. A sync commits nothing more until the block ends, so
    a count below the total proves the sync is not finished while the block runs (the
    syncing process needs a busy timeout longer than the block)."""
    conn = apsw.Connection(str(db))
    conn.set_busy_timeout(60_000)
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield _one(conn, "SELECT count(*) FROM documents")
    finally:
        conn.execute("ROLLBACK")
        conn.close()
