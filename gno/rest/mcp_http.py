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
  such a request for a notification (202, no answer). JSON that is no JSON-RPC message at
  all (``{"foo": 1}``, ``42``, a ``method`` that is no string…) the SDK refuses with 400
  -32602 and pydantic's validation text: that answer is replaced by stdio's, 400 -32600
  naming what is wrong, with the request's id when it has a usable one. The SDK's refusal
  is recognized by its structure (status, code, id null, and the SDK's own models refusing
  the body), not its wording, which a new release may change.
- One decode per request: ``TransportChecks`` decodes the POST body once and leaves it in the
  scope for the write gate and the egress gate. The SDK decodes the body once more: both of
  its transports read the bytes from ``receive`` and decode them themselves (the handshake-era
  one in ``StreamableHTTPServerTransport._handle_post_request``, the 2026-07-28 one, chosen by
  an ``MCP-Protocol-Version`` header naming a later revision, in ``handle_modern_request``),
  with no way to be handed a decoded message short of replacing those private functions.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import pydantic_core
from gno_contracts.operations import OPERATIONS
from starlette.responses import Response

from gno.core.jsonrpc import error, invalid_request, misread, strict_refusal

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


# The scope keys under which the POST body, decoded once, waits for the gates after the
# first, and whether only Python's lenient parser could read it.
DECODED = "gno.mcp.decoded"
LENIENT_ONLY = "gno.mcp.lenient_only"
UNREADABLE = object()  # a body that is no JSON to any parser: the SDK answers -32700
# JSON only in bytes that are no UTF-8 text (a BOM, UTF-8-encoded surrogates, UTF-16): the
# 2026-07-28 transport reads it, `gno mcp` and the handshake-era transport answer -32700.
NOT_UTF8_TEXT = object()
NOT_TEXT = "Parse error: the body is not JSON text in UTF-8 (without a BOM)"


def decoded(scope: Scope, body: bytes) -> Any:
    """The POST body decoded, or ``UNREADABLE``; decoded on the first call for a request and
    kept in its scope (``body`` is the same bytes for every gate)."""
    if DECODED not in scope:
        scope[DECODED], scope[LENIENT_ONLY] = _decode(body)
    return scope[DECODED]


def _decode(body: bytes) -> tuple[Any, bool]:
    """What either of the SDK's transports would read, and whether it is UTF-8 text only
    Python's parser reads (``StrictRefusals`` answers it as stdio answers the same line): the
    handshake-era one decodes with ``pydantic_core.from_json``, the 2026-07-28 one with
    ``json.loads``, which also reads lone surrogates and nesting past from_json's 200 levels,
    and from bytes a BOM and UTF-8-encoded surrogates: such a body is ``NOT_UTF8_TEXT``,
    refused -32700 before any gate, as stdio refuses the line. Where both read a body they
    read the same value (the last of duplicate keys, escapes decoded), so a gate is never
    blind to a message that a transport dispatches. Only a body neither reads is
    ``UNREADABLE`` (the SDK's -32700)."""
    try:
        return pydantic_core.from_json(body), False
    except ValueError:
        pass
    try:  # as `gno mcp` reads the same line: UTF-8 only, no BOM (gno/mcp/wire.py ``decode``)
        return json.loads(body.decode("utf-8")), True
    except (ValueError, RecursionError):  # RecursionError: nesting past ~1,000 levels
        pass
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        return UNREADABLE, False
    return NOT_UTF8_TEXT, False


def _write_call_id(parsed: Any) -> tuple[bool, Any]:
    """(does the decoded body call a write tool, the id of that call)."""
    for message in parsed if isinstance(parsed, list) else [parsed]:
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            continue
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        # A name that is no string is the SDK's -32602 (a list or an object cannot even be
        # looked up in a set: it was a 500).
        if isinstance(name, str) and name in WRITE_TOOLS:
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
        is_write, request_id = _write_call_id(decoded(scope, body))
        if is_write:
            await forbidden(request_id)(scope, receive, send)
            return
        await self.app(scope, replay, send)


def transport_error(
    status: int, message: str, request_id: Any = None, code: int = -32600
) -> Response:
    """A transport refusal as the SDK words its own: -32600, id null unless given."""
    return Response(
        json.dumps(error(message, code, request_id), separators=(",", ":")).encode(),
        status_code=status,
        media_type="application/json",
    )


