"""The document event bus: publishing from a job thread reaches every client's loop,
callers off this host get no uri/relPath, a client that stops reading is dropped
without blocking the publisher, closing ends every stream; and which events a
finished job produces."""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from gno.resident.events import (
    DOCUMENT_EVENTS_MAX,
    KEEPALIVE,
    QUEUE_MAX,
    EventBus,
    job_events,
)
from gno.services.sync_tally import CollectionTally

EVENT = {
    "type": "document-changed",
    "uri": "gno://notes/a.md",
    "collection": "notes",
    "relPath": "a.md",
    "origin": "watcher",
    "changedAt": "2026-08-01T09:40:01.250Z",
    "change": "added",
    "jobId": "j1",
}


def parse(text: str) -> list[dict[str, Any]]:
    """The data lines of SSE frames, checked against their event names."""
    out = []
    for message in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in message.split("\n"))
        data = json.loads(lines["data"])
        assert lines["event"] == data["type"]
        out.append(data)
    return out


def from_thread(fn: Any, *args: Any) -> None:
    thread = threading.Thread(target=fn, args=args)
    thread.start()
    thread.join()


def test_events_reach_local_and_remote_clients_from_another_thread() -> None:
    async def scenario() -> tuple[str | None, str | None]:
        bus = EventBus()
        local, remote = bus.subscribe(local=True), bus.subscribe(local=False)
        assert local is not None and remote is not None and bus.connected_clients == 2
        from_thread(bus.publish, [EVENT])
        return await local.next(5), await remote.next(5)

    local_text, remote_text = asyncio.run(scenario())
    assert parse(local_text or "") == [EVENT]
    assert parse(remote_text or "") == [
        {k: v for k, v in EVENT.items() if k not in ("uri", "relPath")}
    ]


def test_a_client_that_stops_reading_is_dropped_and_close_ends_streams() -> None:
    async def scenario() -> None:
        bus = EventBus()
        slow, fine = bus.subscribe(local=True), bus.subscribe(local=True)
        assert slow is not None and fine is not None
        for _ in range(QUEUE_MAX + 1):  # never blocks, however far behind `slow` is
            bus.publish([EVENT])
            assert parse(await fine.next(5) or "") == [EVENT]  # `fine` keeps up
        assert slow.ended and await slow.next(5) is None  # dropped: its stream ends
        assert not fine.ended and bus.connected_clients == 1
        assert await fine.next(0.01) == KEEPALIVE  # nothing new: a keep-alive comment
        from_thread(bus.close)
        assert await fine.next(5) is None
        assert bus.subscribe(local=True) is None  # shutting down: refused

    asyncio.run(scenario())


@dataclass
class FinishedJob:
    id: str
    origin: str
    changes: list[CollectionTally] = field(default_factory=list)


def test_a_job_becomes_one_event_per_document_or_one_per_busy_collection() -> None:
    small = CollectionTally("notes", added=1, inactivated=1)
    small.changed("new doc.md", "added")
    small.changed("gone.md", "removed")
    big = CollectionTally("docs", added=DOCUMENT_EVENTS_MAX + 5)
    for i in range(DOCUMENT_EVENTS_MAX + 5):
        big.changed(f"d{i}.md", "added")
    job = FinishedJob("j9", "watcher", [small, big])
    events = job_events(job, "work", "2026-08-01T09:40:01.250Z")
    assert [e["type"] for e in events] == ["document-changed"] * 2 + ["collection-changed"]
    first = events[0]
    assert first["uri"] == "gno://notes/new%20doc.md?index=work" and first["origin"] == "watcher"
    assert events[1]["change"] == "removed" and events[1]["jobId"] == "j9"
    assert events[2] | {"changedAt": ""} == {
        "type": "collection-changed",
        "collection": "docs",
        "origin": "watcher",
        "changedAt": "",
        "jobId": "j9",
        "added": DOCUMENT_EVENTS_MAX + 5,
        "updated": 0,
        "removed": 0,
    }
    assert job_events(FinishedJob("j0", "sync", [CollectionTally("notes")]), "default", "x") == []
