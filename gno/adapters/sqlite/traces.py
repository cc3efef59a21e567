"""Retrieval trace rows (mixed into SqliteStore; migration 10, spec/traces.md).

Every row is kept as its wire JSON, so ``show`` and ``export`` read back exactly what was
recorded. Recording is best effort: it runs after a read command answered and must never
wait on a running sync, so a write that cannot take the lock at once is skipped (the
caller then gets no trace id). Management writes (label, export, delete, purge) wait
like every other write.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import apsw

from gno.errors import IndexFileError, LockedError

_ROW_TABLES = ("retrieval_trace_runs", "retrieval_trace_events", "retrieval_trace_judgments")


class RetrievalTraceStore:
    conn: apsw.Connection
    busy_timeout_ms: int
    write: Callable[[], AbstractContextManager[None]]  # SqliteStore.write

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        """The cursor of one statement (typed Any: rows are read by position)."""
        return self.conn.execute(sql, args)

    # ---- recording (best effort)

    def record_trace(
        self,
        trace: dict[str, Any],
        rows: list[tuple[str, str, str]],
        retention: tuple[int, int, int],
    ) -> bool:
        """Insert a new trace with its rows (``("run"|"event", id, JSON)``), then enforce
        retention ``(now_ms, max_traces, max_bytes)``. False when the index was busy."""

        def insert() -> None:
            self._run(
                "INSERT INTO retrieval_traces (trace_id, status, trace_json, created_at_ms, "
                "updated_at_ms, expires_at_ms, byte_size, records) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    trace["traceId"],
                    trace["status"],
                    json.dumps(trace, ensure_ascii=False),
                    trace["createdAtMs"],
                    trace["updatedAtMs"],
                    trace["expiresAtMs"],
                    trace["byteSize"],
                    len(rows),
                ),
            )
            self._insert_rows(trace["traceId"], rows, 0)
            self._enforce_retention(*retention)

        return self._best_effort(insert)

    def append_trace_rows(
        self,
        trace_id: str,
        rows: list[tuple[str, str, str]],
        added_bytes: int,
        now_ms: int,
        max_records: int,
    ) -> str:
        """Append rows to a trace: ``appended``, ``missing`` (no such trace), ``full``
        (its record cap reached) or ``busy``."""
        outcome = ["busy"]

        def append() -> None:
            row = self._run(
                "SELECT records FROM retrieval_traces WHERE trace_id = ? AND expires_at_ms > ?",
                (trace_id, now_ms),
            ).fetchone()
            if row is None:
                outcome[0] = "missing"
                return
            if row[0] + len(rows) > max_records:
                outcome[0] = "full"
                return
            self._insert_rows(trace_id, rows, row[0])
            self._touch(trace_id, len(rows), added_bytes, now_ms)
            outcome[0] = "appended"

        self._best_effort(append)
        return outcome[0]

    def _best_effort(self, work: Callable[[], None]) -> bool:
        if not self.conn.get_autocommit():  # inside another transaction: not ours to extend
            return False
        self.conn.set_busy_timeout(0)
        try:
            with self.write():
                work()
            return True
        except (LockedError, IndexFileError, apsw.Error):  # busy, read-only: no trace
            return False
        finally:
            self.conn.set_busy_timeout(self.busy_timeout_ms)

    def _insert_rows(self, trace_id: str, rows: list[tuple[str, str, str]], seq: int) -> None:
        for offset, (kind, ident, text) in enumerate(rows):
            table, key = (
                ("retrieval_trace_runs", "run_id")
                if kind == "run"
                else ("retrieval_trace_events", "event_id")
            )
            self._run(
                f"INSERT INTO {table} ({key}, trace_id, seq, row_json) VALUES (?, ?, ?, ?)",
                (ident, trace_id, seq + offset, text),
            )

    def _touch(self, trace_id: str, records: int, added_bytes: int, now_ms: int) -> None:
        row = self._run(
            "SELECT trace_json FROM retrieval_traces WHERE trace_id = ?", (trace_id,)
        ).fetchone()
        trace = json.loads(row[0])
        trace["updatedAtMs"] = max(now_ms, trace["updatedAtMs"])
        trace["byteSize"] = trace["byteSize"] + added_bytes
        self._run(
            "UPDATE retrieval_traces SET trace_json = ?, updated_at_ms = ?, byte_size = ?, "
            "records = records + ? WHERE trace_id = ?",
            (
                json.dumps(trace, ensure_ascii=False),
                trace["updatedAtMs"],
                trace["byteSize"],
                records,
                trace_id,
            ),
        )

    def _enforce_retention(self, now_ms: int, max_traces: int, max_bytes: int) -> None:
        """Expired traces go first, then the oldest beyond the count, then the oldest while
        the stored bytes exceed the cap (the newest trace always stays). One aggregate
        read, and only the deletes that are due."""
        count, total, soonest = self._run(
            "SELECT count(*), total(byte_size), min(expires_at_ms) FROM retrieval_traces"
        ).fetchone()
        pruned = False
        if soonest is not None and soonest <= now_ms:
            self._run("DELETE FROM retrieval_traces WHERE expires_at_ms <= ?", (now_ms,))
            count, total = self._run(
                "SELECT count(*), total(byte_size) FROM retrieval_traces"
            ).fetchone()
            pruned = True
        if count > max_traces:
            self._run(
                "DELETE FROM retrieval_traces WHERE seq <= "
                "(SELECT seq FROM retrieval_traces ORDER BY seq DESC LIMIT 1 OFFSET ?)",
                (max_traces,),
            )
            count, total = self._run(
                "SELECT count(*), total(byte_size) FROM retrieval_traces"
            ).fetchone()
            pruned = True
        excess = total - max_bytes
        if excess > 0:
            oldest = self._run(
                "SELECT trace_id, byte_size FROM retrieval_traces ORDER BY seq LIMIT ?",
                (max(count - 1, 0),),
            ).fetchall()
            for trace_id, size in oldest:
                if excess <= 0:
                    break
                self._run("DELETE FROM retrieval_traces WHERE trace_id = ?", (trace_id,))
                excess -= size
                pruned = True
        if pruned:
            self._drop_orphan_exports()

    def _drop_orphan_exports(self) -> None:
        self._run(
            "DELETE FROM retrieval_trace_exports WHERE export_id NOT IN "
            "(SELECT export_id FROM retrieval_trace_export_traces)"
        )

    # ---- reads

    def trace_row(self, trace_id: str, now_ms: int) -> dict[str, Any] | None:
        row = self._run(
            "SELECT trace_json FROM retrieval_traces WHERE trace_id = ? AND expires_at_ms > ?",
            (trace_id, now_ms),
        ).fetchone()
        return json.loads(row[0]) if row else None

    def trace_page(
        self, after: int | None, limit: int, now_ms: int
    ) -> list[tuple[int, dict[str, Any]]]:
        """(seq, trace), newest first; ``after`` is the seq the last page ended on."""
        rows = self._run(
            "SELECT seq, trace_json FROM retrieval_traces WHERE expires_at_ms > ? AND seq < ? "
            "ORDER BY seq DESC LIMIT ?",
            (now_ms, after if after is not None else 2**63 - 1, limit),
        ).fetchall()
        return [(int(r[0]), json.loads(r[1])) for r in rows]

    def trace_rows(self, trace_id: str, kind: str, limit: int) -> tuple[list[dict[str, Any]], int]:
        """Up to ``limit`` rows of one kind (runs, events, judgments) in order, and how many
        there are."""
        table = {
            "runs": _ROW_TABLES[0],
            "events": _ROW_TABLES[1],
            "judgments": _ROW_TABLES[2],
        }[kind]
        total = self._run(
            f"SELECT count(*) FROM {table} WHERE trace_id = ?", (trace_id,)
        ).fetchone()[0]
        rows = self._run(
            f"SELECT row_json FROM {table} WHERE trace_id = ? ORDER BY seq LIMIT ?",
            (trace_id, limit),
        ).fetchall()
        return [json.loads(r[0]) for r in rows], int(total)

    def trace_exports(self, trace_id: str, limit: int) -> tuple[list[dict[str, Any]], int]:
        total = self._run(
            "SELECT count(*) FROM retrieval_trace_export_traces WHERE trace_id = ?", (trace_id,)
        ).fetchone()[0]
        rows = self._run(
            "SELECT e.manifest_json FROM retrieval_trace_export_traces l JOIN "
            "retrieval_trace_exports e USING (export_id) WHERE l.trace_id = ? "
            "ORDER BY e.created_at_ms, e.export_id LIMIT ?",
            (trace_id, limit),
        ).fetchall()
        return [json.loads(r[0]) for r in rows], int(total)

    def export_manifest(self, export_id: str) -> dict[str, Any] | None:
        row = self._run(
            "SELECT manifest_json FROM retrieval_trace_exports WHERE export_id = ?", (export_id,)
        ).fetchone()
        return json.loads(row[0]) if row else None

    # ---- management writes

    def add_judgment(self, trace_id: str, judgment: dict[str, Any], now_ms: int) -> str:
        """``inserted``, or ``duplicate`` when the idempotency key was used on this trace
        (the stored judgment is then returned through ``judgment``)."""
        with self.write():
            found = self._run(
                "SELECT row_json FROM retrieval_trace_judgments "
                "WHERE trace_id = ? AND idempotency_key = ?",
                (trace_id, judgment["idempotencyKey"]),
            ).fetchone()
            if found is not None:
                judgment.clear()
                judgment.update(json.loads(found[0]))
                return "duplicate"
            seq = self._run(
                "SELECT records FROM retrieval_traces WHERE trace_id = ?", (trace_id,)
            ).fetchone()[0]
            self._run(
                "INSERT INTO retrieval_trace_judgments (judgment_id, trace_id, "
                "idempotency_key, seq, row_json) VALUES (?, ?, ?, ?, ?)",
                (
                    judgment["judgmentId"],
                    trace_id,
                    judgment["idempotencyKey"],
                    seq,
                    json.dumps(judgment, ensure_ascii=False),
                ),
            )
            self._touch(trace_id, 1, judgment["targetBytes"], now_ms)
            return "inserted"

    def add_export(self, manifest: dict[str, Any]) -> str:
        with self.write():
            if self.export_manifest(manifest["exportId"]) is not None:
                return "duplicate"
            self._run(
                "INSERT INTO retrieval_trace_exports (export_id, manifest_json, created_at_ms) "
                "VALUES (?, ?, ?)",
                (manifest["exportId"], json.dumps(manifest), manifest["createdAtMs"]),
            )
            self.conn.executemany(
                "INSERT INTO retrieval_trace_export_traces (export_id, trace_id) VALUES (?, ?)",
                [(manifest["exportId"], t) for t in manifest["traceIds"]],
            )
            return "inserted"

    def _counts(self, where: str, args: tuple[Any, ...]) -> dict[str, int]:
        def count(sql: str) -> int:
            return int(self._run(sql + where, args).fetchone()[0])

        return {
            "traces": count("SELECT count(*) FROM retrieval_traces"),
            "runs": count("SELECT count(*) FROM retrieval_trace_runs"),
            "events": count("SELECT count(*) FROM retrieval_trace_events"),
            "judgments": count("SELECT count(*) FROM retrieval_trace_judgments"),
            "exportLinks": count("SELECT count(*) FROM retrieval_trace_export_traces"),
        }

    def delete_trace(self, trace_id: str) -> dict[str, int] | None:
        """Delete one trace, its rows and the export manifests that name it; the counts
        removed, or None when there is no such trace."""
        with self.write():
            counts = self._counts(" WHERE trace_id = ?", (trace_id,))
            if counts["traces"] == 0:
                return None
            exports = [
                r[0]
                for r in self._run(
                    "SELECT export_id FROM retrieval_trace_export_traces WHERE trace_id = ?",
                    (trace_id,),
                ).fetchall()
            ]
            self.conn.executemany(
                "DELETE FROM retrieval_trace_exports WHERE export_id = ?", [(e,) for e in exports]
            )
            self._run("DELETE FROM retrieval_traces WHERE trace_id = ?", (trace_id,))
            return counts | {"exports": len(exports)}

    def purge_traces(self) -> tuple[dict[str, int], tuple[str, int, int]]:
        """Delete every trace row, then checkpoint the WAL so the deleted pages leave it:
        (counts, (physicalCleanup, checkpointedFrames, remainingWalFrames))."""
        self._run("PRAGMA secure_delete = ON")  # deleted rows leave no bytes behind
        try:
            with self.write():
                counts = self._counts("", ())
                counts["exports"] = int(
                    self._run("SELECT count(*) FROM retrieval_trace_exports").fetchone()[0]
                )
                for table in (
                    "retrieval_trace_export_traces",
                    "retrieval_trace_exports",
                    *_ROW_TABLES,
                    "retrieval_traces",
                ):
                    self._run(f"DELETE FROM {table}")
        finally:
            self._run("PRAGMA secure_delete = OFF")
        try:
            busy, log, done = self._run("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except apsw.Error:
            return counts, ("failed", 0, 0)
        log, done = max(int(log), 0), max(int(done), 0)
        state = "wal_busy" if busy else "completed"
        return counts, (state, done, max(log - done, 0))
