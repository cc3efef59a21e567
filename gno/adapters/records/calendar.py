"""Calendar records: one record per VEVENT, VTODO or VJOURNAL of an ``.ics`` file.

Parsed by ``icalendar`` (RFC 5545; the whole file, so calendars have a smaller size cap,
``MAX_CALENDAR_BYTES``). A recurring event stays one record whose anchors list its first
occurrences, at most 64 (engine.md §2.7), expanded here for the simple rules
(DAILY, WEEKLY with BYDAY, MONTHLY, YEARLY; INTERVAL, COUNT, UNTIL) in a loop of at most
1,024 steps, so a rule with a hundred thousand occurrences, or one that never matches,
costs next to nothing; other rules keep their text only (the record's "Repeats" line). A component with an unreadable start date is a malformed row; the others are kept.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from itertools import islice
from typing import Any

from gno.core.records import MAX_RECORD_CHARS, MAX_RECURRENCE_ANCHORS, Malformed, Record

ADAPTER_ID = "record/ical"
ADAPTER_VERSION = "1.0.0"
MAX_CALENDAR_BYTES = 16 * 1024 * 1024
MAX_COMPONENTS = 100_000
_KINDS = ("VEVENT", "VTODO", "VJOURNAL")
_EXPANDED_FREQS = frozenset({"DAILY", "WEEKLY", "MONTHLY", "YEARLY"})


class NotACalendar(Exception):
    """The bytes are not an iCalendar stream."""


def read_ics(data: bytes) -> Iterator[Record | Malformed]:
    import icalendar

    if not data.lstrip().upper().startswith(b"BEGIN:VCALENDAR"):
        raise NotACalendar("Not an iCalendar file: it does not start with BEGIN:VCALENDAR")
    try:
        calendar = icalendar.Calendar.from_ical(data)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise NotACalendar(f"Not a readable iCalendar file: {str(exc)[:200]}") from exc
    components = (c for c in calendar.walk() if c.name in _KINDS)
    for number, component in enumerate(islice(components, MAX_COMPONENTS), start=1):
        try:
            yield from _component(component, number)
        except (ValueError, TypeError, KeyError, OverflowError) as exc:
            yield Malformed(f"component:{number}", f"Unreadable {component.name}: {str(exc)[:200]}")


def _text(component: Any, name: str) -> str:
    value = component.get(name)
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _when(component: Any, name: str) -> dt.date | None:
    value = component.get(name)
    if value is None:
        return None
    moment = getattr(value, "dt", None)
    if not isinstance(moment, dt.date):
        raise ValueError(f"invalid {name} {str(value)[:80]!r}")
    return moment


def _component(component: Any, number: int) -> Iterator[Record | Malformed]:
    uid = _text(component, "UID").strip()
    locator = f"{component.name.lower()}:{uid[:400] or number}"
    broken = [
        name for name, _ in getattr(component, "errors", ()) if name in ("DTSTART", "DTEND", "DUE")
    ]
    if broken:
        yield Malformed(locator, f"Invalid {broken[0]} date")
        return
    start = _when(component, "DTSTART")
    end = _when(component, "DTEND") or _when(component, "DUE")
    recurrence_id = _when(component, "RECURRENCE-ID")
    summary = _text(component, "SUMMARY")
    organizer = _text(component, "ORGANIZER").removeprefix("mailto:").removeprefix("MAILTO:")
    attendees_raw = component.get("ATTENDEE") or []
    attendees = [
        str(a).removeprefix("mailto:").removeprefix("MAILTO:")
        for a in (attendees_raw if isinstance(attendees_raw, list) else [attendees_raw])
    ][:256]
    body = _text(component, "DESCRIPTION")[:MAX_RECORD_CHARS]
    dates: dict[str, str] = {}
    anchors: list[tuple[str, str, str | None]] = [("event", uid or str(number), None)]
    if start is not None:
        dates["start"] = start.isoformat()
        anchors.append(("timestamp", start.isoformat(), end.isoformat() if end else None))
    if end is not None:
        dates["end"] = end.isoformat()
    rule = component.get("RRULE")
    if rule is not None and start is not None:
        occurrences = _occurrences(rule, start)
        anchors.extend(("event", o, None) for o in occurrences)
    stable = uid or f"component:{number}"
    if recurrence_id is not None:
        stable += "@" + recurrence_id.isoformat()
    categories = [c.strip() for c in _text(component, "CATEGORIES").split(",") if c.strip()]
    yield Record(
        stable_id=stable,
        title=summary or "(untitled event)",
        headers=(
            ("When", _span(start, end)),
            ("Where", _text(component, "LOCATION")),
            ("Organizer", organizer),
            ("Attendees", ", ".join(attendees)),
            ("Repeats", rule.to_ical().decode("ascii", "replace") if rule is not None else ""),
        ),
        body=body,
        locator=locator,
        anchors=tuple(anchors),
        meta={
            "author": organizer,
            "participants": attendees,
            "eventId": uid,
            "dateFields": dates,
            "categories": categories,
        },
    )


def _span(start: dt.date | None, end: dt.date | None) -> str:
    if start is None:
        return ""
    return start.isoformat() + (f" to {end.isoformat()}" if end else "")


def _occurrences(rule: Any, start: dt.date) -> list[str]:
    """The first occurrences of a simple rule, at most 64; none for a rule this does not
    expand (sub-daily, or BY* parts other than a weekly BYDAY). Every loop here is bounded
    by a step count, so no rule can make it search for long (a general expander such as
    dateutil's searches up to year 9999 for a rule that never matches)."""
    parts = {str(k).upper(): v for k, v in rule.items()}
    freq = str((parts.get("FREQ") or [""])[0]).upper()
    allowed = {"FREQ", "INTERVAL", "COUNT", "UNTIL", "WKST"} | (
        {"BYDAY"} if freq == "WEEKLY" else set()
    )
    if freq not in _EXPANDED_FREQS or set(parts) - allowed:
        return []
    interval = max(1, min(int((parts.get("INTERVAL") or [1])[0]), 1000))
    count = int((parts.get("COUNT") or [MAX_RECURRENCE_ANCHORS])[0])
    limit = max(0, min(count, MAX_RECURRENCE_ANCHORS))
    until = (parts.get("UNTIL") or [None])[0]
    days = [_WEEKDAYS.get(str(d).upper()[-2:]) for d in parts.get("BYDAY") or []]
    out: list[str] = []
    for step in range(MAX_RECURRENCE_ANCHORS * 16):
        if len(out) >= limit:
            break
        for moment in _step(start, freq, interval, step, days):
            if _after(moment, until):
                return out
            if moment >= start and len(out) < limit:
                out.append(moment.isoformat())
    return out


_WEEKDAYS = {"MO": 0, "TU": 1, "WE": 2, "TH": 3, "FR": 4, "SA": 5, "SU": 6}


def _step(
    start: dt.date, freq: str, interval: int, step: int, days: list[int | None]
) -> list[dt.date]:
    """The occurrences of period ``step`` (empty when the date does not exist, e.g. 31 April)."""
    if freq == "DAILY":
        return [start + dt.timedelta(days=interval * step)]
    if freq == "WEEKLY":
        week = start + dt.timedelta(weeks=interval * step)
        wanted = sorted({d for d in days if d is not None}) or [start.weekday()]
        monday = week - dt.timedelta(days=week.weekday())
        return [monday + dt.timedelta(days=d) for d in wanted]
    months = interval * step * (12 if freq == "YEARLY" else 1)
    total = start.month - 1 + months
    year = start.year + total // 12
    if year > dt.MAXYEAR:
        return []
    try:
        return [start.replace(year=year, month=total % 12 + 1)]
    except ValueError:
        return []


def _after(moment: dt.date, until: Any) -> bool:
    if not isinstance(until, dt.date):
        return False
    try:
        if isinstance(moment, dt.datetime) and isinstance(until, dt.datetime):
            if (moment.tzinfo is None) != (until.tzinfo is None):
                return moment.replace(tzinfo=None) > until.replace(tzinfo=None)
            return moment > until
        return _day(moment) > _day(until)
    except (TypeError, ValueError):
        return False


def _day(value: dt.date) -> dt.date:
    return value.date() if isinstance(value, dt.datetime) else value
