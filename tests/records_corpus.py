"""Real export containers for the record lane's tests and bench, written with the same
libraries a user's tools write them with: ``mailbox``/``email`` for mail, ``icalendar``
for calendars, ``pysubs2`` for subtitles; JSON Lines with ``json``."""

from __future__ import annotations

import email.message
import json
import mailbox
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


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


def _subtitles(texts: list[str]) -> Any:
    """Cue i (from 1) at 2·i s for 1.5 s, made with pysubs2 (the library gno parses with)."""
    import pysubs2

    subs = pysubs2.SSAFile()
    for i, text in enumerate(texts, start=1):
        subs.append(pysubs2.SSAEvent(start=i * 2000, end=i * 2000 + 1500, text=text))
    return subs


def write_srt(path: Path, texts: list[str]) -> Path:
    _subtitles(texts).save(str(path), format_="srt")
    return path


def write_vtt(path: Path, texts: list[str]) -> Path:
    """A WebVTT file by pysubs2, with a NOTE block after the signature (which gno skips)."""
    text = _subtitles(texts).to_string("vtt")
    head, _, rest = text.partition("\n\n")
    path.write_text(f"{head}\n\nNOTE written by the tests\n\n{rest}", encoding="utf-8")
    return path


def start(days: int = 0) -> datetime:
    return datetime(2026, 12, 1, 9, 0, tzinfo=UTC) + timedelta(days=days)
