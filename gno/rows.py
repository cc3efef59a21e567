"""Row types the index and the services exchange (``gno/ports.py`` names the methods):
documents, ingest state, backlog rows, neighbours, link edges, vectors as bytes, and the
timestamps the index writes."""

from __future__ import annotations

import json
import time
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from gno.core import journal as j
from gno.core.identity import docid_for

INGEST_VERSION = 1  # bump when ingestion changes what it stores: every file is re-read

# A chunk waiting for a vector: (mirror_hash, seq, pos, end, title of a document using it)
BacklogRow = tuple[str, int, int, int, str | None]
# A neighbour: (mirror_hash, seq, cosine distance)
Neighbour = tuple[str, int, float]


def pack(vector: Sequence[float]) -> bytes:
    """A vector as the index stores it: float32, native byte order."""
    return array("f", vector).tobytes()


def unpack(blob: bytes) -> list[float]:
    return array("f", blob).tolist()


def now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def iso_from_ns(ns: int) -> str:
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns / 1e9))
        + f".{(ns // 1_000_000) % 1000:03d}Z"
    )


@dataclass(frozen=True, slots=True)
class SourceFile:
    """Identity and stat of one source file, as a sync saw it."""

    collection: str
    rel_path: str
    uri: str
    source_hash: str | None
    mime: str
    ext: str
    size: int
    mtime_ns: int
    inode: int | None

    def values(self) -> tuple[Any, ...]:
        """Leading columns of a documents row, in table order (collection .. uri)."""
        docid = docid_for(self.source_hash) if self.source_hash else None
        return (
            self.collection,
            self.rel_path,
            self.source_hash,
            self.mime,
            self.ext,
            self.size,
            self.mtime_ns,
            self.inode,
            docid,
            self.uri,
        )


class DocState(NamedTuple):
    """What sync needs to decide whether a file changed, without reading it. A named tuple:
    a no-op sync builds one per document, and a tuple builds three times faster than a
    frozen dataclass (tens of ms at 22,760 documents)."""

    id: int
    size: int
    mtime_ns: int
    inode: int | None
    source_hash: str | None
    mirror_hash: str | None
    active: bool
    ingest_version: int
    error_code: str | None
    frontmatter_type: str | None = None
    rules_fp: str | None = None  # content-type rules that classify it (core/content_types)


@dataclass(frozen=True, slots=True)
class ContainerState:
    """An export container as the record lane last imported it (spec/records.md)."""

    size: int
    mtime_ns: int
    inode: int | None
    source_hash: str | None
    fingerprint: str
    ingest_version: int
    complete: bool
    records: int
    error_code: str | None


@dataclass(frozen=True, slots=True)
class DocRow:
    id: int
    collection: str
    rel_path: str
    docid: str
    uri: str
    title: str | None
    mirror_hash: str | None
    source_hash: str | None
    mime: str
    ext: str
    size: int
    mtime_ns: int
    converter_id: str | None
    converter_version: str | None
    content_type: str | None
    categories: list[str]
    author: str | None
    frontmatter_date: str | None
    active: bool
    error_code: str | None


DOC_COLUMNS = (
    "id, collection, rel_path, docid, uri, title, mirror_hash, source_hash, source_mime, source_ext, "
    "source_size, source_mtime_ns, converter_id, converter_version, content_type, categories_json, "
    "author, frontmatter_date, active, last_error_code"
)


def doc_row(row: Sequence[Any]) -> DocRow:
    values = list(row)
    values[15] = json.loads(values[15]) if values[15] else []
    values[18] = bool(values[18])
    return DocRow(*values)


@dataclass(frozen=True)
class JournalRow:
    sequence: int
    observed_ms: int
    kind: str
    collection: str
    text: str  # the stored form; unpacked on first use (a cached model never needs it)

    @cached_property
    def observed_at(self) -> str:
        return j.iso_of_ms(self.observed_ms)

    @cached_property
    def entry(self) -> dict[str, Any]:
        return j.unpack_entry(self.text, self.collection)


@dataclass(frozen=True)
class JournalState:
    last_sequence: int
    floor: int
    entries: int
    bytes: int


@dataclass(frozen=True, slots=True)
class LinkRow:
    source_doc_id: int
    link_type: str
    target_ref: str
    target_ref_norm: str
    target_anchor: str | None
    target_collection: str | None
    resolve_collection: str
    link_text: str | None
    start_line: int
    start_col: int
    end_line: int
    end_col: int
    source: str
