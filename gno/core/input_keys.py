"""GNO's rule for input keys a schema does not document (surfaces.md §1.5, §3.4).

GNO validates the parameters it documents and ignores any other key, except on its
closed inputs (``additionalProperties: false``: ask, context, egress tools…), where an
unknown key is invalid. gno's input schemas say which they are; MCP and REST pass the
arguments through ``known_arguments`` before validating them, so a client that sends
``traceId`` to a version without tracing, or ``_=1`` to defeat a cache, is served.
"""

from __future__ import annotations

from typing import Any


def is_closed(schema: dict[str, Any]) -> bool:
    return schema.get("additionalProperties") is False


def known_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` without the keys an open schema does not document; a closed schema
    gets them all, so its validation names the unknown key."""
    if is_closed(schema):
        return arguments
    documented = schema.get("properties", {})
    return {key: value for key, value in arguments.items() if key in documented}
