"""Chat records: one record per message of a ``.jsonl`` export (one JSON object a line)
or of a ``.json`` export (a list of messages, or an object with a ``messages`` list).

Field names vary between exporters, so each field is the first present of a short list
(``text``/``content``/``message``/``body``...). A line that is not a JSON object with a
text is a malformed row; JSON nested deeper than the parser's recursion limit is one too.
A ``.json`` file that is not a chat export is not a container at all (``NotAChat``): the
record lane leaves it out rather than reporting every ``package.json`` as an error.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any, BinaryIO

from gno.core.records import MAX_RECORD_CHARS, Malformed, Record

ADAPTER_ID = "record/chat"
ADAPTER_VERSION = "1.0.0"
MAX_LINE_BYTES = 4 * 1024 * 1024
MAX_JSON_BYTES = 32 * 1024 * 1024

_TEXT = ("text", "content", "message", "body")
_AUTHOR = ("author", "sender", "from", "user", "username", "name", "role")
_TIME = ("timestamp", "time", "date", "created_at", "createdAt", "ts", "sent_at")
_ID = ("id", "message_id", "messageId", "uuid")
_SESSION = ("conversation_id", "conversationId", "thread_id", "threadId", "session_id", "channel")


class NotAChat(Exception):
    """A ``.json`` file that is not a chat export."""


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
        yield _parsed(line, locator, ("line", str(number), None))


def read_json(data: bytes) -> Iterator[Record | Malformed]:
    try:
        doc = json.loads(data)
    except RecursionError as exc:
        raise NotAChat("JSON is nested too deeply") from exc
    except ValueError as exc:
        raise NotAChat(f"Not JSON: {exc}") from exc
    messages = doc.get("messages") if isinstance(doc, dict) else doc
    if (
        not isinstance(messages, list)
        or not messages
        or not any(isinstance(m, dict) and _first(m, _TEXT) is not None for m in messages[:20])
    ):
        raise NotAChat("Not a chat export (no list of messages with a text)")
    for number, message in enumerate(messages, start=1):
        yield _message(message, f"message:{number}", ("message", str(number), None))


def _parsed(line: bytes, locator: str, anchor: tuple[str, str, str | None]) -> Record | Malformed:
    try:
        value = json.loads(line)
    except RecursionError:
        return Malformed(locator, "JSON is nested too deeply")
    except ValueError as exc:
        return Malformed(locator, f"Not JSON: {str(exc)[:120]}")
    return _message(value, locator, anchor)


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


def _message(value: Any, locator: str, anchor: tuple[str, str, str | None]) -> Record | Malformed:
    if not isinstance(value, dict):
        return Malformed(locator, "Not a JSON object")
    text = _as_text(_first(value, _TEXT))
    if not text.strip():
        return Malformed(locator, "Message has no text")
    author_value = _first(value, _AUTHOR)
    if isinstance(author_value, dict):
        author_value = _first(author_value, ("name", "username", "id", "role"))
    author = str(author_value) if isinstance(author_value, (str, int)) else ""
    when = _first(value, _TIME)
    when_text = str(when) if isinstance(when, (str, int, float)) else ""
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
    return Record(
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
