"""``Gno`` and ``AsyncGno``: the generated operation methods over one transport.

``Gno()`` opens the local index named by the usual config and environment
(``GNO_CONFIG_DIR``/``GNO_DATA_DIR``, ``--index``'s default), ``index=``/``config=``
override them; ``Gno(url=…, token=…)`` talks to a running `gno serve`. Clients are
read-only unless opened with ``write=True``. Nothing is opened or connected before the
first call, so constructing a client is free."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any

from gno_contracts.sdk import AsyncOperations, Operations

from gno.sdk.calls import prepare
from gno.sdk.remote import DEFAULT_TIMEOUT, MAX_ANSWER_BYTES


class Gno(Operations):
    """Every gno operation as a typed, blocking method (keyword arguments, output models)."""

    def __init__(
        self,
        *,
        index: str | None = None,
        config: str | Path | None = None,
        url: str | None = None,
        token: str | None = None,
        write: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
    ) -> None:
        self.write = write
        self.url = url  # None: the local index
        self._transport: Any
        if url is not None:
            from gno.sdk.remote import RemoteTransport

            self._transport = RemoteTransport(url, token, timeout, max_answer_bytes)
        else:
            from gno.sdk.local import LocalTransport

            self._transport = LocalTransport(config, index)

    def _call(self, op_id: str, args: dict[str, Any]) -> Any:
        op, inp = prepare(op_id, args, self.write)
        return self._transport.call(op, inp)

    @property
    def last_trace_id(self) -> str | None:
        """The retrieval trace id of the last traced read (search, vsearch, query, ask,
        context, get) while tracing is on, else None (spec/traces.md)."""
        return self._transport.last_trace_id

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> Gno:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AsyncGno(AsyncOperations):
    """The asyncio twin of ``Gno``: the same methods as coroutines. Locally each call runs
    on a worker thread (the index is SQLite); remotely it is an httpx.AsyncClient."""

    def __init__(
        self,
        *,
        index: str | None = None,
        config: str | Path | None = None,
        url: str | None = None,
        token: str | None = None,
        write: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
    ) -> None:
        self.write = write
        self._local: Any = None
        self._remote: Any = None
        if url is not None:
            from gno.sdk.remote import AsyncRemoteTransport

            self._remote = AsyncRemoteTransport(url, token, timeout, max_answer_bytes)
        else:
            from gno.sdk.local import LocalTransport

            self._local = LocalTransport(config, index)

    async def _call(self, op_id: str, args: dict[str, Any]) -> Any:
        op, inp = prepare(op_id, args, self.write)
        if self._remote is not None:
            return await self._remote.call(op, inp)
        import asyncio  # here, not at import: asyncio costs a blocking client ~20 ms

        return await asyncio.to_thread(self._local.call, op, inp)

    @property
    def last_trace_id(self) -> str | None:
        """As ``Gno.last_trace_id``."""
        transport = self._remote if self._remote is not None else self._local
        return transport.last_trace_id

    async def aclose(self) -> None:
        if self._remote is not None:
            await self._remote.close()
        else:
            self._local.close()

    async def __aenter__(self) -> AsyncGno:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
