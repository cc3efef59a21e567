"""The stored link row (gno/adapters/sqlite/edges.py): apart from ``gno/sync_rows.py`` so a
graph read builds this dataclass only, not the sync's."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LinkRow:
    """One link a document makes, as the index stores it."""

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
