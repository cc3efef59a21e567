"""The knowledge delta journal (mixed into SqliteStore): lifecycle events of documents.

Writes call the ``journal_*`` hooks from ``writes.py`` inside the sync's own
transaction, so an event commits exactly when the document change it describes
does. Renames: a sync sees the new path first (a ``create``) and the vanished old
path last (an ``inactivate``); when both carry the same source hash in the same
collection within one sync, the ``create`` row is replaced by one ``rename`` at a
new sequence, so a reader that already saw the create still replays correctly.
A sync reads which paths have a row before it writes, and a new path's write skips
reading its row again; another writer (a capture, a server's sync job) may commit that
row in between. Each write transaction, holding SQLite's write lock, therefore checks
``PRAGMA data_version``: if another connection committed since the sync's read, every
later write of the sync reads the row it replaces, so a row someone else just created is
an update (or nothing), never a second ``create``.
A transaction's entries are kept in memory and written together just before it commits,
with the state row (last sequence, retained counters) and retention (30 days, 10,000
entries, 16 MiB): a full index of thousands of documents pays one batch insert and one
state update, not a statement pair per document. The batch numbers its entries itself,
past the table's AUTOINCREMENT high-water mark, so numbers are still never reused.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import apsw

from gno.adapters.sqlite.journal_reads import JournalReads

if TYPE_CHECKING:  # gno.core.journal loads in the write hooks: a read never needs it
    from gno.core import journal as j
    from gno.core.document import Analysis
    from gno.journal_rows import JournalState
    from gno.sync_rows import Prior, SourceFile

MAX_ROW_BYTES = 128 * 1024
_PRIOR = (
    "SELECT id, collection, rel_path, docid, uri, source_hash, mirror_hash, active, date_fields_json "
    "FROM documents WHERE "
)


class DocumentJournal(JournalReads):
    conn: apsw.Connection
    # (collection, source hash) -> (sequence, doc id) of creates in the running sync
    _journal_creates: dict[tuple[str, str], tuple[int, int]]
    # (collection, paths with a row) when the running sync started; None once another
    # connection committed since (the paths may have gained rows: each write reads its own)
    _journal_known: tuple[str, set[str]] | None = None
    # PRAGMA data_version just before the running sync read its paths
    _journal_version: int | None = None
    # (retention floor, observed_ms of the oldest entry above it)
    _journal_oldest: tuple[int, int] | None = None
    # entries appended in the running transaction, by sequence, not yet inserted
    _journal_batch: dict[int, tuple[Any, ...]] | None = None
    # [entries, bytes, last sequence] appended (or dropped) in the running transaction
    _journal_pending: list[int] | None = None

    # ------------------------------------------------------------ write hooks

    def journal_version(self) -> int:
        """``PRAGMA data_version``: it moves when another connection commits (never for
        this connection's own commits)."""
        return _one(self.conn.execute("PRAGMA data_version").fetchone())

    def journal_sync_started(self, collection: str, known: set[str], version: int) -> None:
        """A sync of ``collection`` begins; ``known`` are the paths it has rows for, read
        after ``journal_version`` gave ``version``, so a new file's write needs no read of
        a previous row while no other connection commits."""
        self._journal_creates = {}
        self._journal_known = (collection, known)
        self._journal_version = version

    def journal_write_began(self) -> None:
        """Called by ``SqliteStore.write`` right after BEGIN IMMEDIATE: with the write lock
        held, nothing else commits until this transaction ends. If another connection
        committed since the running sync read its paths, that read may lack a row made
        meanwhile (a capture of a file the sync walked), and trusting it would journal a
        second ``create``: the sync's writes read their rows from here on. One pragma per
        transaction, nothing per document."""
        if self._journal_known is not None and self.journal_version() != self._journal_version:
            self._journal_known = None

    def sync_finished(self) -> None:
        """The sync ended, however it ended: its paths and creates are let go. A server
        keeps its store open, and a collection's every path would otherwise stay in memory
        until the next sync, with a stale view of which paths have a row."""
        self._journal_creates = {}
        self._journal_known = None
        self._journal_version = None

    def _prior(self, where: str, params: tuple[Any, ...]) -> Prior | None:
        row = self.conn.execute(_PRIOR + where, params).fetchone()
        if row is None:
            return None
        from gno.sync_rows import Prior  # a write's row type: reads never build it

        return Prior(row[0], row[1], row[2], row[3], row[4], row[5], row[6], bool(row[7]), row[8])

    def journal_prior(self, collection: str, rel_path: str) -> tuple[Prior | None, j.Structure]:
        """The row a write is about to replace and its structure (read before links go)."""
        from gno.core import journal as j

        known = self._journal_known
        if known is not None and known[0] == collection and rel_path not in known[1]:
            return None, j.EMPTY  # no row at sync start, and a sync writes a path once
        prior = self._prior("collection = ? AND rel_path = ?", (collection, rel_path))
        if prior is None or prior.snapshot() is None:
            return prior, j.EMPTY
        return prior, self.stored_structure(prior.id, prior.mirror_hash, prior.dates_json)

    def stored_structure(
        self, doc_id: int, mirror_hash: str | None, dates_json: str | None
    ) -> j.Structure:
        from gno.core import journal as j
        from gno.core.journal_structure import frontmatter_lines, structure

        heads: frozenset[str] = frozenset()
        if mirror_hash:
            row = self.conn.execute(
                "SELECT markdown FROM content WHERE mirror_hash = ?", (mirror_hash,)
            ).fetchone()
            if row:
                heads = j.headings(row[0], frontmatter_lines(row[0]))
        links = [
            (str(t), str(norm))
            for t, norm in self.conn.execute(
                "SELECT link_type, target_ref_norm FROM doc_links WHERE source_doc_id = ? AND source = 'parsed'",
                (doc_id,),
            )
        ]
        relations = [
            (str(edge), str(target))
            for edge, target in self.conn.execute(
                "SELECT edge_type, target_ref FROM doc_relations WHERE source_doc_id = ?", (doc_id,)
            )
        ]
        return structure(heads, links, relations, dates_json)

    def save_relations(self, doc_id: int, analysis: Analysis) -> None:
        self.conn.execute("DELETE FROM doc_relations WHERE source_doc_id = ?", (doc_id,))
        pairs = analysis.relations
        if pairs:
            self.conn.executemany(
                "INSERT OR IGNORE INTO doc_relations (source_doc_id, edge_type, target_ref) VALUES (?, ?, ?)",
                [(doc_id, edge, target) for edge, target in pairs],
            )

    def journal_saved(
        self,
        before: tuple[Prior | None, j.Structure],
        src: SourceFile,
        analysis: Analysis | None,
        doc_id: int,
    ) -> None:
        """After document ``doc_id`` was written from ``src`` (converted, or failed with
        ``analysis`` None); the new row is known from the write itself, not read back."""
        from gno.core import journal as j
        from gno.core.identity import docid_for
        from gno.core.journal_structure import analysis_structure

        prior, old = before
        if not src.source_hash:
            return  # never read: nothing identifies it
        mirror = analysis.mirror_hash if analysis else None
        current = {
            "relPath": src.rel_path,
            "docid": docid_for(src.source_hash),
            "uri": src.uri,
            "sourceHash": src.source_hash,
            "mirrorHash": mirror,
            "active": True,
        }
        previous = prior.snapshot() if prior else None
        if previous is not None and prior is not None and prior.active:
            if (prior.source_hash, prior.mirror_hash) == (src.source_hash, mirror):
                return  # re-ingested, same content: no event
            kind = "update"
        elif previous is not None:
            kind = "reactivate"
        else:
            kind = "create"
        new = analysis_structure(analysis) if analysis else j.EMPTY
        sequence = self._append(
            kind, src.collection, previous, current, j.structure_delta(old, new)
        )
        if kind == "create":
            self._journal_creates[src.collection, src.source_hash] = (sequence, doc_id)

    def journal_reactivated(self, doc_id: int) -> None:
        from gno.core import journal as j

        prior = self._prior("id = ?", (doc_id,))
        if prior is None or prior.active or prior.snapshot() is None:
            return
        self._append(
            "reactivate",
            prior.collection,
            prior.snapshot(active=False),
            prior.snapshot(active=True),
            j.structure_delta(j.EMPTY, j.EMPTY),
        )

    def journal_inactivated(self, doc_ids: Sequence[int]) -> None:
        from gno.core import journal as j

        for doc_id in doc_ids:
            prior = self._prior("id = ?", (doc_id,))
            if prior is None or not prior.active or prior.snapshot() is None:
                continue
            old = self.stored_structure(prior.id, prior.mirror_hash, prior.dates_json)
            created = self._journal_creates.pop((prior.collection, prior.source_hash or ""), None)
            if created is not None:
                target = self._prior("id = ? AND active = 1", (created[1],))
                current = target.snapshot() if target else None
                if target is not None and current is not None and target.rel_path != prior.rel_path:
                    self._drop(created[0])
                    new = self.stored_structure(target.id, target.mirror_hash, target.dates_json)
                    self._append(
                        "rename",
                        prior.collection,
                        prior.snapshot(),
                        current,
                        j.structure_delta(old, new),
                        previous_path=prior.rel_path,
                    )
                    continue
            self._append(
                "inactivate",
                prior.collection,
                prior.snapshot(),
                prior.snapshot(active=False),
                j.structure_delta(j.EMPTY, j.EMPTY),
            )

    # ------------------------------------------------------------ append and retention

    def _append(
        self,
        kind: str,
        collection: str,
        previous: dict[str, Any] | None,
        current: dict[str, Any] | None,
        delta: dict[str, Any],
        previous_path: str | None = None,
    ) -> int:
        from gno.core import journal as j
        from gno.core.journal_form import pack_entry

        text = pack_entry(previous, current, delta)
        if len(text) > MAX_ROW_BYTES:  # snapshots are small; only a pathological delta gets here
            text = pack_entry(
                previous, current, j.structure_delta(j.EMPTY, j.EMPTY) | {"truncated": True}
            )
        size = len(text.encode())
        snap = current or previous or {}
        sequence = self._next_sequence()
        assert self._journal_batch is not None
        self._journal_batch[sequence] = (
            sequence,
            int(time.time() * 1000),
            kind,
            collection,
            j.path_key(collection, snap.get("relPath", "")),
            j.path_key(collection, previous_path) if previous_path else None,
            text,
            size,
        )
        self._journal_count(1, size, sequence)
        return sequence

    def _next_sequence(self) -> int:
        if self._journal_batch is None:
            self._journal_batch = {}
        if self._journal_pending and self._journal_pending[2]:
            return self._journal_pending[2] + 1
        # AUTOINCREMENT's high-water mark: the largest sequence ever inserted, pruned or not
        return 1 + _one(
            self.conn.execute(
                "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'document_changes'), 0), "
                "(SELECT last_sequence FROM document_change_journal_state WHERE id = 1))"
            ).fetchone()
        )

    def _drop(self, sequence: int) -> None:
        batch = self._journal_batch
        if batch is not None and sequence in batch:  # appended in this transaction
            self._journal_count(-1, -batch.pop(sequence)[-1], 0)
            return
        row = self.conn.execute(
            "DELETE FROM document_changes WHERE sequence = ? RETURNING bytes", (sequence,)
        ).fetchone()
        if row:
            self._journal_count(-1, -int(row[0]), 0)

    def _journal_count(self, entries: int, size: int, sequence: int) -> None:
        pending = self._journal_pending
        if pending is None:
            pending = self._journal_pending = [0, 0, 0]
        pending[0] += entries
        pending[1] += size
        pending[2] = max(pending[2], sequence)
        if self.conn.get_autocommit():  # no transaction to wait for (writes.py always has one)
            self._flush_journal()

    def _flush_journal(self) -> None:
        """Fold the transaction's appends into the state row and enforce retention; called
        by ``SqliteStore.write`` just before COMMIT."""
        from gno.journal_rows import JournalState

        pending, self._journal_pending = self._journal_pending, None
        batch, self._journal_batch = self._journal_batch, None
        if pending is None:
            return
        if batch:
            self.conn.executemany(
                "INSERT INTO document_changes (sequence, observed_ms, kind, collection, path_key, "
                "previous_key, entry_json, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                list(batch.values()),
            )
        state = self.conn.execute(
            "UPDATE document_change_journal_state SET last_sequence = max(last_sequence, ?), "
            "retained_entries = retained_entries + ?, retained_bytes = retained_bytes + ? "
            "WHERE id = 1 "
            "RETURNING last_sequence, retention_floor, retained_entries, retained_bytes",
            (pending[2], pending[0], pending[1]),
        ).fetchall()
        self._retain(int(time.time() * 1000), JournalState(*(int(str(v)) for v in state[0])))

    def rename_journal_collection(self, old: str, new: str) -> None:
        """Move the collection's retained entries to its new name (a collection rename):
        their URIs, ``changes --collection`` and ``diff`` then follow the collection. The
        stored text names no collection; only the column and the path keys (hashes of
        collection and path) change. Call inside the rename's write transaction."""
        from gno.core import journal as j

        moved = []
        for sequence, previous_key, text in self.conn.execute(
            "SELECT sequence, previous_key, entry_json FROM document_changes WHERE collection = ?",
            (old,),
        ):
            packed = json.loads(text)
            snap = packed["c"] or packed["p"] or [""]
            # previous_key is set for a moved document only: the previous snapshot's path
            previous = j.path_key(new, packed["p"][0]) if previous_key is not None else None
            moved.append((new, j.path_key(new, snap[0]), previous, sequence))
        self.conn.executemany(
            "UPDATE document_changes SET collection = ?, path_key = ?, previous_key = ? "
            "WHERE sequence = ?",
            moved,
        )

    def _journal_rolled_back(self) -> None:
        self._journal_pending = self._journal_batch = None

    def _retain(self, now_ms: int, state: JournalState) -> None:
        from gno.core import journal as j

        cutoff = now_ms - j.RETENTION_DAYS * 86_400_000
        bound = 0
        # The oldest retained time only changes when the floor moves: read it once per floor.
        if self._journal_oldest is None or self._journal_oldest[0] != state.floor:
            row = self.conn.execute(
                "SELECT observed_ms FROM document_changes WHERE sequence > ? ORDER BY sequence LIMIT 1",
                (state.floor,),
            ).fetchone()
            self._journal_oldest = (state.floor, int(row[0]) if row else now_ms)
        if self._journal_oldest[1] < cutoff:
            bound = _one(
                self.conn.execute(
                    "SELECT coalesce(max(sequence), 0) FROM document_changes WHERE observed_ms < ?",
                    (cutoff,),
                ).fetchone()
            )
        if state.entries > j.RETENTION_ENTRIES:
            row = self.conn.execute(
                "SELECT sequence FROM document_changes ORDER BY sequence LIMIT 1 OFFSET ?",
                (state.entries - j.RETENTION_ENTRIES - 1,),
            ).fetchone()
            bound = max(bound, row[0] if row else 0)
        if state.bytes > j.RETENTION_BYTES:
            excess = state.bytes - j.RETENTION_BYTES
            for sequence, size in self.conn.execute(
                "SELECT sequence, bytes FROM document_changes ORDER BY sequence"
            ):
                bound, excess = max(bound, sequence), excess - size
                if excess <= 0:
                    break
        if bound <= state.floor:
            return
        entries, size = self.conn.execute(
            "SELECT count(*), coalesce(sum(bytes), 0) FROM document_changes WHERE sequence <= ?",
            (bound,),
        ).fetchall()[0]
        self.conn.execute("DELETE FROM document_changes WHERE sequence <= ?", (bound,))
        self.conn.execute(
            "UPDATE document_change_journal_state SET retention_floor = ?, "
            "retained_entries = retained_entries - ?, retained_bytes = retained_bytes - ? WHERE id = 1",
            (bound, entries, size),
        )


def _one(row: Any) -> int:
    """The single integer of a one-column row."""
    assert row is not None
    return int(row[0])
