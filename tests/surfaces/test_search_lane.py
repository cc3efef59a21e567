"""REST's search lane (``gno.rest.search_lane``): at most ``width`` searches at once on
worker threads, the rest waiting in arrival order, counted as the reader pool's queue,
and 429 RATE_LIMITED once that queue is full."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

import anyio
import pytest

from gno.app import App
from gno.errors import ReadersBusyError
from gno.paths import resolve_paths
from gno.resident.readers import ReaderPool
from gno.rest.search_lane import SearchLane

DEADLINE = 30.0


class Searches:
    """Work items that block until the test releases them, recording who started when."""

    def __init__(self, n: int) -> None:
        self.release = [threading.Event() for _ in range(n)]
        self.started: list[int] = []
        self.running = self.peak = 0
        self._lock = threading.Lock()

    def __call__(self, i: int) -> int:
        with self._lock:
            self.started.append(i)
            self.running += 1
            self.peak = max(self.peak, self.running)
        assert self.release[i].wait(DEADLINE)
        with self._lock:
            self.running -= 1
        return i


async def _until(ready: Callable[[], bool]) -> None:
    with anyio.fail_after(DEADLINE):
        while not ready():
            await anyio.sleep(0.001)


def _pool(max_queued: int) -> ReaderPool:
    return ReaderPool(App(resolve_paths()), size=4, max_queued=max_queued)


def test_searches_run_width_at_a_time_in_arrival_order_and_count_as_queued() -> None:
    pool = _pool(max_queued=10)
    lane = SearchLane(pool, width=2)
    work = Searches(5)
    done: list[int] = []

    async def one(i: int) -> None:
        done.append(await lane.run(partial(work, i)))

    async def scenario() -> None:
        async with anyio.create_task_group() as tasks:
            for i in range(5):  # arrive one after another
                tasks.start_soon(one, i)
                await _until(lambda i=i: len(work.started) + lane.waiting == i + 1)
            assert work.started == [0, 1]
            assert (lane.waiting, pool.queued) == (3, 3)
            for finished, starts in ((0, 2), (1, 3), (2, 4)):
                work.release[finished].set()
                await _until(lambda starts=starts: len(work.started) == starts + 1)
                assert work.started[-1] == starts  # the oldest waiter goes next
            for event in work.release:
                event.set()
        assert sorted(done) == [0, 1, 2, 3, 4]
        assert work.peak == 2
        assert (lane.waiting, pool.queued) == (0, 0)

    anyio.run(scenario)


def test_a_full_queue_is_refused_with_rate_limited() -> None:
    pool = _pool(max_queued=1)
    lane = SearchLane(pool, width=1)
    work = Searches(2)

    async def scenario() -> None:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(lane.run, partial(work, 0))
            await _until(lambda: work.started == [0])
            tasks.start_soon(lane.run, partial(work, 1))
            await _until(lambda: lane.waiting == 1)
            with pytest.raises(ReadersBusyError) as refused:
                await lane.run(partial(work, 1))
            assert (refused.value.code, refused.value.http_status) == ("RATE_LIMITED", 429)
            assert pool.queued == 1
            for event in work.release:
                event.set()
        assert work.started == [0, 1]

    anyio.run(scenario)


def test_width_follows_the_pool_and_the_cores() -> None:
    assert 1 <= SearchLane(_pool(max_queued=1)).width <= 4
