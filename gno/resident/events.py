"""Document change events for `GET /api/events` (server-sent events).

After a job whose syncs changed something, the runtime publishes GNO's
``document-changed`` event per changed document (``document-event@1.0``); a
collection with more than ``DOCUMENT_EVENTS_MAX`` changes in one job gets one
``collection-changed`` event with counts instead, so a large sync never floods a
client. Publishing happens on the job's thread; each client's queue lives on the
event loop that serves it and is fed with ``loop.call_soon_threadsafe``. A client
whose queue is full (it stopped reading) is disconnected rather than ever slowing
a sync; EventSource reconnects after ``retry``. Callers that are not on this host
get the events without ``uri`` and ``relPath``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from gno.core.identity import make_uri

RETRY_MS = 3000  # the `retry:` hint: how long EventSource waits before reconnecting
KEEPALIVE_SECONDS = 15.0  # a comment line this often keeps proxies from closing the stream
QUEUE_MAX = 256  # events a client may lag behind before it is disconnected
DOCUMENT_EVENTS_MAX = 256  # per collection and job; more become one collection-changed
KEEPALIVE = ": keep-alive\n\n"
LOCAL_ONLY_FIELDS = ("uri", "relPath")


def frame(event: dict[str, Any]) -> str:
    """One SSE message: the event name and its JSON on one data line."""
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n"


def job_events(job: Any, index_name: str, at: str) -> list[dict[str, Any]]:
    """The events of one finished job, from the tallies its syncs recorded."""
    events: list[dict[str, Any]] = []
    origin = job.origin if job.origin == "watcher" else "sync"
    for tally in job.changes:
        if len(tally.changes) > DOCUMENT_EVENTS_MAX:
            events.append(
                {
                    "type": "collection-changed",
                    "collection": tally.collection,
                    "origin": origin,
                    "changedAt": at,
                    "jobId": job.id,
                    "added": tally.added,
                    "updated": tally.updated,
                    "removed": tally.inactivated,
                }
            )
            continue
        for rel_path, change in tally.changes:
            events.append(
                {
                    "type": "document-changed",
                    "uri": make_uri(tally.collection, rel_path, index_name),
                    "collection": tally.collection,
                    "relPath": rel_path,
                    "origin": origin,
                    "changedAt": at,
                    "change": change,
                    "jobId": job.id,
                }
            )
    return events


@dataclass(eq=False)
class Subscription:
    """One connected client: a bounded queue on the loop that serves it."""

    loop: asyncio.AbstractEventLoop
    local: bool
    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_MAX))
    ended: bool = False

    def offer(self, text: str) -> None:  # on the subscription's loop
        if self.ended:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.end()  # a client that stopped reading is dropped, never waited for

    def end(self) -> None:  # on the subscription's loop
        self.ended = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)

    async def next(self, keepalive: float) -> str | None:
        """The next frame to send, a keep-alive comment, or None when the stream ends."""
        try:
            return await asyncio.wait_for(self.queue.get(), keepalive)
        except TimeoutError:
            return KEEPALIVE


class EventBus:
    """Thread-safe fan-out of document events to the connected SSE clients."""

    def __init__(self, keepalive_seconds: float = KEEPALIVE_SECONDS) -> None:
        self.keepalive = keepalive_seconds
        self.retry_ms = RETRY_MS
        self._subs: set[Subscription] = set()
        self._lock = threading.Lock()
        self._closed = False

    @property
    def connected_clients(self) -> int:
        with self._lock:
            return sum(not s.ended for s in self._subs)

    @property
    def closed(self) -> bool:
        return self._closed

    def subscribe(self, local: bool) -> Subscription | None:
        """A new client on the running loop; None once the server is shutting down."""
        sub = Subscription(asyncio.get_running_loop(), local)
        with self._lock:
            if self._closed:
                return None
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    def publish(self, events: list[dict[str, Any]]) -> None:
        """From any thread: queue these events for every client."""
        if not events:
            return
        full = "".join(frame(e) for e in events)
        public = "".join(
            frame({k: v for k, v in e.items() if k not in LOCAL_ONLY_FIELDS}) for e in events
        )
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            self._call(sub, sub.offer, full if sub.local else public)

    def close(self) -> None:
        """From any thread: end every stream (shutdown); later subscribers are refused."""
        with self._lock:
            self._closed = True
            subs = list(self._subs)
        for sub in subs:
            self._call(sub, sub.end)

    def _call(self, sub: Subscription, fn: Any, *args: Any) -> None:
        try:
            sub.loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # its loop is closed: the client is long gone
            self.unsubscribe(sub)
