"""How many of the MCP gateway's requests a resident server runs at once, and how many may
wait (index.yml ``gateway.limits.maxConcurrentRequests`` and ``maxQueuedRequests``; GNO's
defaults 64 and 16). A request past both is refused at once by the caller
(``gno/rest/security.py``: 429 with ``Retry-After``), never left to hang.

Everything here runs on the server's event loop (one thread), so plain counters do; the
status snapshot only reads them. A freed slot goes straight to the oldest waiter, so a
newcomer cannot overtake the queue. A waiter is given up after ``QUEUE_WAIT_SECONDS``
(refused like a full queue): slow handlers can delay a request, not hold it forever. A
waiter whose client went away is cancelled by its caller (gno/rest/queue_watch.py) and so
leaves the line at once.
"""

from __future__ import annotations

import asyncio
from collections import deque

DEFAULT_MAX_CONCURRENT = 64
DEFAULT_MAX_QUEUED = 16
QUEUE_WAIT_SECONDS = 30.0


class Capacity:
    def __init__(
        self, max_active: int = DEFAULT_MAX_CONCURRENT, max_queued: int = DEFAULT_MAX_QUEUED
    ) -> None:
        self.max_active, self.max_queued = max_active, max_queued
        self.active = 0
        self._waiting: deque[asyncio.Future[bool]] = deque()

    @property
    def queued(self) -> int:
        return sum(not waiter.done() for waiter in self._waiting)

    def admit(self) -> bool | None:
        """What can be decided at once: True, a slot is taken (the caller must ``release``);
        False, refused (the line is full); None, the request must wait (``acquire``)."""
        if self.active < self.max_active and not self.queued:
            self.active += 1
            return True
        if self.queued >= self.max_queued:
            return False
        return None

    async def acquire(self) -> bool:
        """Take a slot, waiting in line when all are busy; False (at once, or after
        ``QUEUE_WAIT_SECONDS`` in line) when the request is refused. A True caller must
        ``release``. Cancelling the wait leaves the line at once (the caller's client went
        away: gno/rest/queue_watch.py)."""
        if (now := self.admit()) is not None:
            return now
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        self._waiting.append(waiter)
        timer = loop.call_later(QUEUE_WAIT_SECONDS, self._give_up, waiter)
        try:
            return await waiter
        except BaseException:  # the request's task was cancelled while in line
            if waiter.done() and not waiter.cancelled() and waiter.result():
                self.release()  # a slot was handed over just before: pass it on
            raise
        finally:
            timer.cancel()
            self._forget_done()

    def release(self) -> None:
        """A slot is free: the oldest waiter still in line gets it, else it is counted back."""
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(True)
                return
        self.active -= 1

    def _give_up(self, waiter: asyncio.Future[bool]) -> None:
        if not waiter.done():
            waiter.set_result(False)

    def _forget_done(self) -> None:
        self._waiting = deque(w for w in self._waiting if not w.done())
