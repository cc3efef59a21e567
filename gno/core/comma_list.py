"""GNO's comma-separated list spelling, read alike on every surface: a CLI option marked
``csv: true`` in the registry (`--tags-all a,b`), a REST query parameter (`tagsAll=a,b`), a
frontmatter string (`tags: a, b`). Items are trimmed; empty items are dropped."""

from __future__ import annotations


def comma_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]
