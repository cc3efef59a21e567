"""Issue 17's bad-input list, the cases tests/services/test_records.py does not already
cover (truncated mbox, bad mail and calendar dates, thousands of recurrences with the
64-anchor cap, binary junk in .mbox/.ics/.vtt/.eml/.jsonl, a deeply nested .jsonl line and
MIME message are there): each is an ingest error with its reason, nothing else is lost and
the sync finishes. Real files, a real index."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pytest

from gno.adapters.records.chat import message_time
from tests.conftest import search, sync
from tests.records_corpus import write_jsonl

KEEP = {"keep.md": "# Keep\n\nkeepword\n"}


def errors_of(result: Any) -> dict[str, tuple[str, str]]:
    return {e.relPath: (e.code, e.message) for c in result.collections for e in c.errors}


def test_deeply_nested_json_export_is_an_error_not_a_skip(make_app):
    app, root = make_app(KEEP)
    depth = 200_000
    (root / "deep.json").write_text('{"messages": [' + "[" * depth + "]" * depth + "]}")
    (root / "package.json").write_text('{"name": "x", "version": "1.0.0"}\n')
    result = sync(app)
    errors = errors_of(result)
    assert set(errors) == {"deep.json"}  # package.json is still no chat and no error
    code, text = errors["deep.json"]
    assert code == "CORRUPT" and "nested too deeply" in text
    assert search(app, "keepword").results


def test_truncated_json_export_keeps_its_records_and_says_why(make_app):
    app, root = make_app(KEEP)
    export = root / "export.json"
    messages = [
        {"id": n, "sender": "cy", "text": f"Lunch at the iguana cafe {n}"} for n in range(3)
    ]
    export.write_text(json.dumps({"messages": messages}))
    sync(app)
    assert len(search(app, "iguana", limit=10).results) == 3
    data = export.read_bytes()
    export.write_bytes(data[: len(data) // 2])  # cut mid-way: not JSON any more
    result = sync(app)
    code, text = errors_of(result)["export.json"]
    assert code == "CORRUPT" and "records are kept" in text
    assert len(search(app, "iguana", limit=10).results) == 3  # nothing lost
    assert errors_of(sync(app)) == {}  # reported once; the unchanged file costs a stat
    assert len(search(app, "iguana", limit=10).results) == 3


@pytest.mark.parametrize(
    ("name", "error"),
    [("junk.srt", True), ("junk.json", False)],  # a .json that is no chat is not a container
)
def test_binary_junk_in_the_other_record_extensions(make_app, name, error):
    app, root = make_app(KEEP)
    (root / name).write_bytes(hashlib.sha512(name.encode()).digest() * 2000 + b"\0\xff")
    result = sync(app)
    assert (name in errors_of(result)) is error
    assert search(app, "keepword").results


def test_invalid_chat_times_are_reported_and_the_messages_kept(make_app):
    app, root = make_app(KEEP)
    write_jsonl(
        root / "chat.jsonl",
        [
            {
                "id": 1,
                "author": "ana",
                "timestamp": "2026-12-01T10:00:00+01:00",
                "text": "good wombat",
            },
            {"id": 2, "author": "ana", "timestamp": "31 Foo 2026 99:99", "text": "odd wombat"},
            {"id": 3, "author": "ben", "ts": 1_764_583_200_000, "text": "epoch wombat"},
            {"id": 4, "author": "ben", "time": {"nested": True}, "text": "object wombat"},
        ],
    )
    result = sync(app)
    code, text = errors_of(result)["chat.jsonl"]
    assert code == "CORRUPT" and "lines:2-2: Invalid message time" in text
    assert "lines:4-4: Invalid message time" in text and "nothing removed" in text
    hits = search(app, "wombat", limit=10).results
    assert len(hits) == 4  # every message kept
    dates = {h.record.sourceLocator: h.record.dateFields for h in hits if h.record is not None}
    assert dates["lines:1-1"] == {"timestamp": "2026-12-01T09:00:00.000Z"}
    assert dates["lines:3-3"] == {"timestamp": "2025-12-01T10:00:00.000Z"}
    assert not dates["lines:2-2"] and not dates["lines:4-4"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-12-01", "2026-12-01T00:00:00.000Z"),
        (1_764_583_200, "2025-12-01T10:00:00.000Z"),
        ("1764583200", "2025-12-01T10:00:00.000Z"),
        (True, None),
        (-5, None),
        (float("inf"), None),
        (10**30, None),
        ("yesterday", None),
        ("9" * 40, None),
        ("²", None),  # str.isdigit() passed it, int() refused it: no record was imported
        ("١٧٦٤٥٨٣٢٠٠", None),  # Arabic-Indic digits: no time a chat export writes
        pytest.param(10**400, None, id="400-digit"),  # OverflowError stopped the sync
        ("0001-01-01T00:00:00+01:00", "0001-01-01T00:00:00.000Z"),  # before year 1 in UTC
        ("9999-12-31T23:59:59-01:00", "9999-12-31T23:59:59.999Z"),  # after 9999 in UTC
    ],
)
def test_message_time(value: Any, expected: str | None) -> None:
    assert message_time(value) == expected


@pytest.mark.parametrize("name", ["huge.mbox", "huge.ics", "huge.vtt", "huge.jsonl"])
def test_a_container_over_100_mib_is_too_large_and_never_read(make_app, name):
    """A sparse file one byte over the 100 MiB container cap (no disk space used): one
    TOO_LARGE ingest error from its stat alone, nothing read, the sync goes on."""
    app, root = make_app(KEEP)
    with open(root / name, "wb") as huge:
        huge.truncate(100 * 1024 * 1024 + 1)
    result = sync(app)
    assert errors_of(result)[name][0] == "TOO_LARGE"
    entry = next(f for f in result.collections[0].files or [] if f.relPath == name)
    assert entry.recordImport is not None and entry.recordImport.sourceBytesRead == 0
    assert search(app, "keepword").results


def test_chat_and_note_times_past_the_calendar_lose_nothing(make_app):
    """A 400-digit Unix time, or an offset that carries a time past year 9999, raised
    OverflowError: the chat stopped the whole sync ("Internal error"), the note became a
    CONVERSION_FAILED and was not indexed. Now the message is kept without a date, and the
    edge times are clamped to the ends of the calendar."""
    app, root = make_app(KEEP)
    write_jsonl(
        root / "chat.jsonl",
        [
            {"id": 1, "text": "huge ocelot", "ts": 10**400},
            {"id": 2, "text": "edge ocelot", "time": "9999-12-31T23:59:59-01:00"},
        ],
    )
    (root / "edge.md").write_text("---\ndate: 0001-01-01T00:00:00+01:00\n---\nedgenoteword\n")
    result = sync(app)
    code, text = errors_of(result)["chat.jsonl"]
    assert code == "CORRUPT" and "lines:1-1: Invalid message time" in text
    assert set(errors_of(result)) == {"chat.jsonl"}
    assert len(search(app, "ocelot", limit=10).results) == 2
    assert search(app, "edgenoteword").results
    assert search(app, "keepword").results


def test_a_record_at_the_length_cap_is_kept_cut_not_refused(make_app):
    """An adapter cuts a body to 2,000,000 characters; the Markdown around it (title,
    header lines, escapes) then passed the same cap and the whole record was refused, so a
    long message lost its every word. It is kept, cut to fit, and the cut is reported."""
    app, root = make_app(KEEP)
    text = "okapi memo\n" + "# not a heading\n" * 140_000  # each line gains an escape
    write_jsonl(root / "chat.jsonl", [{"id": 1, "sender": "cy", "text": text}])
    result = sync(app)
    hits = search(app, "okapi").results
    assert [h.uri.startswith("gno://notes/.gno/records/") for h in hits] == [True]
    code, message = errors_of(result)["chat.jsonl"]
    assert "Record cut at 2,000,000 characters" in message, (code, message)
    stored = (
        app.store()
        .conn.execute(
            "SELECT max(length(markdown)) FROM content WHERE markdown LIKE '%okapi memo%'"
        )
        .fetchone()[0]
    )
    assert 1_900_000 < stored <= 2_000_000


def test_an_integer_past_pythons_digit_limit_loses_no_message(make_app):
    """``json.loads`` refuses an integer of more than 4,300 digits (ValueError): one such
    number dropped a whole ``.json`` export, silently, as "not a chat", and made a
    ``.jsonl`` message a "not JSON" row. The number is kept as its digits; a time made of
    it is reported as an invalid time, the message kept."""
    app, root = make_app(KEEP)
    huge = "9" * 100_000
    messages = [
        f'{{"id": {huge}, "sender": "cy", "text": "tapir one"}}',
        f'{{"id": 2, "sender": "cy", "text": "tapir two", "ts": {huge}}}',
    ]
    (root / "export.json").write_text('{"messages": [' + ", ".join(messages) + "]}")
    (root / "chat.jsonl").write_text(
        f'{{"id": {huge}, "text": "okapi one"}}\n{{"id": 2, "text": "okapi two", "ts": {huge}}}\n'
    )
    result = sync(app)
    assert len(search(app, "tapir", limit=10).results) == 2
    assert len(search(app, "okapi", limit=10).results) == 2
    errors = errors_of(result)
    assert set(errors) == {"export.json", "chat.jsonl"}
    code, text = errors["export.json"]
    assert code == "CORRUPT" and "message:2: Invalid message time" in text
    assert "lines:2-2: Invalid message time" in errors["chat.jsonl"][1]


def test_a_mail_year_written_with_four_digits_is_kept_as_written(make_app):
    """The standard library reads every year under 100 as two-digit, so "01 Jan 0001" was
    dated 2001 (found by a 2001 filter, lost to one before year 1000). A zero-padded year
    is kept; year 0, on no calendar, is an invalid date: the message kept without one."""
    from tests.records_corpus import message, write_mbox

    app, root = make_app(KEEP)
    dates = {
        1: "Mon, 01 Jan 0001 00:00:00 +0100",  # before year 1 in UTC: the calendar's start
        2: "Sat, 02 Mar 0050 10:00:00 +0000",
        3: "Sat, 01 Jan 0000 10:00:00 +0000",
        4: "Mon, 01 Jan 01 10:00:00 +0000",  # two digits: RFC 5322's 2001
    }
    # The email package rewrites a Date it is given ("0001" to "2001"): the header goes in
    # as bytes, as another program's mailbox holds it.
    box = write_mbox(
        root / "old.mbox",
        [
            message(n, f"Old {n}", f"papyrus scroll {n}", date=f"Tue, 0{n} Dec 2026 10:00:00 +0000")
            for n in dates
        ],
    )
    data = box.read_bytes()
    for n, date in dates.items():
        data = re.sub(rf"Date: \w+, 0{n} Dec 2026 [^\n]*".encode(), f"Date: {date}".encode(), data)
    box.write_bytes(data)
    result = sync(app)
    code, text = errors_of(result)["old.mbox"]
    assert code == "CORRUPT" and "Invalid Date header 'Sat, 01 Jan 0000" in text
    assert "0001" not in text and "0050" not in text
    assert len(search(app, "papyrus", limit=10).results) == 4  # every message kept

    def subjects(**window: str) -> list[str]:
        hits = search(app, "papyrus", limit=10, **window).results
        return sorted(h.title or "" for h in hits)

    assert subjects(until="1000-01-01") == ["Old 1", "Old 2"]
    assert subjects(since="0050-03-01", until="0050-03-03") == ["Old 2"]
    assert subjects(since="2000-06-01", until="2002-01-01") == ["Old 4"]
