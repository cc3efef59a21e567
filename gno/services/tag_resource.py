"""The ``gno://tags[?collection=x&prefix=y]`` MCP resource: the tags list as JSON
(``{tags, meta}``, as ``gno_list_tags`` answers). A URI with a path after the host is a
document of a collection named ``tags``, not this resource."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlsplit

from gno_contracts.models.tags_input import TagsInput

from gno.app import App
from gno.errors import ValidationError

URI = "gno://tags"
MIME = "application/json"
PARAMS = ("collection", "prefix", "index")


def is_tags_uri(uri: str) -> bool:
    return uri == URI or uri.startswith(URI + "?")


def read_tags(app: App, uri: str) -> str:
    from gno.services.links import tags

    query = urlsplit(uri).query
    fields: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name not in PARAMS:
            raise ValidationError(f"Unknown parameter of {URI}: {name} (use collection, prefix)")
        if name in fields or not value or len(value) > 256:
            raise ValidationError(f"Invalid {name} in {URI}")
        fields[name] = value
    index = fields.pop("index", None)
    if index is not None and index != app.paths.index_name:
        raise ValidationError(f"{uri} belongs to index {index}, not {app.paths.index_name}")
    result = tags(app, TagsInput.model_validate(fields))
    return json.dumps(result.model_dump(mode="json", exclude_unset=True), ensure_ascii=False)
