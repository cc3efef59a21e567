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
from collections.abc import Iterator
from email.message import Message
from typing import Any, BinaryIO

from gno.adapters.records.html_text import html_to_text
from gno.core.records import MAX_FIELD_CHARS, MAX_RECORD_CHARS, Malformed, Record

ADAPTER_ID = "record/email"
ADAPTER_VERSION = "1.0.0"
MAX_MESSAGE_BYTES = 32 * 1024 * 1024  # one message's raw bytes (attachments included)
MAX_LINE_BYTES = 1024 * 1024  # a longer "line" is read in pieces of this size
MAX_PARTS = 1000  # MIME parts looked at per message


class NotAMailbox(Exception):
    """The file does not start like an mbox (binary junk with a mail extension...)."""


def read_mbox(stream: BinaryIO) -> Iterator[Record | Malformed]:
    first = stream.readline(MAX_LINE_BYTES)
    if not first.startswith(b"From "):
        raise NotAMailbox("Not an mbox mailbox: it does not start with a 'From ' line")
    number, line_no = 1, 2  # the message's first line (after its "From " line)
    buf, over, dropped = b"", False, 0  # dropped: lines of an oversized message let go
    while True:
        block = stream.read(_BLOCK)
        buf += block
        while (cut := _separator(buf)) >= 0:
            raw, buf = buf[:cut], buf[cut:]
            lines = raw.count(b"\n") + dropped
            yield from _message(raw, number, line_no, line_no + lines - 1, over, truncated=False)
            number, line_no, over, dropped = number + 1, line_no + lines + 1, False, 0
            buf = buf[buf.index(b"\n") + 1 :] if b"\n" in buf else b""  # its "From " line
        if len(buf) > MAX_MESSAGE_BYTES:  # one message larger than the cap: drop its bytes
            keep = buf[-8:]  # enough to see a separator that spans two blocks
            dropped += buf[:-8].count(b"\n")
            buf, over = keep, True
        if not block:
            break
    lines = buf.count(b"\n") + (0 if buf.endswith(b"\n") else 1) + dropped
    truncated = bool(buf) and not buf.endswith(b"\n")
    yield from _message(buf, number, line_no, line_no + lines - 1, over, truncated=truncated)


_BLOCK = 1024 * 1024


def _separator(buf: bytes) -> int:
    """Offset of the next "From " line that follows a blank line (-1: none yet)."""
    at = 0
    while (found := buf.find(b"\nFrom ", at)) >= 0:
        if buf[found - 1 : found] == b"\n" or buf[found - 2 : found] == b"\n\r":
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
        msg = email.message_from_bytes(raw)
        parsed = list(_record(msg, raw, number, first, last, locator))
    except (RecursionError, ValueError, LookupError, TypeError, IndexError, AttributeError) as exc:
        yield Malformed(locator, f"Unreadable message ({type(exc).__name__})")
        return
    yield from parsed


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
            date_iso = email.utils.parsedate_to_datetime(date_text).isoformat()
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
    if "=?" not in value:  # no encoded word: nothing to decode (the common case)
        return " ".join(str(value).split())[:MAX_FIELD_CHARS]
    try:
        text = str(email.header.make_header(email.header.decode_header(str(value))))
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
    except LookupError:  # an unknown charset name
        return payload.decode("utf-8", errors="replace")
