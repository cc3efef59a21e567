"""Date filters: ISO dates/times and a few relative tokens, resolved in UTC."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from gno.errors import ValidationError


def utc_iso(moment: datetime) -> str:
    """ISO-8601 UTC with milliseconds (``2026-01-31T09:00:00.000Z``).

    A moment whose UTC falls before year 1 or after 9999 (``0001-01-01T00:00+01:00``, an
    offset at either end of the calendar) is clamped to that end: converting it raised
    OverflowError, which a frontmatter date, a chat time or a ``--since`` bound must never
    do. The fields are written out rather than by ``strftime``, whose ``%Y`` gives ``1``,
    not ``0001``, for early years on glibc (no longer ISO, and out of order as text)."""
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:
        utc = datetime.min if moment.year == 1 else datetime.max
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:"
        f"{utc.second:02d}.{utc.microsecond // 1000:03d}Z"
    )


def _day(dt: datetime) -> datetime:
    return dt.replace(hour=0, minute=0, second=0, microsecond=0)


def _month(dt: datetime, back: int = 0) -> datetime:
    month = dt.month - back
    year = dt.year + (month - 1) // 12
    return _day(dt).replace(year=year, month=(month - 1) % 12 + 1, day=1)


def relative_range(token: str, now: datetime | None = None) -> tuple[datetime, datetime] | None:
    """``today``, ``yesterday``, ``this/last week|month``, ``recent`` (30 days); weeks start Monday."""
    now = now or datetime.now(UTC)
    today = _day(now)
    week = today - timedelta(days=today.weekday())
    ranges = {
        "today": (today, now),
        "yesterday": (today - timedelta(days=1), today),
        "this week": (week, now),
        "last week": (week - timedelta(days=7), week),
        "this month": (_month(now), now),
        "last month": (_month(now, 1), _month(now)),
        "recent": (now - timedelta(days=30), now),
    }
    return ranges.get(" ".join(token.lower().split()))


def resolve_bound(value: str, *, end: bool, now: datetime | None = None) -> str:
    """An ISO-8601 UTC bound for ``since`` (start) or ``until`` (end)."""
    text = value.strip()
    relative = relative_range(text, now)
    if relative:
        return utc_iso(relative[1] if end else relative[0])
    try:
        if len(text) == 10:
            day = datetime.fromisoformat(text).replace(tzinfo=UTC)
            # the day's last millisecond, set rather than added: 9999-12-31 + 1 day overflows
            return utc_iso(
                day.replace(hour=23, minute=59, second=59, microsecond=999_000) if end else day
            )
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValidationError(
            f"Invalid date {value!r}: use an ISO date/time or today, yesterday, this week, last week, "
            "this month, last month, recent"
        ) from None
    return utc_iso(parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC))


_PHRASES = ("this week", "last week", "this month", "last month", "yesterday", "today", "recent")
_RECENCY = re.compile(
    r"\b(latest|newest|most recent|recent|recently|today|yesterday|this week|this month)\b",
    re.IGNORECASE,
)


def implicit_range(query: str, now: datetime | None = None) -> tuple[str, str] | None:
    """The date range a query's own words ask for ("notes from last week"), as ISO bounds.

    The first phrase found wins (longer phrases are tried first, so "last week" is never read
    as a bare "recent"). None when the text names no period."""
    lowered = " ".join(query.lower().split())
    for phrase in _PHRASES:
        if re.search(rf"\b{phrase}\b", lowered):
            start, end = relative_range(phrase, now) or (None, None)
            if start and end:
                return utc_iso(start), utc_iso(end)
    return None


def wants_recency(query: str) -> bool:
    """Whether the query asks for the newest documents first ("latest release notes")."""
    return _RECENCY.search(query) is not None
