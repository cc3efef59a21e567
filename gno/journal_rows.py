"""Row types of the knowledge-delta journal as the index returns them (gno/adapters/sqlite/
journal.py). Apart from ``gno/sync_rows.py`` so `gno changes` builds these two types only,
not the sync's (each dataclass costs ~1 ms of a command's start on Python 3.11)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple


class JournalRow(NamedTuple):
    """One entry of the knowledge-delta journal as stored. A tuple: a page of ``changes``
    makes a thousand of them, and a frozen dataclass costs five attribute sets each."""

    sequence: int
    observed_ms: int
    kind: str
    collection: str
    text: str  # the stored form; a page unpacks its rows together (core.journal.wire_changes)

    @property
    def observed_at(self) -> str:
        from gno.core import journal as j

        return j.iso_of_ms(self.observed_ms)

    @property
    def entry(self) -> dict[str, Any]:
        from gno.core import journal as j

        return j.unpack_entry(self.text, self.collection)


@dataclass(frozen=True)
class JournalState:
    """The journal's extent: its last sequence, its floor, its size."""

    last_sequence: int
    floor: int
    entries: int
    bytes: int
