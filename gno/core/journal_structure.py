"""The structure of a document version the knowledge-delta journal compares (headings,
link keys, typed-edge keys, dates): of a version about to be stored, from its analysis,
or of a stored one, from its rows (gno/adapters/sqlite/journal.py reads them)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gno.core import journal as j
from gno.core.frontmatter_span import frontmatter_span
from gno.core.relations import link_edge_type

if TYPE_CHECKING:
    from gno.core.document import Analysis


def frontmatter_lines(mirror: str) -> int:
    return frontmatter_span(mirror)[0]


def _dates(dates_json: str | None) -> dict[str, str]:
    if not dates_json:
        return {}
    data = json.loads(dates_json)
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def structure(
    heads: frozenset[str],
    links: Sequence[tuple[str, str]],
    relations: Sequence[tuple[str, str]],
    dates_json: str | None,
) -> j.Structure:
    return j.Structure(
        headings=heads,
        links=frozenset(j.link_key(t, norm) for t, norm in links),
        edges=frozenset(
            [j.edge_key(link_edge_type(t), norm) for t, norm in links]
            + [j.edge_key(edge, target) for edge, target in relations]
        ),
        dates=_dates(dates_json),
    )


def analysis_structure(a: Analysis) -> j.Structure:
    """The structure of a version about to be stored (its dates as ``writes.py`` stores them)."""
    dates = a.metadata.date_fields
    return structure(
        a.headings,
        [(lk.link_type, lk.target_ref_norm) for lk in a.links],
        a.relations,
        json.dumps(dates) if dates else None,
    )
