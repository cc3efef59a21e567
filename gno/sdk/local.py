"""The local transport: the index opened in-process, operations run by their registry
handlers on one ``App`` — the same code path as the CLI, so it is as safe beside a
running `gno serve` as `gno search` is (SQLite WAL readers; writes take the index guard)."""

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

    def call(self, op: Operation, inp: BaseModel) -> Any:
        from gno.services import handler
        from gno.services.call import Call, bind

        with self._lock:
            if self._app is None:
                from gno.app import App

                self._app = App(self.paths, mode="direct-cli")
            with bind(Call("sdk")):
                return handler(op.id)(self._app, inp)

    def close(self) -> None:
        with self._lock:
            if self._app is not None:
                self._app.close()
                self._app = None
