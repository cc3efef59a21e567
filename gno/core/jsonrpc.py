"""JSON-RPC envelopes the MCP SDK misreads, refused the same way on stdio and over HTTP.

The SDK decodes a message as a union of request, notification and response models, and a
request whose ``id`` is no request id (an object, an array, a boolean, a fraction, null)
fails the request model and then passes the notification model, which ignores unknown
keys: the request was taken for a notification and never answered. A JSON array (a
JSON-RPC batch) was refused over HTTP as ``-32602`` with pydantic's text. MCP allows
neither: its ``RequestId`` is a string or an integer and "MUST NOT be null", and batching
was dropped in protocol 2025-06-18. Both are ``-32600 Invalid Request`` with id null
(the id cannot be echoed: it is no id). Nothing here imports the SDK.

``invalid_request`` names what makes a decoded value the SDK refused no JSON-RPC message at
all, in the same words on both transports (the SDK's own answer over HTTP was ``-32602`` with
pydantic's validation text; on stdio it dropped the line).
"""

from __future__ import annotations

import re
from typing import Any

from gno.core.wire_values import unusable_value

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
_SURROGATE = re.compile("[\ud800-\udfff]")
# The longest message gno reads on any transport: the highest `gateway.limits.maxBodyBytes`
# of `/mcp`, and the one line `gno mcp` holds (a longer line is refused unread). Above the
# 10 MiB a write tool accepts (gno/file_writes.py), so no valid call is too long for it.
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
BATCH = "Invalid Request: JSON-RPC batches are not supported (MCP dropped them in 2025-06-18)"
BAD_ID = "Invalid Request: a request id must be a string or an integer"
NOT_AN_OBJECT = "Invalid Request: a JSON-RPC message must be a JSON object"
BAD_VERSION = 'Invalid Request: "jsonrpc" must be "2.0"'
BAD_METHOD = 'Invalid Request: "method" must be a string'
BAD_PARAMS = 'Invalid Request: "params" must be an object'
BAD_RESULT = 'Invalid Request: "result" must be an object'
BAD_ERROR = (
    'Invalid Request: "error" must be an object with an integer "code" and a string "message"'
)
BAD_RESPONSE = 'Invalid Request: a response needs the "id" of the request it answers'
NO_METHOD = 'Invalid Request: no "method"'
NOT_A_MESSAGE = "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
NO_RESPONSE_TAKEN = "Invalid Request: the body must be a request or a notification"


def usable_id(value: Any) -> bool:
    """A request id MCP accepts: a string or an integer (not a boolean, fraction or null). A
    string holding a lone UTF-16 surrogate is no text: an answer echoing it cannot be written
    as UTF-8 (it ended `gno mcp`), so it is no id either."""
    if isinstance(value, str):
        return not _SURROGATE.search(value)
    return isinstance(value, int) and not isinstance(value, bool)


def misread(message: Any) -> str | None:
    """The ``-32600`` message for a decoded JSON value the SDK would misread: a batch, or a
    request (it has a ``method``) whose ``id`` is present and unusable. None otherwise:
    every other shape is the SDK's (or gno.mcp.wire's) to answer."""
    if isinstance(message, list):
        return BATCH
    if isinstance(message, dict) and "method" in message and "id" in message:
        return None if usable_id(message["id"]) else BAD_ID
    return None


def invalid_request(message: Any) -> tuple[Any, str]:
    """(the id to answer with, the ``-32600`` message naming the first thing wrong) for a
    decoded JSON value the SDK refused as a JSON-RPC message. The id is the message's own when
    it is usable, else null; a malformed response is answered with null (its id is ours)."""
    problem = misread(message) or _first_problem(message)
    if not isinstance(message, dict) or _is_response(message):
        return None, problem
    request_id = message.get("id")
    return (request_id if usable_id(request_id) else None), problem


def strict_refusal(message: Any) -> tuple[Any, int, str] | None:
    """(id, code, message) answering JSON that Python's parser reads and the SDK's strict
    one refuses (a lone surrogate, nesting past its 200 levels), the same on stdio and over
    HTTP; None for a notification or a response (stdio leaves them unanswered). A request
    with a usable id learns where the fault is: ``-32602`` naming the place, with its id
    (the SDK's ``-32700`` with id null left the client without an answer to its id)."""
    if misread(message) is not None or not isinstance(message, dict):
        request_id, problem = invalid_request(message)
        return request_id, INVALID_REQUEST, problem
    if _is_response(message):
        return None
    if "id" not in message and isinstance(message.get("method"), str):
        return None
    request_id = message.get("id") if usable_id(message.get("id")) else None
    if request_id is not None and (fault := unusable_value(message)):
        where, _, what = fault.partition(": ")
        return request_id, INVALID_PARAMS, f"Invalid params: {where}: {what}"
    return request_id, PARSE_ERROR, "Parse error: the line is not valid JSON"


def _is_response(message: dict[str, Any]) -> bool:
    return "method" not in message and ("result" in message or "error" in message)


def _first_problem(message: Any) -> str:
    if not isinstance(message, dict):
        return NOT_AN_OBJECT
    if message.get("jsonrpc") != "2.0":
        return BAD_VERSION
    if "method" in message:
        if not isinstance(message["method"], str):
            return BAD_METHOD
        if not isinstance(message.get("params"), dict | None):
            return BAD_PARAMS
        return NOT_A_MESSAGE
    if "result" not in message and "error" not in message:
        return NO_METHOD
    if "result" in message and not isinstance(message["result"], dict):
        return BAD_RESULT
    error = message.get("error", {"code": 0, "message": ""})
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        return BAD_ERROR
    if not _integral(error.get("code")):
        return BAD_ERROR
    answers = message.get("id", False)  # an error may answer null: a result may not
    if not (usable_id(answers) or (answers is None and "error" in message)):
        return BAD_RESPONSE
    return NO_RESPONSE_TAKEN  # a response where none is taken (the 2026-07-28 transport)


def _integral(value: Any) -> bool:
    """A number with no fraction (NaN and the infinities, which the SDK's parser reads, have
    none to test)."""
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, int) and not isinstance(value, bool)


def error(message: str, code: int = INVALID_REQUEST, request_id: Any = None) -> dict[str, Any]:
    """A JSON-RPC error (id null unless given)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
