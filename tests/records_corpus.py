"""Real export containers for the record lane's tests and bench, written with the same
libraries a user's tools write them with: ``mailbox``/``email`` for mail, ``icalendar``
for calendars; JSON Lines with ``json``; subtitles as their (line-based) formats say."""

from __future__ import annotations

import email.message
import json
import mailbox
from datetime import UTC, datetime, timedelta
from pathlib import Path


def message(
    number: int,
    subject: str,
    body: str,
    *,
    html: str | None = None,
    date: str = "Tue, 01 Dec 2026 10:00:00 +0000",
    message_id: str | None = None,
) -> email.message.EmailMessage:
    msg = email.message.EmailMessage()
    msg["From"] = f"Alice Example <alice{number}@example.org>"
    msg["To"] = "bob@example.org"
    msg["Subject"] = subject
    msg["Date"] = date
    msg["Message-ID"] = message_id or f"<msg{number}@example.org>"
    if html is None:
        msg.set_content(body)
    else:
        msg.set_content(html, subtype="html")
    return msg


def write_mbox(path: Path, messages: list[email.message.EmailMessage]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    box = mailbox.mbox(str(path))
    try:
        for msg in messages:
            box.add(msg)
        box.flush()
    finally:
        box.close()
    return path


def write_calendar(path: Path, events: list[dict[str, object]]) -> Path:
    import icalendar

    cal = icalendar.Calendar()
    cal.add("prodid", "-//gno tests//")
    cal.add("version", "2.0")
    for spec in events:
        event = icalendar.Event()
        for name, value in spec.items():
            event.add(name, value)
        cal.add_component(event)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(cal.to_ical())
    return path


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _clock(seconds: float, sep: str) -> str:
    whole = int(seconds)
    millis = round((seconds - whole) * 1000)
    return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}{sep}{millis:03d}"


def write_srt(path: Path, texts: list[str]) -> Path:
    blocks = [
        f"{i}\n{_clock(i * 2.0, ',')} --> {_clock(i * 2.0 + 1.5, ',')}\n{text}\n"
        for i, text in enumerate(texts, start=1)
    ]
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path


def write_vtt(path: Path, texts: list[str]) -> Path:
    blocks = ["WEBVTT\n", "NOTE written by the tests\n"]
    blocks += [
        f"c{i}\n{_clock(i * 2.0, '.')} --> {_clock(i * 2.0 + 1.5, '.')} align:start\n{text}\n"
        for i, text in enumerate(texts, start=1)
    ]
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path


def start(days: int = 0) -> datetime:
    return datetime(2026, 12, 1, 9, 0, tzinfo=UTC) + timedelta(days=days)
