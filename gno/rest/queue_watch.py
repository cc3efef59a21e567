"""A request waiting in line for one of the capacity's slots (gno/resident/capacity.py)
watches its client: once the client disconnects, the request leaves the line at once and
never runs. Without this a client that timed out and retried left its earlier requests
queued (and later running) until their turn came, and real callers got 429.

The only way an ASGI app learns of a disconnect is the ``http.disconnect`` that ``receive``
delivers, so the wait reads the request while it is in line: the body's messages are kept
and handed to the app, in order, once the request runs; then the next message, which
uvicorn delivers only when the client goes away (or the answer is sent). No polling: one
``receive()`` is in flight at a time, and the one still pending when the slot comes is
handed over, never cancelled, so no message is lost. What is kept is bounded by the body
limit: a body found past it while in line is refused (413) at once, as it would be once
it ran. The wait itself is bounded by the line's ``QUEUE_WAIT_SECONDS``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Literal, Protocol

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Outcome = Literal["admitted", "refused", "gone", "too large"]


class Line(Protocol):
    async def acquire(self) -> bool: ...

    def release(self) -> None: ...


class QueueWatch:
    """``wait`` for a slot while watching the client; once admitted, ``receive`` is the
    request's ``receive`` for the app; ``close`` when the request ends."""

    def __init__(self, receive: Receive, max_body_bytes: int) -> None:
        self._receive, self._limit = receive, max_body_bytes
        self._seen: list[Message] = []
        self._reading: asyncio.Task[Message] | None = None

    async def wait(self, line: Line) -> Outcome:
        """Wait for ``line``'s slot (the caller must ``release`` it when "admitted");
        "refused" when the line gave up on the request, "gone" when its client
        disconnected, "too large" when its body passed the limit."""
        slot = asyncio.ensure_future(line.acquire())
        outcome: Outcome | None = None
        size = 0
        try:
            while outcome is None:
                if self._reading is None:
                    self._reading = asyncio.ensure_future(self._receive())
                await asyncio.wait({slot, self._reading}, return_when=asyncio.FIRST_COMPLETED)
                if self._reading.done():
                    message = self._reading.result()
                    self._reading = None
                    self._seen.append(message)
                    if message["type"] == "http.disconnect":
                        outcome = "gone"  # even when the slot came at the same moment
                        break
                    size += len(message.get("body", b""))
                    if size > self._limit:
                        outcome = "too large"
                        break
                if slot.done():
                    outcome = "admitted" if slot.result() else "refused"
            return outcome
        finally:
            if outcome != "admitted":
                _give_back(slot, line)

    async def receive(self) -> Message:
        """The messages read while in line, the one then in flight, then the client's."""
        if self._seen:
            return self._seen.pop(0)
        if self._reading is not None:
            # Shielded: a caller cancelled while waiting (a disconnect watcher stopped when
            # its work ends) leaves the message for the next call instead of losing it.
            message = await asyncio.shield(self._reading)
            self._reading = None
            return message
        return await self._receive()

    def close(self) -> None:
        """The request is over: a read still in flight has no one left to read it."""
        if self._reading is not None:
            self._reading.cancel()
            self._reading = None


def _give_back(slot: asyncio.Future[bool], line: Line) -> None:
    """Leave the line: a wait still pending is cancelled (the line forgets it at once; a
    slot handed over meanwhile is passed on by ``acquire``), a slot already given is
    released to the next in line."""
    if not slot.done():
        slot.cancel()
    elif not slot.cancelled() and slot.exception() is None and slot.result():
        line.release()
