"""Export records (engine.md §2.7): the pure half of the record lane.

A record container (a mailbox, a calendar, a chat export, a transcript) is split by an
adapter (``gno/adapters/records/``) into logical records. Each record becomes one virtual
document at ``.gno/records/<sha256(container path)[:16]>/<recordKey>.md`` whose Markdown
is built here from escaped text, so nothing inside a mail or a chat line can become a
heading, a link, an HTML tag or frontmatter of the index.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from gno.core.record_paths import RECORDS_DIR

RECORD_KEY_PREFIX = "gno-record-v1"

# Caps of engine.md §2.7 (spec/records.md documents each one).
MAX_CONTAINER_BYTES = 100 * 1024 * 1024
MAX_RECORD_CHARS = 2_000_000
MAX_METADATA_CHARS = 100_000
MAX_SNAPSHOT_CHARS = 50_000_000
MAX_SNAPSHOT_RECORDS = 100_000
MAX_RETAINED_FAILURES = 1_000
DEADLINE_SECONDS = 60.0
MAX_RECURRENCE_ANCHORS = 64
MAX_ANCHORS = 256
MAX_LIST_ITEMS = 256
MAX_FIELD_CHARS = 2048
MAX_LOCATOR_CHARS = 512

# Characters that start Markdown or HTML syntax anywhere in a line: each is backslash-escaped.
_MD_META = frozenset("\\`*_[]()<>#|~!")
# Characters that start a block (list, setext underline, frontmatter fence) only at a line start.
_LINE_START_META = frozenset("-+=")
# C0 controls but tab and line feed, and DEL, become their Unicode control pictures (U+2400
# on): a NUL in a chat message (``"\u0000"`` is valid JSON) made the converter refuse the
# record's whole Markdown as binary, and a control character is no text a reader can see.
_CONTROLS = {c: chr(0x2400 + c) for c in range(0x20) if c not in (0x09, 0x0A)} | {0x7F: "\u2421"}
_ESCAPES = str.maketrans({ch: "\\" + ch for ch in _MD_META} | _CONTROLS)
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Record:
    """One logical record as an adapter reads it (text not yet escaped)."""

    stable_id: str  # the adapter's stable id (Message-ID, UID, cue number...), normalized
    title: str
    headers: tuple[tuple[str, str], ...]  # shown under the title as "Name: value" lines
    body: str
    locator: str  # where in the container, e.g. "message:12" or "lines:3-7"
    anchors: tuple[tuple[str, str, str | None], ...]  # (kind, value, endValue)
    meta: dict[str, Any] = field(default_factory=dict)  # author, participants, dateFields...


@dataclass(frozen=True)
class Malformed:
    """A row or entry of the container the adapter could not read: the snapshot is partial."""

    locator: str
    reason: str


def container_dir(container_rel_path: str) -> str:
    digest = hashlib.sha256(container_rel_path.encode("utf-8")).hexdigest()[:16]
    return f"{RECORDS_DIR}{digest}/"


def record_key(adapter_id: str, stable_id: str) -> str:
    text = f"{RECORD_KEY_PREFIX}\0{adapter_id}\0{stable_id}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def virtual_path(container_rel_path: str, key: str) -> str:
    return f"{container_dir(container_rel_path)}{key}.md"


def fingerprint(adapter_id: str, version: str, settings: dict[str, Any]) -> str:
    """The adapter's identity and configuration (caps): a change re-imports every container."""
    text = json.dumps({"id": adapter_id, "version": version, "settings": settings}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def escape_inline(text: str) -> str:
    """Text with every Markdown/HTML metacharacter backslash-escaped (one line)."""
    return _escape_start(text.translate(_ESCAPES))


def _escape_start(line: str) -> str:
    stripped = line.lstrip(" ")
    first = stripped[:1]
    if not first:
        return line
    cut = len(line) - len(stripped)
    if first in _LINE_START_META:
        return line[:cut] + "\\" + stripped
    if first.isdigit() and _ordered_marker(stripped):  # "12." -> "12\." (not a list)
        digits = len(stripped) - len(stripped.lstrip("0123456789"))
        return line[: cut + digits] + "\\" + line[cut + digits :]
    return line


def _ordered_marker(text: str) -> bool:
    """``12.`` or ``3)`` at the start of a line would begin an ordered list."""
    digits = len(text) - len(text.lstrip("0123456789"))
    return 0 < digits <= 9 and text[digits : digits + 1] in (".", ")")


def escape_block(text: str) -> str:
    """A body: lines kept, each escaped (a ``---`` line cannot open frontmatter, a fence
    cannot open code, a ``#`` cannot make a heading). A lone CR ends a line in Markdown,
    so it is one here too: else the line after it started unescaped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(_escape_start(line) for line in text.translate(_ESCAPES).split("\n"))


def _unpaired(value: Any) -> Any:
    """``value`` with each lone UTF-16 surrogate as U+FFFD (a pair written as two escapes
    joined): JSON's ``"\\ud800"`` is valid, but no UTF-8 text holds it."""
    if isinstance(value, str):
        if _SURROGATE.search(value) is None:
            return value
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, (list, tuple)):
        return type(value)(_unpaired(v) for v in value)
    if isinstance(value, dict):
        return {_unpaired(k): _unpaired(v) for k, v in value.items()}
    return value


