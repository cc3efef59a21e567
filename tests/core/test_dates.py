"""Date bounds and the periods a query's own words name."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gno.core.dates import implicit_range, relative_range, resolve_bound, wants_recency
from gno.core.frontmatter import parse_date
from gno.errors import ValidationError

NOW = datetime(2026, 11, 25, 15, 30, tzinfo=UTC)  # a Wednesday


def test_weeks_start_on_monday() -> None:
    start, end = relative_range("this week", NOW) or (None, None)
    assert start == datetime(2026, 11, 23, tzinfo=UTC) and end == NOW
    last_start, last_end = relative_range("last week", NOW) or (None, None)
    assert (last_start, last_end) == (datetime(2026, 11, 16, tzinfo=UTC), start)


def test_last_month_crosses_the_year() -> None:
    jan = datetime(2027, 1, 10, tzinfo=UTC)
    assert relative_range("last month", jan) == (
        datetime(2026, 12, 1, tzinfo=UTC),
        datetime(2027, 1, 1, tzinfo=UTC),
    )


def test_date_only_bounds_cover_the_whole_day() -> None:
    assert resolve_bound("2024-03-15", end=False) == "2024-03-15T00:00:00.000Z"
    assert resolve_bound("2024-03-15", end=True) == "2024-03-15T23:59:59.999Z"
    with pytest.raises(ValidationError, match="Invalid date"):
        resolve_bound("next tuesday", end=False)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("meeting notes from last week", ("2026-11-16T00:00:00.000Z", "2026-11-23T00:00:00.000Z")),
        ("what did I write YESTERDAY", ("2026-11-24T00:00:00.000Z", "2026-11-25T00:00:00.000Z")),
        ("recent exporter changes", ("2026-10-26T15:30:00.000Z", "2026-11-25T15:30:00.000Z")),
        ("tail sampling processor", None),
        ("todays special", None),  # a word containing a period name is not the period
    ],
)
def test_implicit_range(query: str, expected: tuple[str, str] | None) -> None:
    assert implicit_range(query, NOW) == expected


def test_recency_words() -> None:
    assert wants_recency("latest release notes")
    assert wants_recency("most recent incident")
    assert not wants_recency("span links")
    assert not wants_recency("lateststuff")


@given(st.text(max_size=60))
def test_implicit_range_is_ordered_and_only_for_named_periods(text: str) -> None:
    found = implicit_range(text, NOW)
    if found is not None:
        assert found[0] <= found[1]
        assert any(p in " ".join(text.lower().split()) for p in ("week", "month", "day", "recent"))


@pytest.mark.parametrize(
    ("value", "end", "expected"),
    [
        # the last millisecond of 9999-12-31 was computed as the next day minus 1 ms
        ("9999-12-31", True, "9999-12-31T23:59:59.999Z"),
        # offsets that carry the UTC time past either end of the calendar are clamped
        ("0001-01-01T00:00:00+01:00", False, "0001-01-01T00:00:00.000Z"),
        ("9999-12-31T23:59:59-01:00", True, "9999-12-31T23:59:59.999Z"),
        # early years stay four digits (strftime's %Y wrote "999")
        ("0999-06-01", False, "0999-06-01T00:00:00.000Z"),
    ],
)
def test_bounds_at_the_ends_of_the_calendar(value: str, end: bool, expected: str) -> None:
    assert resolve_bound(value, end=end) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0001-01-01T00:00:00+01:00", "0001-01-01T00:00:00.000Z"),
        ("9999-12-31T23:59:59-01:00", "9999-12-31T23:59:59.999Z"),
        ("0999-06-01", "0999-06-01T00:00:00.000Z"),
        ("99999-01-01", None),
    ],
)
def test_frontmatter_dates_at_the_ends_of_the_calendar(value: str, expected: str | None) -> None:
    assert parse_date(value) == expected
