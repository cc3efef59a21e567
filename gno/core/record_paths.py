"""Where the record lane's virtual documents live (engine.md §2.7): the one fact a read needs
about records, kept apart from ``gno/core/records.py`` so a read that only asks "is this a
record?" does not build the lane's types."""

from __future__ import annotations

RECORDS_DIR = ".gno/records/"


def is_record_path(rel_path: str) -> bool:
    return rel_path.startswith(RECORDS_DIR)
