"""The request capacity (``gno.resident.capacity``): slots in order of arrival, a full queue
refused at once, a request cancelled in line leaves nothing behind, a slot handed to a
request cancelled at that moment is passed on."""

from __future__ import annotations

import asyncio

import pytest

from gno.resident import capacity as capacity_module
from gno.resident.capacity import Capacity


def test_slots_then_the_queue_then_refusal_and_slots_go_in_order() -> None:
    async def scenario() -> list[str]:
        cap = Capacity(max_active=1, max_queued=2)
        order: list[str] = []
        assert await cap.acquire()

        async def wait(name: str) -> None:
            assert await cap.acquire()
            order.append(name)
            cap.release()

        first, second = asyncio.create_task(wait("first")), asyncio.create_task(wait("second"))
        await asyncio.sleep(0)
        assert cap.queued == 2
        assert not await cap.acquire()  # full: refused at once
        cap.release()
        await asyncio.gather(first, second)
        assert (cap.active, cap.queued) == (0, 0)
        return order

    assert asyncio.run(scenario()) == ["first", "second"]


def test_a_request_cancelled_in_line_or_at_hand_over_keeps_the_count_right() -> None:
    async def scenario() -> tuple[int, int]:
        cap = Capacity(max_active=1, max_queued=2)
        assert await cap.acquire()
        gone = asyncio.create_task(cap.acquire())
        handed = asyncio.create_task(cap.acquire())
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.sleep(0)
        cap.release()  # to ``handed``, cancelled before it runs: the slot must come back
        handed.cancel()
        await asyncio.gather(gone, handed, return_exceptions=True)
        return cap.active, cap.queued

    assert asyncio.run(scenario()) == (0, 0)


def test_a_request_waiting_too_long_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capacity_module, "QUEUE_WAIT_SECONDS", 0.01)

    async def scenario() -> tuple[bool, int]:
        cap = Capacity(max_active=1, max_queued=1)
        assert await cap.acquire()
        return await cap.acquire(), cap.queued

    assert asyncio.run(scenario()) == (False, 0)
