"""The local transport: the index opened in-process, operations run by their registry
handlers on one ``App`` — the same code path as the CLI, so it is as safe beside a
running `gno serve` as `gno search` is (SQLite WAL readers; writes take the index guard).
A traced read records its retrieval trace as the CLI does (``last_trace_id``)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gno_contracts.operations import Operation

if TYPE_CHECKING:
    from pydantic import BaseModel


class LocalTransport:
    def __init__(self, config: str | Path | None, index: str | None) -> None:
        from gno.paths import resolve_paths

        self.paths = resolve_paths(config, index)  # a bad index name fails here, at once
        self._app: Any = None
        self._lock = threading.Lock()  # one connection: calls from threads take turns
        self.last_trace_id: str | None = None

    def call(self, op: Operation, inp: BaseModel) -> Any:
        from gno.services import handler
        from gno.services.call import Call, bind

        with self._lock:
            if self._app is None:
                from gno.app import App

                self._app = App(self.paths, mode="direct-cli")
            with bind(Call("sdk")):
                result = handler(op.id)(self._app, inp)
            self.last_trace_id = _record(self._app, op.id, inp, result)
            return result

    def close(self) -> None:
        with self._lock:
            if self._app is not None:
                self._app.close()
                self._app = None


def _record(app: Any, op_id: str, inp: Any, result: Any) -> str | None:
    """The retrieval trace of a traced read when tracing is on (spec/traces.md), as the
    CLI records it; None otherwise (and without loading the recorder)."""
    from gno.services.trace_surface import TRACED_OPERATIONS, record_call

    return record_call(app, op_id, inp, result) if op_id in TRACED_OPERATIONS else None