def unpaired(record: Record) -> Record:
    """The record with every lone surrogate replaced: one in a message (a chat export's
    ``"\\udc00"``) stopped the whole import at that message, its key and text being
    encoded as UTF-8, and the messages after it were never read."""
    return Record(
        _unpaired(record.stable_id),
        _unpaired(record.title),
        _unpaired(record.headers),
        _unpaired(record.body),
        _unpaired(record.locator),
        _unpaired(record.anchors),
        _unpaired(record.meta),
    )


def clip(text: str, limit: int = MAX_FIELD_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def markdown(record: Record) -> str:
    """The virtual document: an H1 title, the header lines, a blank line, the body."""
    parts = [f"# {escape_inline(_one_line(record.title)) or 'Untitled record'}", ""]
    for name, value in record.headers:
        if value:
            parts.append(f"{name}: {escape_inline(_one_line(value))}  ")
    parts.append("")
    parts.append(escape_block(record.body))
    return "\n".join(parts) + "\n"


def fitted_markdown(record: Record, limit: int = MAX_RECORD_CHARS) -> tuple[str, bool]:
    """``markdown`` within ``limit`` characters, and whether the body had to be cut. The
    adapters cut a body at the same limit, but the title, header lines and escapes come on
    top: the record is kept with its body cut to fit (at a line end when there is one in
    the last half), never refused for a few characters."""
    text = markdown(record)
    if len(text) <= limit:
        return text, False
    head = markdown(replace(record, body=""))[:-1]  # the title and headers, then the body
    room = max(0, limit - len(head) - 1)
    body = escape_block(record.body)[:room]
    end = body.rfind("\n")
    body = body[:end] if end > room // 2 else body.rstrip("\\")  # no escape left half
    return head + body + "\n", True


def _one_line(text: str) -> str:
    return " ".join(text.split())


def payload(
    record: Record, key: str, adapter_id: str, adapter_version: str, adapter_fingerprint: str
) -> dict[str, Any]:
    """The ``record`` object of surfaces.md §5.0, within its bounds."""
    anchors = [
        {"kind": kind, "value": clip(value, 512)} | ({"endValue": clip(end, 512)} if end else {})
        for kind, value, end in record.anchors[:MAX_ANCHORS]
        if value
    ]
    if not anchors:
        anchors = [{"kind": "record", "value": clip(record.locator, 512)}]
    out: dict[str, Any] = {
        "recordKey": key,
        "sourceLocator": clip(record.locator, MAX_LOCATOR_CHARS),
        "anchors": anchors,
        "adapter": {
            "id": adapter_id,
            "version": adapter_version,
            "fingerprint": adapter_fingerprint,
        },
    }
    meta = record.meta
    for name in ("author", "messageId", "inReplyTo", "threadId", "eventId", "sessionId"):
        value = meta.get(name)
        if isinstance(value, str) and value:
            out[name] = clip(value)
    for name, limit in (("participants", MAX_FIELD_CHARS), ("categories", 512)):
        items = [clip(v, limit) for v in meta.get(name, ()) if isinstance(v, str) and v]
        if items:
            out[name] = list(dict.fromkeys(items))[:MAX_LIST_ITEMS]
    refs = [clip(v) for v in meta.get("references", ()) if isinstance(v, str) and v]
    if refs:
        out["references"] = refs[:MAX_LIST_ITEMS]
    dates = {
        clip(k, 128): clip(v, 256)
        for k, v in list(meta.get("dateFields", {}).items())[:MAX_LIST_ITEMS]
        if isinstance(v, str) and v
    }
    if dates:
        out["dateFields"] = dates
    attachments = [a for a in meta.get("attachments", ()) if isinstance(a, dict) and a.get("name")]
    if attachments:
        out["attachments"] = attachments[:MAX_LIST_ITEMS]
    return out
