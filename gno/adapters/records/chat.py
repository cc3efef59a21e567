"""Chat records: one record per message of a ``.jsonl`` export (one JSON object a line)
or of a ``.json`` export (a list of messages, or an object with a ``messages`` list).

Field names vary between exporters, so each field is the first present of a short list
(``text``/``content``/``message``/``body``...). A line that is not a JSON object with a
text is a malformed row; JSON nested deeper than the parser's recursion limit is one too.
A ``.json`` file that is not a chat export is not a container at all (``NotAChat``): the
record lane leaves it out rather than reporting every ``package.json`` as an error — but a
``.json`` nested too deeply to parse is reported (``BrokenJson``), being hostile or broken
rather than some other kind of file.

A message time is an ISO-8601 date/date-time or a Unix time (seconds, or milliseconds
past 10^11), kept as ISO-8601 UTC; any other value is a malformed row reported beside the
message, which is kept without a date (as mail does with a bad ``Date`` header).

An integer longer than Python converts (4,300 digits) is kept as its digits: ``json.loads``
raised ValueError for it, which dropped a whole ``.json`` export as "not a chat" and a
``.jsonl`` message as "not JSON", for one number no message needs as a number.

A ``.json`` export is streamed one message at a time (``json_stream``; memory a window and
the 20 deciding messages, not ten times the file), each message parsed by ``json`` as
``json.loads`` parsed it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
from collections.abc import Iterator
from typing import Any, BinaryIO

from gno.adapters.records import json_stream
from gno.adapters.records.json_stream import Readable
from gno.core.dates import utc_iso
from gno.core.frontmatter import parse_date
from gno.core.records import MAX_RECORD_CHARS, Malformed, Record

ADAPTER_ID = "record/chat"
ADAPTER_VERSION = "1.1.0"  # 1.1: message times checked and kept as ISO-8601
MAX_LINE_BYTES = 4 * 1024 * 1024
MAX_JSON_BYTES = 32 * 1024 * 1024

_TEXT = ("text", "content", "message", "body")
_AUTHOR = ("author", "sender", "from", "user", "username", "name", "role")
_TIME = ("timestamp", "time", "date", "created_at", "createdAt", "ts", "sent_at")
_ID = ("id", "message_id", "messageId", "uuid")
_SESSION = ("conversation_id", "conversationId", "thread_id", "threadId", "session_id", "channel")


# Below Python's default limit on the digits of an int made from text (4,300), sign included.
MAX_INT_DIGITS = 4000


def _integer(digits: str) -> int | str:
    return int(digits) if len(digits) <= MAX_INT_DIGITS else digits


class NotAChat(Exception):
    """A ``.json`` file that is not a chat export."""


class BrokenJson(Exception):
    """A ``.json`` file nested too deeply to parse: an error, not some other kind of file."""


class CutShort(ValueError):
    """The JSON of a chat export breaks after some of its messages were read: a
    ``ValueError`` to the sync, which keeps those records and reports the container."""


_DECIDING = 20  # messages that decide whether a .json is a chat export
_END = object()


def read_jsonl(stream: BinaryIO) -> Iterator[Record | Malformed]:
    number = 0
    while True:
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        locator = f"lines:{number}-{number}"
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip the rest of the long line
                line = stream.readline(MAX_LINE_BYTES)
            yield Malformed(locator, f"Line is longer than {MAX_LINE_BYTES // 2**20} MiB")
            continue
        if not line.strip():
            continue
        yield from _parsed(line, locator, ("line", str(number), None))


def read_json(
    stream: Readable, chunk: int = json_stream.CHUNK_BYTES
) -> Iterator[Record | Malformed]:
    """The messages of a ``.json`` export, streamed (``json_stream``). The first 20 decide
    whether it is a chat export at all: ``NotAChat``/``BrokenJson`` come before any
    record, as when the file was parsed whole. JSON that breaks after them (cut short,
    extra data, a message nested too deeply) ends the records with ``CutShort``: those
    read so far are kept, the container is reported (a ``ValueError`` to the sync, as a
    cut-short mailbox is)."""
    items = json_stream.messages(stream, _integer, chunk)
    head: list[Any] = []
    try:
        while len(head) < _DECIDING and (item := next(items, _END)) is not _END:
            head.append(item)
    except RecursionError as exc:
        raise BrokenJson("JSON is nested too deeply to read") from exc
    except ValueError as exc:  # JsonError, UnicodeDecodeError
        raise NotAChat(f"Not JSON: {str(exc)[:200]}") from exc
    if not any(isinstance(m, dict) and _first(m, _TEXT) is not None for m in head):
        raise NotAChat("Not a chat export (no list of messages with a text)")
    for number, message in enumerate(head, start=1):
        yield from _message(message, f"message:{number}", ("message", str(number), None))
    number = len(head)
    for message in _rest(items, number):
        number += 1
        yield from _message(message, f"message:{number}", ("message", str(number), None))


def _rest(items: Iterator[Any], read: int) -> Iterator[Any]:
    """The items after the deciding ones; a parse error (not a failure of the code that
    makes the records) becomes ``CutShort``."""
    while True:
        try:
            item = next(items, _END)
        except RecursionError as exc:
            raise CutShort(f"JSON is nested too deeply after message {read}") from exc
        except ValueError as exc:
            raise CutShort(f"JSON breaks after message {read}: {str(exc)[:200]}") from exc
        if item is _END:
            return
        read += 1
        yield item


def _parsed(
    line: bytes, locator: str, anchor: tuple[str, str, str | None]
) -> Iterator[Record | Malformed]:
    try:
        value = json.loads(line, parse_int=_integer)
    except RecursionError:
        yield Malformed(locator, "JSON is nested too deeply")
        return
    except ValueError as exc:
        yield Malformed(locator, f"Not JSON: {str(exc)[:120]}")
        return
    yield from _message(value, locator, anchor)


def message_time(value: Any) -> str | None:
    """ISO-8601 UTC of a message time (ISO text, or Unix seconds / milliseconds); None
    when it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        # ASCII digits only: str.isdigit() passes '²' (int() refuses it and the whole
        # export went unread) and Arabic-Indic digits (no chat writes a time so)
        digits = text.isascii() and text.isdigit()
        if text[:4].isdigit() and not digits:
            return parse_date(text)
        if not digits or len(text) > 16:
            return None
        value = int(text)
    if not isinstance(value, (int, float)):
        return None
    try:  # an integer of hundreds of digits is too large for a float: OverflowError
        if not math.isfinite(value) or value < 0:
            return None
        seconds = value / 1000 if value > 1e11 else value
        moment = dt.datetime.fromtimestamp(seconds, dt.UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return utc_iso(moment)


def _first(obj: dict[str, Any], names: tuple[str, ...]) -> Any:
    return next((obj[n] for n in names if obj.get(n) not in (None, "", [])), None)


def _as_text(value: Any, depth: int = 0) -> str:
    """A message text: a string, or the text parts of a list of parts (bounded depth)."""
    if isinstance(value, str):
        return value
    if depth > 4:
        return ""
    if isinstance(value, list):
        return "\n".join(t for t in (_as_text(v, depth + 1) for v in value[:1000]) if t)
    if isinstance(value, dict):
        return _as_text(_first(value, (*_TEXT, "parts")), depth + 1)
    return ""


def _message(
    value: Any, locator: str, anchor: tuple[str, str, str | None]
) -> Iterator[Record | Malformed]:
    if not isinstance(value, dict):
        yield Malformed(locator, "Not a JSON object")
        return
    text = _as_text(_first(value, _TEXT))
    if not text.strip():
        yield Malformed(locator, "Message has no text")
        return
    author_value = _first(value, _AUTHOR)
    if isinstance(author_value, dict):
        author_value = _first(author_value, ("name", "username", "id", "role"))
    author = str(author_value) if isinstance(author_value, (str, int)) else ""
    when = _first(value, _TIME)
    when_text = message_time(when) or "" if when is not None else ""
    if when is not None and not when_text:
        shown = json.dumps(when)[:80] if not isinstance(when, (dict, list)) else type(when).__name__
        yield Malformed(locator, f"Invalid message time {shown}; kept without a date")
    ident = _first(value, _ID)
    session = _first(value, _SESSION)
    session_text = str(session) if isinstance(session, (str, int)) else ""
    if isinstance(ident, (str, int)):
        stable = f"id:{session_text}:{ident}"
    else:
        stable = "sha256:" + hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()
    anchors = [anchor]
    if when_text:
        anchors.append(("timestamp", when_text, None))
    first_line = text.strip().split("\n", 1)[0]
    title = f"{author}: {first_line}" if author else first_line
    yield Record(
        stable_id=stable,
        title=title[:120],
        headers=(("From", author), ("Date", when_text), ("Conversation", session_text)),
        body=text[:MAX_RECORD_CHARS],
        locator=locator,
        anchors=tuple(anchors),
        meta={
            "author": author,
            "sessionId": session_text,
            "messageId": str(ident) if isinstance(ident, (str, int)) else "",
            "dateFields": {"timestamp": when_text} if when_text else {},
        },
    )
