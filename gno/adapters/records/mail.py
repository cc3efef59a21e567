"""Mail records: one record per message of an ``.mbox`` mailbox or an ``.eml`` file.

The mailbox is streamed in 1 MiB blocks and split at ``From `` lines (mboxrd/mboxo: a
``From `` line after a blank line starts a message), so a 100 MiB mailbox is never held
whole: only one message at a time, and at most ``MAX_MESSAGE_BYTES`` of it. The standard
library's ``mailbox.mbox`` also scans the whole file into a table of contents but gives
no line numbers, which the locator needs; ``email`` parses each message (compat32 policy:
the modern one is several times slower and the headers are decoded here anyway).
HTML-only mail becomes inert text (``html_text``).
"""

from __future__ import annotations

import email
import email.errors
import email.header
import email.utils
import hashlib
import re
from collections.abc import Iterator
from datetime import datetime
from email.feedparser import (  # type: ignore[attr-defined]  # not in typeshed
    BufferedSubFile,
    BytesFeedParser,
)
from email.message import Message
from typing import Any, BinaryIO

from gno.adapters.records.html_text import html_to_text
from gno.core.records import MAX_FIELD_CHARS, MAX_RECORD_CHARS, Malformed, Record

ADAPTER_ID = "record/email"
ADAPTER_VERSION = "1.1.0"  # 1.1.0: a zero-padded year is kept as written
MAX_MESSAGE_BYTES = 32 * 1024 * 1024  # one message's raw bytes (attachments included)
MAX_LINE_BYTES = 1024 * 1024  # a longer "line" is read in pieces of this size
MAX_PARTS = 1000  # MIME parts looked at per message
MAX_HEADER_CHARS = 16 * 1024  # a header is decoded from its first 16 KiB
MAX_BOUNDARY_CHECKS = 20_000_000  # lines × open multipart boundaries, per message (~3 s)


class NotAMailbox(Exception):
    """The file does not start like an mbox (binary junk with a mail extension...)."""


def read_mbox(stream: BinaryIO) -> Iterator[Record | Malformed]:
    first = stream.readline(MAX_LINE_BYTES)
    if not first.startswith(b"From "):
        raise NotAMailbox("Not an mbox mailbox: it does not start with a 'From ' line")
    number, line_no = 1, 2  # the message's first line (after its "From " line)
    over, dropped = False, 0  # dropped: lines of an oversized message let go
    # buf[start:] is the message being read, buf[:scanned] holds no separator: each byte is
    # searched once and a block copied once (cutting and rescanning the buffer per message
    # was quadratic: 30 MB of "\nFrom " lines took 39 s, a few bytes a message far longer).
    buf, start, scanned = b"", 0, 0
    while True:
        block = stream.read(_BLOCK)
        buf, scanned, start = buf[start:] + block, max(0, scanned - start), 0
        while (cut := _separator(buf, start, scanned)) >= 0:
            raw = buf[start:cut]
            lines = raw.count(b"\n") + dropped
            yield from _message(raw, number, line_no, line_no + lines - 1, over, truncated=False)
            number, line_no, over, dropped = number + 1, line_no + lines + 1, False, 0
            newline = buf.find(b"\n", cut)  # the end of its "From " line
            start = scanned = newline + 1 if newline >= 0 else len(buf)
        scanned = max(start, len(buf) - _SEPARATOR_SPAN)  # one may span two blocks
        if len(buf) - start > MAX_MESSAGE_BYTES:  # one message larger than the cap: drop its bytes
            dropped += buf.count(b"\n", start, len(buf) - _SEPARATOR_SPAN)
            buf, start, scanned, over = buf[-_SEPARATOR_SPAN:], 0, 0, True
        if not block:
            break
    buf = buf[start:]
    lines = buf.count(b"\n") + (0 if buf.endswith(b"\n") else 1) + dropped
    truncated = bool(buf) and not buf.endswith(b"\n")
    yield from _message(buf, number, line_no, line_no + lines - 1, over, truncated=truncated)


_BLOCK = 1024 * 1024
_SEPARATOR_SPAN = 8  # "\n\r\nFrom " and less: the bytes a separator test looks at


