"""Run a read on a worker thread and cancel it when the HTTP client disconnects.

One task waits on the ASGI ``receive`` while the worker runs: once the request
body is read, the next message uvicorn delivers is ``http.disconnect``, and only
when the client went away (or the answer was sent). No polling: the watcher
sleeps in that one ``receive()`` and is cancelled as soon as the worker returns.
On disconnect the call's token, bound to the worker, is cancelled, the pipeline raises
``Cancelled`` at its next checkpoint, and the reader goes back to the pool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from starlette.requests import Request

from gno.services.cancel import CancelToken


async def run_until_disconnect(
    request: Request, work: Callable[[], Any], token: CancelToken
) -> Any:
    """``work()`` on a worker thread, which binds ``token`` (the call's: ``Dispatcher.run``
    binds the whole call); raises ``Cancelled`` (from the worker) when the client
    disconnected before it finished and a checkpoint noticed."""

    async def watch() -> None:
        while True:
            message = await request.receive()
            if message["type"] == "http.disconnect":
                token.cancel("the client disconnected")
                return

    outcome: list[Any] = []

    async def work_then_stop_watching(group: anyio.abc.TaskGroup) -> None:
        try:
            # Not abandoned on cancel: the reader is released only when the thread ends.
            outcome.append(await anyio.to_thread.run_sync(work))
        except Exception as exc:  # re-raised below as is, not as an exception group
            outcome.append(exc)
        group.cancel_scope.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        group.start_soon(work_then_stop_watching, group)
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]
