"""The SQLite store (apsw): one file per index, WAL, numbered migrations.

Parts: ``store`` (this module), ``writes`` (what a sync applies), ``reads``
(search candidates, documents, counts), ``rows`` (shared row types).

Write paths run in ``BEGIN IMMEDIATE`` transactions so a sync is applied in
whole batches or not at all. apsw errors are mapped to gno errors here, at the
adapter edge (``write()`` for writes, ``maps_file_failures`` on every method for
reads); nothing above this module sees an apsw exception.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import apsw

from gno.adapters.sqlite.cache import ExpansionCache
from gno.adapters.sqlite.cursor import scalar
from gno.adapters.sqlite.edges import EdgeStore
from gno.adapters.sqlite.egress import EgressStore
from gno.adapters.sqlite.failures import file_failure, maps_file_failures
from gno.adapters.sqlite.fts_schema import tokenize_spec
from gno.adapters.sqlite.metadata import MetadataStore
from gno.adapters.sqlite.migrations import MIGRATIONS
from gno.adapters.sqlite.reads import DocumentReads
from gno.adapters.sqlite.records import RecordStore
from gno.adapters.sqlite.vectors import VectorStore
from gno.adapters.sqlite.write_support import WriteSupport
from gno.adapters.sqlite.writes import DocumentWrites
from gno.core.caseless import fold, mentions_any
from gno.errors import GnoError, LockedError, NewerIndexError, NotInitializedError
from gno.paths import folder_error
from gno.rows import iso_from_ns, now_iso

BUSY_TIMEOUT_MS = 5000  # override with GNO_BUSY_TIMEOUT_MS


@maps_file_failures  # reads too: damaged pages are the same error on every surface
class SqliteStore(
    DocumentWrites,
    DocumentReads,
    VectorStore,
    EdgeStore,
    ExpansionCache,
    RecordStore,
    MetadataStore,
    WriteSupport,
    EgressStore,
):
    """One index file: lifecycle, transactions and the config mirror here; document
    writes, reads, vectors and the expansion cache in the mixins."""

    def __init__(self, conn: apsw.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self._fts_pending: list[tuple[int, str, str, str]] = []
        self._journal_creates = {}
        self._vec_loaded: bool | None = None
        self.busy_timeout_ms = BUSY_TIMEOUT_MS
        self._integrity: tuple[tuple[int, int, int], bool] | None = None  # (generation, ok)

    @classmethod
    def open(cls, path: Path, *, create: bool = False, tokenizer: str = "porter") -> SqliteStore:
        if not create and not path.exists():
            raise NotInitializedError("GNO not initialized. Run: gno init")
        flags = apsw.SQLITE_OPEN_READWRITE | (apsw.SQLITE_OPEN_CREATE if create else 0)
        if create:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise folder_error(path.parent, exc) from exc
        try:
            conn = apsw.Connection(str(path), flags=flags)
            busy_timeout_ms = int(os.environ.get("GNO_BUSY_TIMEOUT_MS", BUSY_TIMEOUT_MS))
            conn.set_busy_timeout(busy_timeout_ms)
            # The owner filters' caseless matching (Unicode, not SQLite's ASCII lower()).
            for name, function, arity in (("gno_fold", fold, 1), ("gno_mentions", mentions_any, 2)):
                conn.create_scalar_function(
                    name, cast("apsw.ScalarProtocol", function), arity, deterministic=True
                )
            conn.execute("PRAGMA foreign_keys = ON")
            if scalar(conn.execute("PRAGMA journal_mode")) != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(
                "PRAGMA cache_size = -65536"
            )  # 64 MiB: bulk syncs otherwise re-read index pages
        except apsw.BusyError as exc:
            raise LockedError(f"The index {path} is locked by another process") from exc
        except apsw.Error as exc:
            raise file_failure(path, exc) or GnoError(f"Cannot open index {path}: {exc}") from exc
        store = cls(conn, path)
        store.busy_timeout_ms = busy_timeout_ms
        try:
            store.migrate(tokenizer)
        except BaseException:
            conn.close()  # a refused or failed open leaves no connection behind in a server
            raise
        return store

    def close(self) -> None:
        self.close_egress_audit()
        self.conn.close()

    def schema_version(self) -> int:
        exists = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'schema_meta'"
        ).fetchone()
        if not exists:
            return 0
        row = self.conn.execute("SELECT value FROM schema_meta WHERE key = 'version'").fetchone()
        if not row:
            return 0
        try:
            return int(row[0])
        except (TypeError, ValueError):
            raise GnoError(
                f"The index {self.path} records no valid schema version ({row[0]!r}): it was "
                "not written by gno, or is damaged; nothing was changed"
            ) from None

    def migrate(self, tokenizer: str = "porter") -> None:
        current = self._current_schema()
        if current == max((v for v, _ in MIGRATIONS), default=0):
            return
        if current >= 2:  # vector tables exist: steps may rebuild KNN tables if sqlite-vec loads
            self.load_vec_extension()
        with self.write():
            # Read again under the write lock: another process opening the same old index
            # may have migrated it while this one waited (its steps would run twice).
            current = self._current_schema()
            pending = [(v, fn) for v, fn in sorted(MIGRATIONS) if v > current]
            if not pending:
                return
            if current == 0:
                self.conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL)"
                )
                self.set_meta("fts_tokenizer", tokenize_spec(tokenizer))
                self.set_meta("created_at", now_iso())
            settings = {"fts_tokenize": self.get_meta("fts_tokenizer") or tokenize_spec(tokenizer)}
            for version, step in pending:
                step(self.conn, settings)
                self.set_meta("version", str(version))

    def _current_schema(self) -> int:
        """The index's schema version, refused when a newer gno wrote it (checked before
        any write: a downgrade would lose its data)."""
        current = self.schema_version()
        known = max((v for v, _ in MIGRATIONS), default=0)
        if current > known:
            raise NewerIndexError(
                f"The index {self.path} was written by a newer gno (schema {current}; this "
                f"gno knows up to {known}): upgrade gno to use it; nothing was changed"
            )
        return current

    @contextmanager
    def write(self) -> Iterator[None]:
        """One write transaction; rolled back on any exception, Ctrl-C included."""
        if not self.conn.get_autocommit():  # nested: join the outer transaction
            yield
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except apsw.BusyError as exc:
            raise LockedError(
                "The index is locked by another writer (is a `gno update` or `gno serve` running?)"
            ) from exc
        except apsw.Error as exc:
            self._raise_file_failure(exc)
            raise
        try:
            self.journal_write_began()  # a running sync's view of the index, checked under the lock
            yield
            self._flush_journal()  # first: a statement after the FTS rows pays FTS5's flush
            self._flush_fts()
        except BaseException as exc:
            self._fts_pending.clear()
            self._journal_rolled_back()
            self._rollback()
            self._raise_file_failure(exc)
            raise
        try:
            self.conn.execute("COMMIT")
        except apsw.BusyError as exc:
            self._rollback()
            raise LockedError("The index is locked by another reader or writer; try again") from exc
        except apsw.Error as exc:
            self._rollback()
            self._raise_file_failure(exc)
            raise

    def _raise_file_failure(self, exc: BaseException) -> None:
        """Raise what a failure of the index file itself means to the user; return for
        anything else (a constraint, a bad statement: a bug, reported as one)."""
        failure = file_failure(self.path, exc)
        if failure is not None:
            raise failure from exc

    def _rollback(self) -> None:
        # SQLite may already have rolled back (it does on SQLITE_FULL): ROLLBACK would fail.
        if not self.conn.get_autocommit():
            self.conn.execute("ROLLBACK")

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM schema_meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO schema_meta (key, value, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            (key, value, now_iso()),
        )

    def replace_config(
        self,
        collections: Iterable[dict[str, Any]],
        contexts: Iterable[tuple[str, str, str]],
        stamp: str,
    ) -> None:
        collections = list(collections)
        with self.write():
            existing = {
                row[0]: row[1]
                for row in self.conn.execute("SELECT name, synced_at FROM collections")
            }
            self.conn.execute("DELETE FROM collections")
            self.conn.executemany(
                "INSERT INTO collections (name, path, pattern, include_json, exclude_json, update_cmd, language_hint, synced_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        c["name"],
                        c["path"],
                        c["pattern"],
                        json.dumps(c["include"]),
                        json.dumps(c["exclude"]),
                        c.get("updateCmd"),
                        c.get("languageHint"),
                        existing.get(c["name"]),
                    )
                    for c in collections
                ],
            )
            self.conn.execute("DELETE FROM contexts")
            self.conn.executemany("INSERT OR IGNORE INTO contexts VALUES (?, ?, ?)", list(contexts))
            # A policy belongs to the collection, not to its name (spec/egress.md): names
            # that left (removed, renamed away, edited out) or arrived start local_only.
            names = {c["name"] for c in collections}
            self.reset_egress_policies(sorted(names.symmetric_difference(existing)))
            # Likewise its documents: a removed collection's inactive rows must not become
            # the next one's (reactivated with their user tags, journaled as updates).
            arrived = sorted(names - existing.keys())
            self.drop_collection_leftovers(arrived)
            # And its traces: one recorded before the name arrived is an earlier collection's.
            self.note_collection_arrivals(arrived, names)
            self.set_meta("config_stamp", stamp)

    def drop_collection_leftovers(self, names: Sequence[str]) -> None:
        """Delete what is left under names no collection holds (a removed collection's
        documents, with their tags, links and records, its container states and journal
        entries, which would otherwise read as the newcomer's history); content no document
        uses any more goes with `gno cleanup`."""
        with self.write():
            for name in names:
                self._drop_journal("collection = ?", (name,))
                ids = [
                    r[0]
                    for r in self.conn.execute(
                        "SELECT id FROM documents WHERE collection = ?", (name,)
                    )
                ]
                self._drop_fts(ids)
                self.conn.execute("DELETE FROM documents WHERE collection = ?", (name,))
                self.conn.execute("DELETE FROM record_containers WHERE collection = ?", (name,))

    def collections(self) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT name, path, pattern, include_json, exclude_json, update_cmd, language_hint, synced_at "
            "FROM collections ORDER BY name"
        )
        return [
            {
                "name": r[0],
                "path": r[1],
                "pattern": r[2],
                "include": json.loads(r[3]),
                "exclude": json.loads(r[4]),
                "updateCmd": r[5],
                "languageHint": r[6],
                "syncedAt": r[7],
            }
            for r in rows
        ]

    def _drop_journal(self, where: str, params: tuple[Any, ...]) -> None:
        """Delete journal entries, and their share of the retained counters."""
        gone = self.conn.execute(
            f"DELETE FROM document_changes WHERE {where} RETURNING bytes", params
        ).fetchall()
        self.conn.execute(
            "UPDATE document_change_journal_state SET retained_entries = retained_entries - ?, "
            "retained_bytes = retained_bytes - ? WHERE id = 1",
            (len(gone), sum(int(str(r[0])) for r in gone)),
        )

    def contexts(self) -> list[tuple[str, str, str]]:
        return [
            tuple(r) for r in self.conn.execute("SELECT scope_type, scope_key, text FROM contexts")
        ]

    def rename_collection_rows(self, old: str, new: str, uris: Sequence[tuple[int, str]]) -> None:
        with self.write():
            # The collection's own row too, so the config mirror that follows sees a rename,
            # not a new name whose leftovers it drops; the policy starts over (spec/egress.md).
            self.conn.execute("UPDATE collections SET name = ? WHERE name = ?", (new, old))
            self.reset_egress_policies([old, new])
            # A removed collection of the new name left rows: they would collide on its paths.
            self.drop_collection_leftovers([new])
            # Traces naming it are that collection's (the renamed one's say the old name).
            names = [str(r[0]) for r in self.conn.execute("SELECT name FROM collections")]
            self.note_collection_arrivals([new], names)
            self.conn.execute(
                "UPDATE documents SET collection = ? WHERE collection = ?", (new, old)
            )
            self.conn.executemany(
                "UPDATE documents SET uri = ? WHERE id = ?", [(u, i) for i, u in uris]
            )
            self.conn.execute(
                "UPDATE ingest_errors SET collection = ? WHERE collection = ?", (new, old)
            )
            # The containers' states: without them the next sync reads every one again.
            self.conn.execute(
                "UPDATE record_containers SET collection = ? WHERE collection = ?", (new, old)
            )
            self.rename_journal_collection(old, new)

    def mark_synced(self, collection: str) -> None:
        self.conn.execute(
            "UPDATE collections SET synced_at = ? WHERE name = ?", (now_iso(), collection)
        )

    def cleanup(self) -> dict[str, int]:
        """Delete what no active document references: inactive docs, orphan mirrors, old errors,
        and the journal entries of collections no longer configured."""
        with self.write():
            self._drop_journal("collection NOT IN (SELECT name FROM collections)", ())
            counts = {}
            inactive = [
                r[0] for r in self.conn.execute("SELECT id FROM documents WHERE active = 0")
            ]
            counts["deletedTags"] = scalar(
                self.conn.execute(
                    "SELECT count(*) FROM doc_tags WHERE document_id IN (SELECT id FROM documents WHERE active = 0)"
                )
            )
            counts["deletedLinks"] = scalar(
                self.conn.execute(
                    "SELECT count(*) FROM doc_links WHERE source_doc_id IN (SELECT id FROM documents WHERE active = 0)"
                )
            )
            tables = ["documents_fts", "outline_fts"] if self.outline_ready() else ["documents_fts"]
            for table in tables:
                self.conn.executemany(
                    f"DELETE FROM {table} WHERE rowid = ?", [(i,) for i in inactive]
                )
            self.conn.execute("DELETE FROM documents WHERE active = 0")
            counts["deletedDocuments"] = len(inactive)
            orphan = "SELECT mirror_hash FROM content WHERE mirror_hash NOT IN (SELECT mirror_hash FROM documents WHERE mirror_hash IS NOT NULL)"
            counts["deletedChunks"] = scalar(
                self.conn.execute(
                    f"SELECT count(*) FROM content_chunks WHERE mirror_hash IN ({orphan})"
                )
            )
            counts["deletedContent"] = scalar(self.conn.execute(f"SELECT count(*) FROM ({orphan})"))
            self.conn.execute(f"DELETE FROM content WHERE mirror_hash IN ({orphan})")
            cutoff = iso_from_ns(time.time_ns() - 30 * 86_400 * 10**9)
            counts["deletedErrors"] = scalar(
                self.conn.execute(
                    "SELECT count(*) FROM ingest_errors WHERE occurred_at < ?", (cutoff,)
                )
            )
            self.conn.execute("DELETE FROM ingest_errors WHERE occurred_at < ?", (cutoff,))
        return counts

    def generation(self) -> tuple[int, int, int]:
        """Changes whenever the index may have: ``PRAGMA data_version`` (another connection
        committed), this connection's own change count, and the index file's inode (a
        reset index is a new file)."""
        try:
            inode = os.stat(self.path).st_ino
        except OSError:
            inode = -1
        version = scalar(self.conn.execute("PRAGMA data_version"))
        return int(version), self.conn.total_changes(), inode

    def integrity_ok(self) -> bool:
        """``PRAGMA quick_check`` passes. It reads every page, so it runs once per index
        generation rather than on every status call, and a pass is remembered beside the
        index (``index-<name>.checked``: the index and WAL files' identity, size and mtime)
        so that the next process (`gno status`, `gno doctor`) does not read every page of
        files nothing has written since."""
        generation = self.generation()
        if self._integrity is None or self._integrity[0] != generation:
            stamp = self._files_stamp()
            checked = self.path.with_suffix(".checked")
            try:
                ok = checked.read_text(encoding="ascii") == stamp
            except (OSError, UnicodeDecodeError):
                ok = False
            if not ok:
                ok = scalar(self.conn.execute("PRAGMA quick_check")) == "ok"
                if ok:  # best effort: a read-only data folder just checks every time
                    with contextlib.suppress(OSError):
                        checked.write_text(stamp, encoding="ascii")
            self._integrity = (generation, ok)
        return self._integrity[1]

    def _files_stamp(self) -> str:
        parts = ["integrity-v1"]
        for path in (self.path, Path(f"{self.path}-wal")):
            try:
                st = path.stat()
            except OSError:
                parts.append("-")
                continue
            if st.st_size == 0 and path != self.path:  # an empty WAL, made by every connection
                parts.append("-")
                continue
            parts.append(f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}")
        return " ".join(parts)
