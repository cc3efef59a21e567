"""Which embedding model each collection's vectors come from.

A collection may name its own embedding model in index.yml (``collections[].models.embed``:
``gno collection add --embed-model``, ``PATCH /api/collections/:name``); the others use the
active preset's. ``GNO_EMBED_MODEL`` still overrides both (``models/catalog.role_uri``).
Vectors are kept per model (``embed_models``), so collections of different models live in
one index side by side: embedding fills each collection's backlog with its own model, and a
vector search embeds the query once per model among the collections it searches and asks
each model's vectors about its own collections only.

When every collection uses one model (no collection has its own), embedding and search
run exactly as before: one backlog over the whole index, one KNN with the owner filters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gno.app import App
from gno.models.catalog import role_uri

if TYPE_CHECKING:
    from gno.services.filters import Filters


@dataclasses.dataclass(frozen=True)
class ModelGroup:
    """Collections that share an embedding model. ``collections`` None: every collection
    (all of them use ``uri``), so no collection restriction is needed."""

    uri: str
    collections: tuple[str, ...] | None


def collection_embed_uris(app: App) -> dict[str, str]:
    """Configured collection -> the URI of the embedding model its vectors come from."""
    raw = app.config.raw
    return {
        c.name: role_uri("embed", raw, _models_of(c.extra.get("models")))[0]
        for c in app.config.collections
    }


def _models_of(block: object) -> dict[str, object] | None:
    return block if isinstance(block, dict) else None


def groups_for(app: App, wanted: Sequence[str] | None) -> list[ModelGroup]:
    """The model groups of the ``wanted`` collections (None: all), the active model's group
    first, then by URI; collections sorted. When every collection uses one model (the
    usual case) that is one group with ``collections`` None, whatever is wanted: the
    owner filters already say which collections."""
    active = app.embed_model_uri()
    uris = collection_embed_uris(app)
    distinct = set(uris.values())
    if len(distinct) <= 1:
        return [ModelGroup(next(iter(distinct), active), None)]
    names = sorted(uris) if wanted is None else sorted(n for n in set(wanted) if n in uris)
    by_uri: dict[str, list[str]] = {}
    for name in names:
        by_uri.setdefault(uris[name], []).append(name)
    if not by_uri:  # none of them configured (any more): the filters find nothing anyway
        return [ModelGroup(active, None)]
    order = sorted(by_uri, key=lambda uri: (uri != active, uri))
    return [ModelGroup(uri, tuple(by_uri[uri])) for uri in order]


def search_groups(app: App, filters: Filters | None) -> list[ModelGroup]:
    """The model groups a vector search with these owner filters asks."""
    if filters is not None and filters.collection:
        return groups_for(app, [filters.collection])
    if filters is not None and filters.collections:
        return groups_for(app, filters.collections)
    return groups_for(app, None)


def restricted(filters: Filters | None, group: ModelGroup) -> Filters | None:
    """``filters`` limited to the group's collections (unchanged for an all-collections
    group): a model's vectors answer only for the collections that use it."""
    if group.collections is None:
        return filters
    from gno.services.filters import Filters  # `gno status` groups models, filters nothing

    base = filters if filters is not None else Filters()
    return dataclasses.replace(base, collection=None, collections=list(group.collections))
