"""A conversion past its deadline is stopped even when a library swallows ``Expired`` or
its cleanup redoes the slow work (pdfplumber's ``close()`` walked a PDF's reference loop
again, and the sync hung for good although the deadline had fired): ``Expired`` comes
again every ``GRACE_SECONDS`` until the block ends, on the main thread (a timer signal)
and off it (the watchdog). It never comes once the block has ended."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

from gno.ingest.deadline import GRACE_SECONDS, Expired, deadline, interruptible

GIVE_UP = 20.0  # the swallowing loop's own bound: before, it ran until here


def swallowing(swallows: int) -> tuple[str, int]:
    """A library's loop that catches ``Expired`` ``swallows`` times and each time goes back
    to work: how the block ended and how often it caught."""
    caught = 0
    give_up = time.monotonic() + GIVE_UP
    try:
        with deadline(0.2):
            while time.monotonic() < give_up:
                try:
                    while time.monotonic() < give_up:
                        pass
                except BaseException:  # the library under test swallows even this
                    caught += 1
                    if caught > swallows:
                        raise
    except Expired:
        return "expired", caught
    return "gave up", caught


def on_a_thread(work: Callable[[], object]) -> list[object]:
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(work())
        except Expired:
            outcome.append("expired late")

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(GIVE_UP * 3)
    return outcome


def test_on_the_main_thread_a_block_that_swallows_expired_is_stopped_again() -> None:
    assert interruptible()
    started = time.monotonic()
    assert swallowing(2) == ("expired", 3)  # before: ("gave up", 1) after 20 s
    assert time.monotonic() - started < GIVE_UP


def test_off_the_main_thread_a_block_that_swallows_expired_is_stopped_again() -> None:
    assert on_a_thread(lambda: swallowing(2)) == [("expired", 3)]  # before: ("gave up", 1)


def test_a_cleanup_that_redoes_the_slow_work_is_stopped_too() -> None:
    # pdfplumber's shape: the slow work, and again in a finally on the way out.
    give_up = time.monotonic() + GIVE_UP
    ran_out: list[bool] = []

    def slow() -> None:
        while time.monotonic() < give_up:
            pass
        ran_out.append(True)

    def convert() -> str:
        try:
            with deadline(0.2):
                try:
                    slow()
                finally:
                    slow()
        except Expired:
            return "expired"
        return "finished"

    assert on_a_thread(convert) == ["expired"]
    assert not ran_out  # before: the finally's loop ran until it gave up


def _blocks_ending_at_their_deadline() -> str:
    """Thousands of blocks that end about when their deadline passes, then a watch longer
    than the grace interval: a timer or watch left behind would raise out here."""
    for i in range(15000):
        with contextlib.suppress(Expired), deadline(0.00005 * (i % 7 + 1)):
            sum(range(i % 50))
    watch_until = time.monotonic() + GRACE_SECONDS * 1.5
    while time.monotonic() < watch_until:
        sum(range(100))
    return "finished"


def test_on_the_main_thread_expired_never_comes_after_the_block() -> None:
    assert interruptible()
    assert _blocks_ending_at_their_deadline() == "finished"


def test_off_the_main_thread_expired_never_comes_after_the_block() -> None:
    assert on_a_thread(_blocks_ending_at_their_deadline) == ["finished"]