INVALID_REQUEST, INVALID_PARAMS = -32600, -32602
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
                message = decoded(scope, body)
                if message is UNREADABLE:  # the SDK's -32700 is the answer
                    await self.app(scope, receive, send)
                    return
                if message is NOT_UTF8_TEXT:
                    await transport_error(400, NOT_TEXT, None, -32700)(scope, receive, send)
                    return
                # A batch, or a request id that is no id (the SDK took such a request for a
                # notification: 202 and no answer).
                if (problem := misread(message)) is not None:
                    await transport_error(400, problem)(scope, receive, send)
                    return
                send = _invalid_request_named(scope, receive, send, message)
        await self.app(scope, receive, send)


class StrictRefusals:
    """A POST body only Python's parser reads (a lone surrogate, nesting past 200 levels),
    answered as stdio answers the same line (``strict_refusal``: a request with a usable id
    gets -32602 naming the place, with its id), where the SDK's handshake-era transport said
    -32700 with id null and its 2026-07-28 one dispatched it. Innermost of gno's gates, so
    the write gate's 403 and the egress gate's answers come first, as for any body. A
    notification or response is left to the SDK (its -32700)."""

    def __init__(self, app: ASGI) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get(LENIENT_ONLY) and (refusal := strict_refusal(scope[DECODED])) is not None:
            request_id, code, words = refusal
            await transport_error(400, words, request_id, code)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _invalid_request_named(scope: Scope, receive: Receive, send: Send, message: Any) -> Send:
    """``send`` that replaces the SDK's refusal of a body that is no JSON-RPC message (400,
    -32602 and pydantic's validation text, or the 2026-07-28 transport's generic -32600) with
    400 -32600 naming what is wrong, as stdio answers it. The SDK decides what is a message;
    gno only words the refusal."""
    held: list[Message] = []
    replaced = False

    async def relay(sent: Message) -> None:
        nonlocal replaced
        if replaced:
            return  # the named refusal is complete: the SDK's is dropped
        if sent["type"] == "http.response.start" and sent.get("status") == 400:
            held.append(sent)
            return
        if held and sent["type"] == "http.response.body":
            start = held.pop()
            answer = sent.get("body", b"")
            if not sent.get("more_body", False) and _sdk_envelope_refusal(scope, message, answer):
                replaced = True
                request_id, problem = invalid_request(message)
                await transport_error(400, problem, request_id)(scope, receive, send)
                return
            await send(start)
        await send(sent)

    return relay


def _sdk_envelope_refusal(scope: Scope, message: Any, answer: bytes) -> bool:
    """Whether a 400 ``answer`` of the SDK is its refusal of ``message`` as no JSON-RPC
    message, known by structure, never by its words (a release that rewords them must not
    let pydantic's text through): the transport that answered, chosen by the SDK's own rule
    (an ``MCP-Protocol-Version`` outside its handshake-era versions goes to the 2026-07-28
    transport), refuses ``message`` with its own models, and the answer is a JSON-RPC error
    with id null and the code that transport gives such a body: -32602 from the
    handshake-era one, -32600 from the 2026-07-28 one. Its other 400s (an unknown tool's
    -32602 has the request's id; the handshake-era "missing session" -32600 follows a body
    it read as a message) are left alone."""
    try:
        answered = pydantic_core.from_json(answer)
    except ValueError:
        return False
    refusal = answered.get("error") if isinstance(answered, dict) else None
    if not isinstance(refusal, dict) or "id" not in answered or answered["id"] is not None:
        return False
    modern = _modern_transport(scope)
    code = INVALID_REQUEST if modern else INVALID_PARAMS
    return refusal.get("code") == code and _sdk_refuses(message, modern=modern)


def _modern_transport(scope: Scope) -> bool:
    """Whether the SDK hands this request to its 2026-07-28 transport: the first
    ``MCP-Protocol-Version`` names no handshake-era version (mcp/server/
    streamable_http_manager.py ``_handle_request``)."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    for name, value in scope.get("headers", []):
        if name == b"mcp-protocol-version":
            return value.decode("latin-1") not in HANDSHAKE_PROTOCOL_VERSIONS
    return False


def _sdk_refuses(message: Any, *, modern: bool) -> bool:
    """Whether the SDK's transport takes ``message`` for no JSON-RPC message, by the models
    it validates with: the handshake-era one any of the four messages
    (``jsonrpc_message_adapter``); the 2026-07-28 one a notification when there is no
    ``id`` member (JSON-RPC §4.1), else a request."""
    from mcp_types import JSONRPCNotification, JSONRPCRequest, jsonrpc_message_adapter
    from pydantic import ValidationError

    try:
        if not modern:
            jsonrpc_message_adapter.validate_python(message, by_name=False)
        elif isinstance(message, dict) and "id" not in message:
            JSONRPCNotification.model_validate(message)
        else:
            JSONRPCRequest.model_validate(message)
    except ValidationError:
        return True
    return False
