"""The record lane (issue 17 item 1, engine.md §2.7, spec/records.md) on real containers.

Mailboxes, calendars, chat exports and transcripts are written by the tests with the
libraries that write them in the wild (``tests/records_corpus.py``); each test syncs a
collection holding them and checks what search, get and the index say. Bad containers
(truncated, junk, invalid dates, thousands of recurrences, deep JSON) must each be an
ingest error that loses nothing else; anything that could hang runs in a child process
bounded by a timeout.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest
from gno_contracts.models.get_input import GetInput

from gno.core.records import container_dir, record_key
from gno.services.documents import get
from tests.conftest import search, sync
from tests.records_corpus import (
    message,
    start,
    write_calendar,
    write_jsonl,
    write_mbox,
    write_srt,
    write_vtt,
)

GNO = [sys.executable, "-m", "gno.cli.entry"]


def errors_of(result) -> dict[str, tuple[str, str]]:  # type: ignore[no-untyped-def]
    return {e.relPath: (e.code, e.message) for c in result.collections for e in c.errors}


def active(app) -> set[str]:  # type: ignore[no-untyped-def]
    return {d.rel_path for d in app.store().active_paths("notes")}


def records_of(app, container: str) -> set[str]:  # type: ignore[no-untyped-def]
    return {p for p in active(app) if p.startswith(container_dir(container))}


def three_messages() -> list:  # type: ignore[type-arg]
    return [
        message(1, "Budget review", "The quarterly budget for aardvark travel."),
        message(2, "Offsite plan", "Booking the offsite in the mountains, bring boots."),
        message(3, "Hiring update", "Two candidates for the zeppelin team."),
    ]


def test_mailbox_messages_are_records_pointing_into_the_container(make_app):
    app, root = make_app({"a.md": "# A\n\nalpha\n"})
    write_mbox(root / "mail/inbox.mbox", three_messages())
    result = sync(app)
    assert errors_of(result) == {}
    assert len(records_of(app, "mail/inbox.mbox")) == 3
    hit = search(app, "zeppelin").results[0]
    assert hit.title == "Hiring update"
    assert hit.source.relPath == "mail/inbox.mbox"  # the container, not the virtual path
    assert hit.source.absPath == str(root / "mail/inbox.mbox")
    record = hit.record
    assert record is not None
    assert record.recordKey == record_key("record/email", "msg3@example.org")
    assert record.sourceLocator.startswith("message:3 lines:")
    assert record.messageId == "msg3@example.org"
    assert record.adapter.id == "record/email"
    assert {a.kind.value for a in record.anchors} >= {"message", "line", "timestamp"}
    # the locator's lines are the message's lines in the mailbox file
    first, last = (int(n) for n in record.sourceLocator.split("lines:")[1].split("-"))
    lines = (root / "mail/inbox.mbox").read_text().split("\n")[first - 1 : last]
    assert any("zeppelin" in line for line in lines) and lines[0].startswith("From:")
    doc = get(app, GetInput(ref=hit.uri))
    assert doc.record is not None and doc.record.recordKey == record.recordKey
    assert doc.source.relPath == "mail/inbox.mbox"
    assert doc.capabilities.mode.value == "read_only"
    assert "zeppelin" in doc.content
    shown = subprocess.run(
        [*GNO, "get", hit.uri], capture_output=True, text=True, timeout=60, env=os.environ.copy()
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("Record: mail/inbox.mbox @ message:3 lines:")


def test_html_mail_becomes_inert_text(make_app):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    html = (
        "<html><head><style>p{}</style><script>stealcookies()</script></head><body>"
        "<h1>Launch</h1><p>See <a href='https://evil.example/x'>[[Secret]] page</a> "
        "for the wombat plan</p><img src=x onerror=alert(1)></body></html>"
    )
    write_mbox(root / "news.mbox", [message(1, "# Not a heading", "", html=html)])
    assert errors_of(sync(app)) == {}
    hit = search(app, "wombat").results[0]
    doc = get(app, GetInput(ref=hit.uri, lineNumbers=False))
    assert "stealcookies" not in doc.content and "<" not in doc.content.replace("\\<", "")
    assert "evil.example" not in doc.content
    assert doc.title == "# Not a heading"  # the subject, verbatim, as the title
    store = app.store()
    row = store.document_by_path("notes", search(app, "wombat").results[0].uri.split("notes/")[1])
    assert row is not None
    links = store.conn.execute(
        "SELECT count(*) FROM doc_links WHERE source_doc_id = ?", (row.id,)
    ).fetchone()[0]
    assert links == 0  # [[Secret]] stayed text


def test_unchanged_container_is_not_read_again(make_app):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    path = write_mbox(root / "inbox.mbox", three_messages())
    sync(app)
    st = path.stat()
    data = path.read_bytes()
    path.write_bytes(data.replace(b"aardvark", b"platypus"))  # same size, same inode
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    again = sync(app).collections[0]
    assert (again.filesUnchanged, again.filesUpdated, again.filesAdded) == (2, 0, 0)
    assert search(app, "aardvark").results and not search(app, "platypus").results
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert sync(app).collections[0].filesUpdated == 1
    assert search(app, "platypus").results and not search(app, "aardvark").results


def test_complete_snapshot_inactivates_records_it_no_longer_holds(make_app):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    path = write_mbox(root / "inbox.mbox", three_messages())
    sync(app)
    write_mbox(path, three_messages()[:2])
    result = sync(app).collections[0]
    assert result.filesMarkedInactive == 1 and result.errors == []
    assert len(records_of(app, "inbox.mbox")) == 2
    assert not search(app, "zeppelin").results
    write_mbox(path, three_messages())  # back: the same record key comes back
    sync(app)
    assert search(app, "zeppelin").results


def test_truncated_mailbox_is_partial_and_deletes_nothing(make_app):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    path = write_mbox(root / "inbox.mbox", three_messages())
    sync(app)
    data = path.read_bytes()
    cut = data.index(b"zeppelin") + 3
    path.write_bytes(data[:cut])  # the last message ends mid-word, no final newline
    result = sync(app)
    code, text = errors_of(result)["inbox.mbox"]
    assert code == "CORRUPT" and "truncated" in text and "nothing removed" in text
    assert len(records_of(app, "inbox.mbox")) == 3  # partial: the third record stays
    assert search(app, "keepword").results and search(app, "aardvark").results
    errors = (
        app.store()
        .conn.execute("SELECT code, message FROM ingest_errors WHERE rel_path = 'inbox.mbox'")
        .fetchall()
    )
    assert any("truncated" in m for _, m in errors)


def test_vanished_container_takes_its_records_out_of_search(make_app):
    app, root = make_app({"a.md": "# A\n\nalpha\n"})
    path = write_mbox(root / "inbox.mbox", three_messages())
    sync(app)
    path.unlink()
    result = sync(app).collections[0]
    assert result.filesMarkedInactive == 3
    assert records_of(app, "inbox.mbox") == set() and not search(app, "aardvark").results
    assert app.store().record_containers("notes") == {}


def test_eml_and_invalid_date_is_reported_but_the_message_kept(make_app):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    msg = message(7, "Odd date", "The capybara memo.").as_bytes()
    date_line = msg[msg.index(b"Date:") :].split(b"\n", 1)[0]
    (root / "memo.eml").write_bytes(msg.replace(date_line, b"Date: 31 Foo 2026 99:99:99"))
    result = sync(app)
    code, text = errors_of(result)["memo.eml"]
    assert code == "CORRUPT" and "Invalid Date header" in text
    assert search(app, "capybara").results  # the message itself is indexed


def test_calendar_events_recurrences_capped_and_bad_dates_reported(make_app):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    path = write_calendar(
        root / "work.ics",
        [
            {
                "uid": "standup-1",
                "summary": "Daily standup",
                "description": "Walk the kanban board",
                "dtstart": start(),
                "dtend": start() + (start(1) - start()) / 48,
                "rrule": {"freq": "daily", "count": 5000},
            },
            {
                "uid": "retro-1",
                "summary": "Retro",
                "description": "Sailboat retro",
                "dtstart": start(3),
            },
        ],
    )
    text = path.read_bytes().replace(b"END:VCALENDAR", b"")
    text += b"BEGIN:VEVENT\r\nUID:broken-1\r\nSUMMARY:Broken\r\nDTSTART:2026XX01T100000Z\r\n"
    text += b"DESCRIPTION:brokenword\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    path.write_bytes(text)
    result = sync(app)
    code, message_text = errors_of(result)["work.ics"]
    assert code == "CORRUPT" and "DTSTART" in message_text
    hit = search(app, "kanban").results[0]
    assert hit.record is not None and hit.record.eventId == "standup-1"
    events = [a for a in hit.record.anchors if a.kind.value == "event"]
    assert len(events) == 1 + 64  # the event itself, then at most 64 occurrences
    assert events[1].value.startswith("2026-12-01T09:00") and events[2].value.startswith(
        "2026-12-02"
    )
    assert search(app, "sailboat").results
    assert not search(app, "brokenword").results


def test_thousands_of_recurrences_and_events_do_not_hang(make_app):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    events = [
        {
            "uid": f"e{i}",
            "summary": f"Event {i}",
            "dtstart": start(i % 30),
            "rrule": {"freq": "yearly", "bymonth": 2, "bymonthday": 30},  # never happens
        }
        for i in range(300)
    ]
    events.append(
        {"uid": "sec", "summary": "Secondly", "dtstart": start(), "rrule": {"freq": "secondly"}}
    )
    write_calendar(root / "many.ics", events)
    done = subprocess.run(
        [*GNO, "update", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["collections"][0]["errors"] == []
    assert len(records_of(app, "many.ics")) == 301


def test_chat_exports_jsonl_and_json(make_app):
    app, root = make_app({"package.json": '{"name": "x", "version": "1.0.0"}\n'})
    write_jsonl(
        root / "chat.jsonl",
        [
            {
                "id": 1,
                "author": "ana",
                "timestamp": "2026-12-01T10:00:00Z",
                "text": "Ship the narwhal build",
            },
            {
                "id": 2,
                "author": {"name": "ben"},
                "content": [{"type": "text", "text": "Narwhal ok"}],
            },
            "{not json",
            "[" * 100_000 + "]" * 100_000,
            {"id": 3, "author": "ana", "text": "Then the ocelot release"},
        ],
    )
    (root / "export.json").write_text(
        json.dumps({"messages": [{"id": "a", "sender": "cy", "text": "Lunch at the iguana cafe"}]})
    )
    result = sync(app)
    errors = errors_of(result)
    assert set(errors) == {"chat.jsonl"}
    code, text = errors["chat.jsonl"]
    assert code == "CORRUPT" and "lines:3-3" in text and "lines:4-4" in text
    assert "package.json" not in errors and not search(app, "version").results
    hit = search(app, "ocelot").results[0]
    assert hit.record is not None and hit.record.sourceLocator == "lines:5-5"
    assert hit.record.author == "ana"
    assert len(search(app, "narwhal").results) == 2
    assert search(app, "iguana").results[0].source.relPath == "export.json"


def test_transcripts_vtt_and_srt(make_app):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    texts = [f"line {i} about nothing" for i in range(1, 90)]
    texts[60] = "the quokka appears here"
    write_vtt(root / "talk.vtt", texts)
    write_srt(root / "film.srt", ["hello there", "a lemur speaks"])
    bad = root / "bad.srt"
    bad.write_text(
        "1\n00:00:01,000 --> 00:00:02,000\nfine cue\n\n2\n00:99:01,000 --> 00:00:02,000\nbad\n"
    )
    result = sync(app)
    assert set(errors_of(result)) == {"bad.srt"}
    hit = search(app, "quokka").results[0]
    assert hit.record is not None and hit.record.sourceLocator == "cues:41-80"
    cue = next(a for a in hit.record.anchors if a.kind.value == "cue")
    assert (cue.value, cue.endValue) == ("41", "80")  # pysubs2 numbers the cues
    stamp = next(a for a in hit.record.anchors if a.kind.value == "timestamp")
    assert stamp.value == "00:01:22.000"
    assert search(app, "lemur").results[0].source.relPath == "film.srt"


@pytest.mark.parametrize("name", ["junk.mbox", "junk.ics", "junk.vtt", "junk.eml", "junk.jsonl"])
def test_binary_junk_with_a_record_extension_is_an_error(make_app, name):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    (root / name).write_bytes(hashlib.sha512(name.encode()).digest() * 2000 + b"\0\xff")
    done = subprocess.run(
        [*GNO, "update", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr
    errors = json.loads(done.stdout)["collections"][0]["errors"]
    assert [e["relPath"] for e in errors] == [name]
    assert search(app, "keepword").results


def test_record_cap_stops_the_import_and_keeps_what_was_there(make_app, monkeypatch):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    path = write_mbox(root / "inbox.mbox", three_messages())
    sync(app)
    monkeypatch.setattr("gno.services.record_import.MAX_SNAPSHOT_RECORDS", 1)
    write_mbox(path, [*three_messages(), message(4, "Fourth", "The tapir note.")])
    code, text = errors_of(sync(app))["inbox.mbox"]
    assert code == "TOO_LARGE" and "More than 1 records" in text
    assert len(records_of(app, "inbox.mbox")) == 3  # partial: nothing removed
    assert not search(app, "tapir").results


def test_deadline_stops_the_import_as_an_error(make_app, monkeypatch):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    write_mbox(root / "inbox.mbox", three_messages())
    monkeypatch.setattr("gno.services.sync_records.DEADLINE_SECONDS", 0.0)
    code, text = errors_of(sync(app))["inbox.mbox"]
    assert code == "TIMEOUT" and "stopped after" in text
    assert len(records_of(app, "inbox.mbox")) < 3  # the import really stopped early
    assert search(app, "keepword").results
    monkeypatch.setattr("gno.services.sync_records.DEADLINE_SECONDS", 60.0)
    again = sync(app).collections[0]  # a deadline is retried even though nothing changed
    assert again.errors == [] and len(records_of(app, "inbox.mbox")) == 3


def test_records_come_back_after_collection_removed_cleaned_and_readded(make_app, tmp_path):
    """Removing a collection and `cleanup` delete its record rows; the container state
    left behind must not make the unchanged mailbox look already imported."""
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    write_mbox(root / "inbox.mbox", three_messages())
    sync(app)
    env = os.environ.copy()
    for args in (["collection", "remove", "notes"], ["update"], ["cleanup"]):
        done = subprocess.run([*GNO, *args], capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, (args, done.stderr)
    assert app.store().conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 0
    add = [*GNO, "collection", "add", str(root), "--name", "notes"]
    done = subprocess.run(add, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    sync(app)
    assert len(records_of(app, "inbox.mbox")) == 3 and search(app, "zeppelin").results


def test_deeply_nested_mime_message_is_one_malformed_row(make_app):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    path = write_mbox(root / "inbox.mbox", three_messages())
    depth = 5000
    nested = "".join(
        f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(depth)
    )
    bomb = (
        "From bomb@example.org Tue Dec  1 10:00:00 2026\nFrom: bomb@example.org\n"
        "Subject: Nested\nMessage-ID: <bomb@example.org>\nMIME-Version: 1.0\n" + nested + "x\n"
    )
    with open(path, "a", encoding="utf-8") as box:
        box.write("\n" + bomb + "\n")
    done = subprocess.run(
        [*GNO, "update", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr
    errors = json.loads(done.stdout)["collections"][0]["errors"]
    assert [e["relPath"] for e in errors] == ["inbox.mbox"]
    assert "message:4" in errors[0]["message"]
    assert len(records_of(app, "inbox.mbox")) == 3 and search(app, "keepword").results
