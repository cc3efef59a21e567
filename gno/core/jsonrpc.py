"""JSON-RPC envelopes the MCP SDK misreads, refused the same way on stdio and over HTTP.

The SDK decodes a message as a union of request, notification and response models, and a
request whose ``id`` is no request id (an object, an array, a boolean, a fraction, null)
fails the request model and then passes the notification model, which ignores unknown
keys: the request was taken for a notification and never answered. A JSON array (a
JSON-RPC batch) was refused over HTTP as ``-32602`` with pydantic's text. MCP allows
neither: its ``RequestId`` is a string or an integer and "MUST NOT be null", and batching
was dropped in protocol 2025-06-18. Both are ``-32600 Invalid Request`` with id null
(the id cannot be echoed: it is no id). Nothing here imports the SDK.
"""

from __future__ import annotations

from typing import Any

INVALID_REQUEST = -32600
# The longest message gno reads on any transport: the highest `gateway.limits.maxBodyBytes`
# of `/mcp`, and the one line `gno mcp` holds (a longer line is refused unread). Above the
# 10 MiB a write tool accepts (gno/file_writes.py), so no valid call is too long for it.
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
BATCH = "Invalid Request: JSON-RPC batches are not supported (MCP dropped them in 2025-06-18)"
BAD_ID = "Invalid Request: a request id must be a string or an integer"


def usable_id(value: Any) -> bool:
    """A request id MCP accepts: a string or an integer (not a boolean, fraction or null)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def misread(message: Any) -> str | None:
    """The ``-32600`` message for a decoded JSON value the SDK would misread: a batch, or a
    request (it has a ``method``) whose ``id`` is present and unusable. None otherwise:
    every other shape is the SDK's (or gno.mcp.wire's) to answer."""
    if isinstance(message, list):
        return BATCH
    if isinstance(message, dict) and "method" in message and "id" in message:
        return None if usable_id(message["id"]) else BAD_ID
    return None


def error(message: str, code: int = INVALID_REQUEST) -> dict[str, Any]:
    """A JSON-RPC error with id null."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