def _separator(buf: bytes, floor: int, at: int) -> int:
    """Offset of the next "From " line at or after ``at`` that follows a blank line inside
    the message that starts at ``floor`` (-1: none yet)."""
    while (found := buf.find(b"\nFrom ", at)) >= 0:
        if (found - 1 >= floor and buf[found - 1] == 0x0A) or (
            found - 2 >= floor and buf[found - 2 : found] == b"\n\r"
        ):
            return found + 1
        at = found + 1
    return -1


def read_eml(stream: BinaryIO) -> Iterator[Record | Malformed]:
    data = stream.read(MAX_MESSAGE_BYTES + 1)
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    yield from _message(data, 1, 1, lines, len(data) > MAX_MESSAGE_BYTES, truncated=False)


def _message(
    raw: bytes, number: int, first: int, last: int, over: bool, *, truncated: bool
) -> Iterator[Record | Malformed]:
    if raw.endswith(b"\n\n") or raw.endswith(b"\r\n\r\n"):
        last -= 1  # the blank line that separates messages is not the message's
    locator = f"message:{number} lines:{first}-{max(first, last)}"
    if over:
        yield Malformed(locator, f"Message is larger than {MAX_MESSAGE_BYTES // 2**20} MiB")
        return
    raw = raw.replace(b"\n>From ", b"\nFrom ")  # mboxrd/mboxo quoting of body lines
    if raw.startswith(b">From "):
        raw = raw[1:]
    if not raw.strip():
        yield Malformed(locator, "Empty message")
        return
    if b"\n\n" not in raw and b"\r\n\r\n" not in raw:
        yield Malformed(locator, "Message is cut inside its headers (no blank line after them)")
        return
    if truncated:
        yield Malformed(locator, "Mailbox ends in the middle of this message (truncated file)")
        return
    try:  # one message the parser chokes on (nesting, broken MIME) is one malformed row
        msg = _parse(raw)
        parsed = list(_record(msg, raw, number, first, last, locator))
    except TooManyBoundaryChecks:
        yield Malformed(
            locator,
            f"MIME parts nested too deeply for the message's length (more than "
            f"{MAX_BOUNDARY_CHECKS:,} boundary checks)",
        )
        return
    except (RecursionError, ValueError, LookupError, TypeError, IndexError, AttributeError) as exc:
        yield Malformed(locator, f"Unreadable message ({type(exc).__name__})")
        return
    yield from parsed


class TooManyBoundaryChecks(Exception):
    """A message whose MIME nesting times its line count exceeds ``MAX_BOUNDARY_CHECKS``."""


class _CountedLines(BufferedSubFile):
    """The standard parser's line source, counting its boundary checks.

    The parser tests every line against every open multipart boundary (RFC 2046 lets an
    outer boundary end inner parts), so a message nested 300 deep costs 300 tests a line:
    2 MB took 52 s, 32 MiB would take a quarter of an hour, in one parse the import's
    deadline cannot interrupt. Counting is exact and stops the parse at the cap."""

    checks = 0

    def readline(self) -> str | object:
        self.checks += len(self._eofstack)
        if self.checks > MAX_BOUNDARY_CHECKS:
            raise TooManyBoundaryChecks
        return super().readline()


def _parse(raw: bytes) -> Message:
    """``email.message_from_bytes`` (compat32) with the boundary checks counted."""
    parser = BytesFeedParser()
    parser._input = _CountedLines()  # type: ignore[attr-defined]  # read by its parse loop
    parser.feed(raw)
    return parser.close()


# A year token of three or more digits whose value is under 100 ("0001"): written in full,
# yet the standard library reads any year under 100 as two-digit (RFC 5322's obsolete
# form), so "01 Jan 0001" was dated 2001. Days have at most two digits, times colons and
# zones a sign, so such a token can only be the year.
_PADDED_YEAR = re.compile(r"(?<![\w:+-])0[0-9]{2,}(?![\w:])")


def mail_date(text: str) -> datetime:
    """A Date header's moment; a zero-padded year kept as written. ValueError (and the
    other errors ``parsedate_to_datetime`` raises) when it is no date or out of range:
    year 0 is not on the calendar, so "01 Jan 0000" is invalid, not 2000."""
    moment = email.utils.parsedate_to_datetime(text)
    padded = [int(t) for t in _PADDED_YEAR.findall(text) if int(t) < 100]
    if padded:
        moment = moment.replace(year=padded[0])  # ValueError for year 0
    return moment


