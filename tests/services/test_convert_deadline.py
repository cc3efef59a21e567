"""A converter's deadline (engine.md §2.2: 60 s; ``GNO_CONVERT_TIMEOUT_MS`` here): a file
whose conversion runs past it is recorded as TIMEOUT and the sync goes on, on the main
thread (the CLI) and off it (a server's sync job, whose Office and PDF files go to worker
processes). The slow file is a real 7 KB PDF: one page of 2,000 short text runs that
pdfminer's layout analysis takes minutes over (280 s measured on the dev VM)."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from pathlib import Path

import pytest

from gno.adapters.converters.office import MarkitdownConverter
from gno.ingest.deadline import Expired, convert_seconds, deadline
from tests.adapters.test_converters_office import make_pdf
from tests.conftest import search, sync

DEADLINE_MS = 2000


def slow_pdf() -> bytes:
    return make_pdf(") Tj T* (".join(f"word{i}" for i in range(2000)))


@pytest.fixture
def short_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    # The parsers load once, outside any deadline (a first conversion imports them).
    MarkitdownConverter().convert(Path("warm.pdf"), make_pdf("warm"), ".pdf", "application/pdf")
    monkeypatch.setenv("GNO_CONVERT_TIMEOUT_MS", str(DEADLINE_MS))


def _errors(result) -> list[tuple[str, str]]:
    return [(e.relPath, e.code) for c in result.collections for e in c.errors]


def test_a_conversion_past_its_deadline_is_a_timeout_and_the_sync_goes_on(
    make_app, short_deadline
) -> None:
    app, _ = make_app({"slow.pdf": slow_pdf(), "fast.pdf": make_pdf("zebra"), "n.md": "okapi\n"})
    started = time.monotonic()
    first = sync(app)
    assert _errors(first) == [("slow.pdf", "TIMEOUT")]
    assert time.monotonic() - started < 60  # stopped at the deadline, not after minutes
    assert search(app, "zebra").results and search(app, "okapi").results
    again = sync(app)  # not a permanent error: an unchanged file is tried again
    assert _errors(again) == [("slow.pdf", "TIMEOUT")]


def test_off_the_main_thread_a_pdf_is_converted_where_the_deadline_holds(
    make_app, short_deadline
) -> None:
    app, _ = make_app({"slow.pdf": slow_pdf(), "n.md": "okapi\n"})
    app.close()  # the thread opens its own store, as a server's sync job does
    done: list[object] = []
    job = threading.Thread(target=lambda: done.append(sync(app)), daemon=True)
    job.start()
    job.join(120)
    assert not job.is_alive() and done
    assert _errors(done[0]) == [("slow.pdf", "TIMEOUT")]


def test_the_deadline_leaves_another_timer_running() -> None:
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with deadline(5):
            pass
        with pytest.raises(Expired), deadline(0.05):
            time.sleep(1)
        time.sleep(0.5)
        assert fired == [1]  # the outer timer still went off, once
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [
        ("2000", 2.0),
        (" 2500 ", 2.5),
        ("", 60.0),
        ("0", 60.0),  # before: 0.001 s, every PDF a TIMEOUT
        ("-5", 60.0),
        ("1.5", 60.0),
        ("60s", 60.0),
        ("nan", 60.0),
        ("00", 60.0),
        ("\u00b2", 60.0),  # a digit to str.isdigit, not to int()
        ("99999999999999999", 86_400.0),  # before: an OverflowError from setitimer
        ("9" * 5000, 86_400.0),  # more digits than int() reads
    ],
)
def test_the_deadline_variable_falls_back_to_60_s_unless_a_positive_whole_number(
    monkeypatch: pytest.MonkeyPatch, raw: str, seconds: float
) -> None:
    monkeypatch.setenv("GNO_CONVERT_TIMEOUT_MS", raw)
    assert convert_seconds() == seconds
    with deadline(convert_seconds()):  # a value setitimer takes
        pass


def test_a_zero_deadline_does_not_time_out_every_conversion(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    MarkitdownConverter().convert(Path("warm.pdf"), make_pdf("warm"), ".pdf", "application/pdf")
    monkeypatch.setenv("GNO_CONVERT_TIMEOUT_MS", "0")
    app, _ = make_app({"fast.pdf": make_pdf("zebra")})
    assert _errors(sync(app)) == []  # before: TIMEOUT after 1 ms
    assert search(app, "zebra").results


def _on_a_thread(work) -> list[str]:
    outcome: list[str] = []

    def run() -> None:
        try:
            work()
            outcome.append("finished")
        except Expired:
            outcome.append("expired")

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    return outcome


def test_off_the_main_thread_a_conversion_past_its_deadline_is_stopped() -> None:
    # Before: off the main thread the block ran unbounded (here until the test gave up).
    given_up = threading.Event()

    def spin() -> None:
        with deadline(0.2):
            while not given_up.is_set():
                pass

    outcome = _on_a_thread(spin)
    given_up.set()
    assert outcome == ["expired"]


def test_off_the_main_thread_the_deadline_never_fires_after_its_block() -> None:
    def many_blocks() -> None:
        for _ in range(200):  # blocks that end about when their deadline passes
            with contextlib.suppress(Expired), deadline(0.001):
                sum(range(2000))
        time.sleep(0.05)
        sum(range(100_000))  # a late Expired would land out here

    assert _on_a_thread(many_blocks) == ["finished"]
