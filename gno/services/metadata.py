"""GET /api/metadata (``gno metadata``): the typed frontmatter metadata registry.

Each key of the active documents' frontmatter with its type (``core/typed_metadata``),
how many documents carry it and its most common values, for one collection or all.
"""

from __future__ import annotations

from gno_contracts.models.metadata import MetadataRegistry
from gno_contracts.models.metadata_input import MetadataInput

from gno.app import App
from gno.core.identity import normalize_collection_name
from gno.errors import NotFoundError


def metadata(app: App, inp: MetadataInput) -> MetadataRegistry:
    collection = None
    if inp.collection is not None:
        collection = normalize_collection_name(inp.collection)
        if app.config.find(collection) is None:
            raise NotFoundError(f"Collection not found: {inp.collection}")
    store = app.store()
    keys, documents = store.metadata_registry(collection, inp.values)
    return MetadataRegistry.model_validate(
        {"collection": collection, "documentCount": documents, "keys": keys}
    )
