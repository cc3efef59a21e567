"""``GNO_SEARCH_PROCESSES``: how many search processes `gno serve` starts (gno/launch.py)."""

from __future__ import annotations

import os

import pytest

from gno.launch import MAX_SEARCH_PROCESSES, search_processes


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("0", 0), ("3", 3), (" 2 ", 2), ("999", MAX_SEARCH_PROCESSES)],
)
def test_a_count_in_ascii_digits_is_taken(monkeypatch, raw: str, expected: int) -> None:
    monkeypatch.setenv("GNO_SEARCH_PROCESSES", raw)
    assert search_processes() == expected


@pytest.mark.parametrize("raw", ["²", "١", "two", "-1", "1.5"])
def test_anything_else_falls_back_to_the_core_count(monkeypatch, raw: str) -> None:
    # '²' passed str.isdigit() and int() refused it: `gno serve` died at start
    monkeypatch.setenv("GNO_SEARCH_PROCESSES", raw)
    cores = os.cpu_count() or 1
    assert search_processes() == (min(cores, MAX_SEARCH_PROCESSES) if cores > 1 else 0)
