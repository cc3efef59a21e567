"""Open an export container safely and hand it to its record adapter (engine.md §2.7).

A container is opened like any source file (``O_NONBLOCK``, then ``fstat`` must say
*regular file*), hashed in 1 MiB pieces, and read by its adapter: mailboxes, JSON
Lines and JSON chat exports streamed, the other formats (whose parsers want the whole text) read whole under a
smaller cap of their own. What the adapter yields is checked against the lane's caps by
``services/sync_records.py``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from gno.core.mime import RECORD_MIMES
from gno.core.records import (
    DEADLINE_SECONDS,
    MAX_CONTAINER_BYTES,
    MAX_METADATA_CHARS,
    MAX_RECORD_CHARS,
    MAX_RECURRENCE_ANCHORS,
    MAX_SNAPSHOT_CHARS,
    MAX_SNAPSHOT_RECORDS,
    Malformed,
    Record,
    fingerprint,
)
from gno.ingest.reading import FileTooLarge, open_regular, read_regular

RECORD_EXTENSIONS = RECORD_MIMES
_CAPS = {
    "container": MAX_CONTAINER_BYTES,
    "record": MAX_RECORD_CHARS,
    "metadata": MAX_METADATA_CHARS,
    "snapshotChars": MAX_SNAPSHOT_CHARS,
    "snapshotRecords": MAX_SNAPSHOT_RECORDS,
    "deadline": DEADLINE_SECONDS,
    "recurrenceAnchors": MAX_RECURRENCE_ANCHORS,
}
_TOO_LARGE = f"Container is larger than {MAX_CONTAINER_BYTES // 2**20} MiB"


@dataclass(frozen=True)
class Adapter:
    id: str
    version: str

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.id, self.version, _CAPS)


class NotAContainer(Exception):
    """The file has a record extension but is not that kind of export (a plain ``.json``)."""


class ContainerError(Exception):
    """The container as a whole cannot be read: its ingest error (code, message)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def is_record_container(ext: str) -> bool:
    return ext in RECORD_EXTENSIONS


def adapter_for(ext: str) -> Adapter:
    from gno.adapters.records import calendar, chat, mail, transcript

    module = {
        ".mbox": mail,
        ".eml": mail,
        ".ics": calendar,
        ".jsonl": chat,
        ".json": chat,
        ".vtt": transcript,
        ".srt": transcript,
    }[ext]
    return Adapter(module.ADAPTER_ID, module.ADAPTER_VERSION)


Walked = tuple[str, int] | None  # (real root, inode) as the walk saw it: reading.open_regular


@contextmanager
def open_container(
    path: str, walked: Walked = None, limit: int = MAX_CONTAINER_BYTES
) -> Iterator[BinaryIO]:
    """A regular file opened like any source file (``reading.open_regular``: no blocking,
    checked on the descriptor, never through a folder swapped out of the root)."""
    try:
        fd = open_regular(path, limit, walked=walked)
    except FileTooLarge as exc:
        raise FileTooLarge(f"Container is larger than {limit // 2**20} MiB") from exc
    try:
        stream = os.fdopen(fd, "rb", buffering=1024 * 1024)
    except BaseException:
        os.close(fd)
        raise
    with stream:
        yield stream


def hash_container(path: str, walked: Walked = None) -> str:
    digest = hashlib.sha256()
    with open_container(path, walked) as stream:
        total = 0
        while chunk := stream.read(1024 * 1024):
            total += len(chunk)
            if total > MAX_CONTAINER_BYTES:
                raise FileTooLarge(_TOO_LARGE)
            digest.update(chunk)
    return digest.hexdigest()


class _Capped:
    """Reads of a stream that stop one byte past ``limit`` (the file may grow while read)."""

    def __init__(self, stream: BinaryIO, limit: int) -> None:
        self._stream, self._limit, self._read = stream, limit, 0

    def read(self, size: int, /) -> bytes:
        data = self._stream.read(min(size, self._limit + 1 - self._read))
        self._read += len(data)
        if self._read > self._limit:
            raise FileTooLarge(f"Container is larger than {self._limit // 2**20} MiB")
        return data


def read_container(
    path: str, ext: str, stem: str, walked: Walked = None
) -> Iterator[Record | Malformed]:
    """The records of one container, in order; ``NotAContainer`` or ``ContainerError``
    when the file as a whole is not readable as its kind. The file is opened again here
    (after ``hash_container``), so ``walked`` is checked again."""
    from gno.adapters.records import calendar, chat, mail, transcript
    from gno.ports import CORRUPT, TOO_LARGE

    try:
        if ext in (".mbox", ".jsonl", ".eml"):
            with open_container(path, walked) as stream:
                if ext == ".mbox":
                    yield from mail.read_mbox(stream)
                elif ext == ".eml":
                    head = stream.peek(8192)[:8192] if hasattr(stream, "peek") else b""
                    if b"\0" in head:
                        raise ContainerError(CORRUPT, "Binary content in a mail file")
                    yield from mail.read_eml(stream)
                else:
                    yield from chat.read_jsonl(stream)
            return
        if ext == ".json":
            with open_container(path, walked, chat.MAX_JSON_BYTES) as stream:
                yield from chat.read_json(_Capped(stream, chat.MAX_JSON_BYTES))
            return
        limit = calendar.MAX_CALENDAR_BYTES if ext == ".ics" else transcript.MAX_TRANSCRIPT_CHARS
        data = read_regular(path, limit, walked=walked)
        if ext == ".ics":
            yield from calendar.read_ics(data)
        else:
            yield from transcript.read_transcript(data, stem, vtt=ext == ".vtt")
    except chat.NotAChat as exc:
        raise NotAContainer(str(exc)) from exc
    except chat.BrokenJson as exc:
        raise ContainerError(CORRUPT, str(exc)) from exc
    except mail.NotAMailbox as exc:
        raise ContainerError(CORRUPT, str(exc)) from exc
    except calendar.NotACalendar as exc:
        raise ContainerError(CORRUPT, str(exc)) from exc
    except transcript.NotATranscript as exc:
        raise ContainerError(CORRUPT, str(exc)) from exc
    except FileTooLarge as exc:
        raise ContainerError(TOO_LARGE, str(exc)) from exc
