"""What `/mcp` answers before the MCP SDK sees a request (surfaces.md §3.6).

- ``/mcp`` itself is served, not redirected: Starlette's mount matches ``/mcp/…`` only
  and answers ``/mcp`` with a 307 that a client which does not follow redirects (or
  will not re-send a POST body) treats as a failure. ``ExactPath`` hands the request
  to the mounted app as if it were ``/mcp/``.
- The write gate: with writes off, a ``tools/call`` of a write tool is refused with
  HTTP 403 and ``mcp-http-error@1.0`` (``-32000 Forbidden``, the request's id) before
  dispatch, as GNO does, instead of reaching the SDK, which would answer 200 with
  ``-32602`` (stdio keeps that answer: it has no HTTP status). Only POST bodies are
  read, already capped by the gate middleware's body limit; the body is replayed to
  the SDK unchanged.
- Transport checks the SDK answers badly (``TransportChecks``): a ``Last-Event-ID``
  (stream resumption: gno keeps no event store) is 400, where the SDK returned without
  an answer and the server sent 500; a POST whose ``Content-Type`` is not
  ``application/json`` is 415, where the SDK answered 400 in plain text. Both are JSON-RPC
  errors (-32600, id null) like the SDK's other transport refusals. A POST body is read
  whole before the SDK, so the body limit's 413 is the answer to one too large. A batch (a
  JSON array) or a request whose id is no string or integer is 400 -32600 (id null), as on
  stdio (gno/core/jsonrpc.py): the SDK answered a batch -32602 with pydantic's text and took
  such a request for a notification (202, no answer).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from gno_contracts.operations import OPERATIONS
from starlette.responses import Response

from gno.core.jsonrpc import error, misread

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGI = Callable[[Scope, Receive, Send], Awaitable[None]]

WRITE_TOOLS = frozenset(
    op.mcp.tool for op in OPERATIONS if op.mcp is not None and op.access == "write"
)


class ExactPath:
    """``/mcp`` (no trailing slash) served by the app mounted at ``/mcp``."""

    def __init__(self, app: ASGI, mount: str = "/mcp") -> None:
        self.app, self.mount = app, mount

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        child = dict(scope)
        child["path"] = self.mount + "/"
        child["raw_path"] = child["path"].encode()
        child["root_path"] = scope.get("root_path", "") + self.mount
        await self.app(child, receive, send)


def _write_call_id(body: bytes) -> tuple[bool, Any]:
    """(does the body call a write tool, the id of that call); unparsable bodies are the
    SDK's to answer."""
    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return False, None
    for message in parsed if isinstance(parsed, list) else [parsed]:
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            continue
        params = message.get("params")
        if isinstance(params, dict) and params.get("name") in WRITE_TOOLS:
            request_id = message.get("id")
            return True, request_id if isinstance(request_id, str | int) else None
    return False, None


def forbidden(request_id: Any) -> Response:
    body = {"jsonrpc": "2.0", "error": {"code": -32000, "message": "Forbidden"}, "id": request_id}
    return Response(
        json.dumps(body, separators=(",", ":")).encode(),
        status_code=403,
        media_type="application/json",
    )


async def buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body (already bounded by the security middleware's body limit),
    and a ``receive`` that hands the app the same messages again before any later ones."""
    messages: list[Message] = []
    chunks: list[bytes] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break

    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return b"".join(chunks), replay


class WriteGate:
    """Refuses write-tool calls with HTTP 403 while writes are off; passes the rest."""

    def __init__(self, app: ASGI, *, enable_write: bool) -> None:
        self.app, self.enable_write = app, enable_write

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.enable_write or scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body, replay = await buffered(receive)
        is_write, request_id = _write_call_id(body)
        if is_write:
            await forbidden(request_id)(scope, receive, send)
            return
        await self.app(scope, replay, send)


def transport_error(status: int, message: str) -> Response:
    """A transport refusal as the SDK words its own: -32600 with id null."""
    return Response(
        json.dumps(error(message), separators=(",", ":")).encode(),
        status_code=status,
        media_type="application/json",
    )


RESUMPTION = "Bad Request: resuming a stream (Last-Event-ID) is not supported"
MEDIA_TYPE = "Unsupported Media Type: Content-Type must be application/json"


class TransportChecks:
    """GNO's 400 for ``Last-Event-ID`` and 415 for a POST body that is not JSON
    (surfaces.md §3.6), before the SDK sees the request."""

    def __init__(self, app: ASGI) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers: dict[bytes, bytes] = {}
            for name, value in scope.get("headers", []):
                headers.setdefault(name, value)  # the first of each, as the SDK reads them
            if b"last-event-id" in headers:
                await transport_error(400, RESUMPTION)(scope, receive, send)
                return
            media = headers.get(b"content-type", b"").decode("latin-1").lower()
            # The SDK's own test (mcp/server/transport_security.py): a prefix, parameters allowed.
            if scope.get("method") == "POST" and not media.startswith("application/json"):
                await transport_error(415, MEDIA_TYPE)(scope, receive, send)
                return
            if scope.get("method") == "POST":
                # Read whole here, so a body past the limit fails here: read inside the SDK's
                # Starlette app, its error middleware answered 500 before the limit's 413.
                body, receive = await buffered(receive)
                if (problem := _misread(body)) is not None:
                    await transport_error(400, problem)(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def _misread(body: bytes) -> str | None:
    """Why the SDK would misread this body (a batch, a request id that is no id: it took
    such a request for a notification, 202 and no answer); None for the SDK to answer,
    a body that is not JSON included (its -32700)."""
    try:
        return misread(json.loads(body))
    except (ValueError, RecursionError):
        return None
