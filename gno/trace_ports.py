"""The retrieval trace store as the trace services see it (spec/traces.md).

Kept beside ``gno/ports.py`` rather than in it while that module is being split. The
SQLite trace database implements it (``adapters/sqlite/trace_db.py``); ``App.traces()``
opens it.
"""

from __future__ import annotations

from typing import Any, Protocol

Rows = list[tuple[str, str, str]]  # (run | event, its id, its JSON)


class IndexTraces(Protocol):
    def record_trace(
        self, trace: dict[str, Any], rows: Rows, retention: tuple[int, int, int]
    ) -> bool: ...

    def append_trace_rows(
        self, trace_id: str, rows: Rows, added_bytes: int, now_ms: int, max_records: int
    ) -> str: ...

    def trace_row(self, trace_id: str, now_ms: int) -> dict[str, Any] | None: ...

    def trace_page(
        self, after: int | None, limit: int, now_ms: int
    ) -> list[tuple[int, dict[str, Any]]]: ...

    def trace_rows(
        self, trace_id: str, kind: str, limit: int
    ) -> tuple[list[dict[str, Any]], int]: ...

    def trace_exports(self, trace_id: str, limit: int) -> tuple[list[dict[str, Any]], int]: ...

    def export_manifest(self, export_id: str) -> dict[str, Any] | None: ...

    def add_judgment(self, trace_id: str, judgment: dict[str, Any], now_ms: int) -> str: ...

    def add_export(self, manifest: dict[str, Any]) -> str: ...

    def delete_trace(self, trace_id: str) -> dict[str, int] | None: ...

    def purge_traces(self) -> tuple[dict[str, int], tuple[str, int, int]]: ...
