"""Mail parsing stays bounded on hostile messages (spec/records.md "Bounds"): encoded-word
headers, charsets that refuse to decode, and an mbox whose ``From `` lines never split it.
Each was measured before the fix; the fixtures are built here, small but past the point
where the old cost showed."""

from __future__ import annotations

import email
import io
import time

import pytest

from gno.adapters.records import mail
from gno.core.records import Malformed, Record


def test_a_header_of_many_encoded_words_is_decoded_from_its_start() -> None:
    # decode_header is quadratic in encoded words: 100,000 of them took about 16 s
    msg = email.message_from_bytes(b"Subject: " + b"=?utf-8?q?abc?= " * 100_000 + b"\n\nx\n")
    started = time.monotonic()
    subject = mail.header(msg, "Subject")
    assert time.monotonic() - started < 2
    assert subject.startswith("abcabc") and len(subject) == 2048


@pytest.mark.parametrize("charset", ["idna", "undefined", "x-bogus", "zlib_codec"])
def test_a_charset_that_cannot_decode_falls_back_to_utf8(charset: str) -> None:
    raw = (
        f'From: a@b\nMessage-ID: <c@x>\nContent-Type: text/plain; charset="{charset}"\n\n'
        "body of the pangolin\n"
    ).encode()
    records = list(mail.read_eml(io.BytesIO(raw)))
    assert [type(r) for r in records] == [Record]  # idna, undefined: UnicodeError lost it
    assert isinstance(records[0], Record) and "pangolin" in records[0].body


def test_an_mbox_of_from_lines_without_blank_lines_is_scanned_once(monkeypatch) -> None:
    # Each block rescanned the whole message for a separator: quadratic in the message.
    monkeypatch.setattr(mail, "_BLOCK", 4096)
    data = b"From x\nSubject: s\n\n" + b"x\nFrom " * 200_000 + b"\n\nFrom y\nSubject: t\n\nz\n"
    started = time.monotonic()
    items = list(mail.read_mbox(io.BufferedReader(io.BytesIO(data))))
    assert time.monotonic() - started < 5
    assert [type(i) for i in items] == [Record, Record]
    assert items[1].locator == "message:2 lines:200007-200009"


def test_mime_nesting_times_lines_is_capped_per_message(monkeypatch) -> None:
    # The parser tests each line against every open boundary: 300 deep × 1M lines took 52 s.
    monkeypatch.setattr(mail, "MAX_BOUNDARY_CHECKS", 20_000)
    depth, lines = 50, 1000
    opened = b"".join(
        b'Content-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n' % (i, i) for i in range(depth)
    )
    closed = b"".join(b"\n--b%d--\n" % i for i in reversed(range(depth)))
    nested = b"Subject: deep\n" + opened + b"Content-Type: text/plain\n\n" + b"a\n" * lines + closed
    plain = b"Subject: plain\nMessage-ID: <p@x>\n\nthe tapir\n"
    box = b"From a\n" + nested + b"\nFrom b\n" + plain
    items = list(mail.read_mbox(io.BufferedReader(io.BytesIO(box))))
    assert isinstance(items[0], Malformed) and "boundary checks" in items[0].reason
    assert isinstance(items[1], Record) and "tapir" in items[1].body
