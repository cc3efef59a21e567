"""Row types of the knowledge-delta journal as the index returns them (gno/adapters/sqlite/
journal.py). Apart from ``gno/sync_rows.py`` so `gno changes` builds these two types only,
not the sync's (each dataclass costs ~1 ms of a command's start on Python 3.11)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class JournalRow(tuple[int, int, str, str, str]):
    """One entry of the knowledge-delta journal as stored: (sequence, observed_ms, kind,
    collection, text), the row as the index returns it. A plain tuple: a page of `changes`
    makes a thousand of them (a frozen dataclass sets five attributes each), and the class
    costs nothing to define at start (a NamedTuple's does, ~1 ms)."""

    __slots__ = ()

    @property
    def sequence(self) -> int:
        return self[0]

    @property
    def observed_ms(self) -> int:
        return self[1]

    @property
    def kind(self) -> str:
        return self[2]

    @property
    def collection(self) -> str:
        return self[3]

    @property
    def text(self) -> str:
        """The stored form, which core.journal_form.wire_changes unpacks for a page."""
        return self[4]

    @property
    def observed_at(self) -> str:
        from gno.core import journal as j

        return j.iso_of_ms(self[1])

    @property
    def entry(self) -> dict[str, Any]:
        from gno.core.journal_form import unpack_entry

        return unpack_entry(self[4], self[3])


@dataclass(frozen=True)
class JournalState:
    """The journal's extent: its last sequence, its floor, its size."""

    last_sequence: int
    floor: int
    entries: int
    bytes: int