def _record(
    msg: Message, raw: bytes, number: int, first: int, last: int, locator: str
) -> Iterator[Record | Malformed]:
    subject = header(msg, "Subject")
    sender = header(msg, "From")
    to = header(msg, "To")
    cc = header(msg, "Cc")
    message_id = _angle(header(msg, "Message-ID"))
    in_reply_to = _angle(header(msg, "In-Reply-To"))
    references = [_angle(r) for r in header(msg, "References").split() if r.strip()][:256]
    date_text = header(msg, "Date")
    meta: dict[str, Any] = {}
    date_iso = None
    if date_text:
        try:
            date_iso = mail_date(date_text).isoformat()
        except (TypeError, ValueError, IndexError, OverflowError):
            yield Malformed(locator, f"Invalid Date header {date_text[:80]!r}; kept without a date")
    if date_iso:
        meta["dateFields"] = {"date": date_iso}
    body, attachments = _body(msg)
    if len(body) > MAX_RECORD_CHARS:
        body = body[:MAX_RECORD_CHARS]
        yield Malformed(locator, "Body cut at 2,000,000 characters")
    participants = [addr for _, addr in email.utils.getaddresses([sender, to, cc]) if addr]
    meta.update(
        author=sender,
        participants=participants,
        messageId=message_id,
        inReplyTo=in_reply_to,
        references=references,
        threadId=(references[0] if references else in_reply_to) or message_id,
        attachments=attachments,
    )
    stable = message_id.lower() if message_id else "sha256:" + hashlib.sha256(raw).hexdigest()
    anchors: list[tuple[str, str, str | None]] = [("message", message_id or str(number), None)]
    anchors.append(("line", str(first), str(last)))
    if date_iso:
        anchors.append(("timestamp", date_iso, None))
    yield Record(
        stable_id=stable,
        title=subject or "(no subject)",
        headers=(("From", sender), ("To", to), ("Cc", cc), ("Date", date_iso or date_text)),
        body=body,
        locator=locator,
        anchors=tuple(anchors),
        meta=meta,
    )


def header(msg: Message, name: str) -> str:
    """A header decoded (RFC 2047 words) into one line; undecodable words are replaced."""
    value = msg.get(name)
    if value is None:
        return ""
    # Only the start is read: the field keeps MAX_FIELD_CHARS, and the standard library's
    # decode_header is quadratic in encoded words (200,000 of them took over 60 s).
    value = str(value)[:MAX_HEADER_CHARS]
    if "=?" not in value:  # no encoded word: nothing to decode (the common case)
        return " ".join(value.split())[:MAX_FIELD_CHARS]
    try:
        text = str(email.header.make_header(email.header.decode_header(value)))
    except (LookupError, ValueError, UnicodeError, email.errors.HeaderParseError):
        text = str(value)
    return " ".join(text.split())[:MAX_FIELD_CHARS]


def _angle(text: str) -> str:
    return text.strip().strip("<>").strip()


def _body(msg: Message) -> tuple[str, list[dict[str, Any]]]:
    """The first text/plain part (else the first text/html one, made inert) and the attachments."""
    plain: str | None = None
    html: str | None = None
    attachments: list[dict[str, Any]] = []
    for count, part in enumerate(msg.walk()):
        if count >= MAX_PARTS:
            break
        if part.is_multipart():
            continue
        disposition = (part.get_content_disposition() or "").lower()
        filename = part.get_filename()
        ctype = part.get_content_type()
        if disposition == "attachment" or (filename and disposition != "inline"):
            payload = part.get_payload(decode=True)
            attachments.append(
                {
                    "name": (filename or "attachment")[:512],
                    "mime": ctype[:256],
                    "bytes": len(payload) if isinstance(payload, bytes) else 0,
                    "disposition": "attachment",
                }
            )
            continue
        if ctype == "text/plain" and plain is None:
            plain = _text(part)
        elif ctype == "text/html" and html is None:
            html = _text(part)
    if plain is not None and plain.strip():
        return plain, attachments
    if html is not None:
        return html_to_text(html), attachments
    return plain or "", attachments


def _text(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except (LookupError, UnicodeError):  # an unknown charset, or one that refuses "replace"
        return payload.decode("utf-8", errors="replace")
