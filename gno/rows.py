"""Row types the index and the services exchange (``gno/ports.py`` names the methods):
documents, backlog rows, neighbours, vectors as bytes, and the timestamps the index
writes. What only a sync, the journal or the link graph build is in ``gno/sync_rows.py``:
every dataclass costs a read command's start, and a search builds only ``DocRow``."""

from __future__ import annotations

import json
import time
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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
class DocRow:
    """One row of ``documents``: a file (or record) as the index knows it."""

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
