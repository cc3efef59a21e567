"""A stored link as `gno links` and `gno backlinks` read it (``Store.link_rows``).

A named tuple in a module of its own: a graph read neither imports the sync's row
dataclasses nor pays a dataclass's construction per link."""

from __future__ import annotations

from typing import NamedTuple


class LinkRow(NamedTuple):
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
