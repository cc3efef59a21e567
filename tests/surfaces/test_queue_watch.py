"""A request in line for a capacity slot watches its client (gno/rest/queue_watch.py): a
disconnect takes it out of the line at once (even when its slot came at that moment), the
messages read while it waited reach the app in order with none lost, and a body past the
limit is refused without waiting. ``receive`` is an ASGI channel fed by the test, as uvicorn
feeds it; the line is the real ``Capacity``."""

from __future__ import annotations

import asyncio

from gno.resident.capacity import Capacity
from gno.rest.queue_watch import QueueWatch


def _body(data: bytes, more: bool = False) -> dict:
    return {"type": "http.request", "body": data, "more_body": more}


DISCONNECT = {"type": "http.disconnect"}


async def _queued(line: Capacity, count: int) -> None:
    """Let the waiting tasks run until ``count`` are in line (a few loop turns)."""
    for _ in range(100):
        if line.queued == count:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{line.queued} in line, not {count}")


def test_a_client_gone_while_in_line_leaves_it_at_once_and_takes_no_slot() -> None:
    async def scenario() -> tuple[str, int, int]:
        line = Capacity(max_active=1, max_queued=1)
        assert line.admit() is True
        channel: asyncio.Queue[dict] = asyncio.Queue()
        watch = QueueWatch(channel.get, max_body_bytes=100)
        waiting = asyncio.create_task(watch.wait(line))
        await channel.put(_body(b"{}"))
        await _queued(line, 1)
        await channel.put(DISCONNECT)
        outcome = await waiting
        watch.close()
        gone_at_once = line.queued
        line.release()  # nobody left in line: the slot is counted back
        return outcome, gone_at_once, line.active

    assert asyncio.run(scenario()) == ("gone", 0, 0)


def test_a_slot_and_a_disconnect_at_once_pass_the_slot_on() -> None:
    async def scenario() -> tuple[str, str, int]:
        line = Capacity(max_active=1, max_queued=2)
        assert line.admit() is True
        ghost_channel: asyncio.Queue[dict] = asyncio.Queue()
        ghost = QueueWatch(ghost_channel.get, max_body_bytes=100)
        caller = QueueWatch(asyncio.Queue().get, max_body_bytes=100)
        ghost_waits = asyncio.create_task(ghost.wait(line))
        await _queued(line, 1)
        caller_waits = asyncio.create_task(caller.wait(line))
        await _queued(line, 2)
        ghost_channel.put_nowait(DISCONNECT)
        line.release()  # the ghost is first in line: the slot goes to it
        outcomes = await ghost_waits, await caller_waits
        ghost.close()
        caller.close()
        return *outcomes, line.active

    assert asyncio.run(scenario()) == ("gone", "admitted", 1)


def test_the_messages_read_in_line_reach_the_app_in_order() -> None:
    async def scenario() -> tuple[str, list[dict]]:
        line = Capacity(max_active=1, max_queued=1)
        assert line.admit() is True
        channel: asyncio.Queue[dict] = asyncio.Queue()
        watch = QueueWatch(channel.get, max_body_bytes=100)
        waiting = asyncio.create_task(watch.wait(line))
        await channel.put(_body(b'{"a"', more=True))
        await _queued(line, 1)
        line.release()  # admitted while a read of the rest is in flight
        outcome = await waiting
        # A reader cancelled while that read is pending loses nothing.
        early = asyncio.create_task(watch.receive())
        assert await watch.receive() == _body(b'{"a"', more=True)
        await asyncio.sleep(0)
        early.cancel()
        await channel.put(_body(b":1}"))
        await channel.put(DISCONNECT)
        received = [await watch.receive(), await watch.receive()]
        watch.close()
        return outcome, received

    assert asyncio.run(scenario()) == ("admitted", [_body(b":1}"), DISCONNECT])


def test_a_body_past_the_limit_is_refused_without_waiting_its_turn() -> None:
    async def scenario() -> tuple[str, int]:
        line = Capacity(max_active=1, max_queued=1)
        assert line.admit() is True
        channel: asyncio.Queue[dict] = asyncio.Queue()
        watch = QueueWatch(channel.get, max_body_bytes=4)
        waiting = asyncio.create_task(watch.wait(line))
        await channel.put(_body(b"abc", more=True))
        await channel.put(_body(b"de", more=True))
        outcome = await waiting
        watch.close()
        return outcome, line.queued

    assert asyncio.run(scenario()) == ("too large", 0)
