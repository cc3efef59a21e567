"""JSON-RPC errors for what the MCP SDK cannot read, and for handler failures.

The SDK hands a line it cannot decode to the session as an exception, and the session
drops it: the client waits forever for its answer. So `gno mcp` reads the client's lines
itself (``read_lines``) and ``stdio_relay`` decodes each as the SDK's stdio transport
does, hands the server what it can use and answers the rest itself, as JSON-RPC says:

- a line longer than ``MAX_MESSAGE_BYTES``: -32600 (id null), read to its end in pieces
  and dropped (held whole, a 100 MB line took 1.1 GB to parse and answer);
- not JSON at all, or no UTF-8: -32700 (id null);
- a batch (a JSON array), or a request whose id is no string or integer (the SDK took it
  for a notification and never answered): -32600, id null (gno/core/jsonrpc.py);
- JSON, but no JSON-RPC request (not an object, bad ``jsonrpc``/``id``/``method``/
  ``params``): -32600 naming what is wrong (``invalid_request``, the words `/mcp` uses),
  with the request's id when it has a usable one;
- a request the SDK's strict parser refused while Python's accepts it (a lone UTF-16
  surrogate, nesting past 200 levels): -32602 naming the place, with the request's id, as
  `/mcp` answers it (``strict_refusal``); a lone surrogate in the id makes it no id (-32600,
  id null: an answer echoing it cannot be written);
- a notification (no id) or a stray response: no answer, as JSON-RPC wants.

``guarded`` turns an unexpected exception of a request handler into -32603 with a fixed
message (the SDK would send code 0 and the exception's text); the trace goes to stderr.
"""

from __future__ import annotations

import functools
import json
import sys
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, BinaryIO, TypeVar

import anyio
import mcp_types as t
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic_core import from_json

from gno.core.jsonrpc import MAX_MESSAGE_BYTES, invalid_request, misread, strict_refusal

INTERNAL_MESSAGE = "Internal error; the server log has the details"
OVERLONG = f"Invalid Request: the line is longer than {MAX_MESSAGE_BYTES} bytes"
SKIP_CHUNK = 1024 * 1024  # an overlong line is read and dropped this much at a time
R = TypeVar("R")


def _reply(request_id: Any, code: int, message: str) -> SessionMessage:
    error = t.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=t.ErrorData(code=code, message=message)
    )
    return SessionMessage(error)


def error_reply(failure: Undecodable) -> SessionMessage | None:
    """The answer to a line the SDK could not decode, or None when none is due."""
    errors = failure.reason.errors() if hasattr(failure.reason, "errors") else []
    # The SDK's strict parser refused the text: Python's more lenient one may still read it.
    strict_refused = any(e.get("type") == "json_invalid" for e in errors)
    try:
        parsed = json.loads(failure.text) if strict_refused else from_json(failure.text)
    except (ValueError, RecursionError):
        return _reply(None, t.PARSE_ERROR, "Parse error: the line is not JSON")
    if strict_refused:  # answered as `/mcp` answers the same body (gno/rest/mcp_http.py)
        refusal = strict_refusal(parsed)
        return _reply(*refusal) if refusal is not None else None
    if misread(parsed) is not None or not isinstance(parsed, dict):
        return _reply(*_invalid(parsed))
    if "method" not in parsed and ("result" in parsed or "error" in parsed):
        return None  # a malformed response to one of ours: nobody waits for an answer
    if "id" not in parsed and isinstance(parsed.get("method"), str):
        return None  # a notification: never answered
    return _reply(*_invalid(parsed))


def _invalid(message: Any) -> tuple[Any, int, str]:
    """-32600 naming what is wrong, in the words `/mcp` uses (gno/rest/mcp_http.py)."""
    request_id, problem = invalid_request(message)
    return request_id, t.INVALID_REQUEST, problem


# How long `gno mcp` keeps answering requests it already read once stdin is closed.
DRAIN_SECONDS = 300.0


class Pending:
    """Requests handed to the server and not answered yet. When the client closes stdin
    right after writing its requests, the server must still answer them before it stops
    (the SDK's session ends, and cancels its handlers, as soon as its input ends)."""

    def __init__(self) -> None:
        self.ids: set[Any] = set()
        self._idle = anyio.Event()
        self._idle.set()

    def add(self, request_id: Any) -> None:
        self.ids.add(request_id)
        self._idle = anyio.Event()

    def answered(self, request_id: Any) -> None:
        self.ids.discard(request_id)
        if not self.ids:
            self._idle.set()

    async def drained(self, seconds: float = DRAIN_SECONDS) -> None:
        with anyio.move_on_after(seconds):
            await self._idle.wait()


async def read_lines(
    stream: BinaryIO, limit: int = MAX_MESSAGE_BYTES
) -> AsyncIterator[bytes | None]:
    """The client's lines (on a worker thread: reads block); None for a line longer than
    ``limit`` bytes, which is read to its end ``SKIP_CHUNK`` at a time and never held."""
    while line := await anyio.to_thread.run_sync(stream.readline, limit + 1):
        if len(line) <= limit or line.endswith(b"\n"):  # at most ``limit`` bytes and "\n"
            yield line
            continue
        rest = line
        while rest and not rest.endswith(b"\n"):
            rest = await anyio.to_thread.run_sync(stream.readline, SKIP_CHUNK)
        yield None


class Misread(Exception):
    """A request the SDK decodes as something else (gno/core/jsonrpc.py ``misread``)."""


class NotUtf8(Exception):
    """A line that is no UTF-8."""


class Undecodable(Exception):
    """A line the SDK cannot decode as a message: its text and the SDK's reason. The text
    is decoded again to word the answer (the SDK's errors show the value that failed, which
    for a JSON string is no different from the line itself)."""

    def __init__(self, text: str, reason: Exception) -> None:
        super().__init__("the SDK cannot decode the line")
        self.text, self.reason = text, reason


def decode(line: bytes) -> SessionMessage | Misread | Undecodable | NotUtf8:
    """A line as the SDK's stdio transport decodes it, or the reason it cannot; a request the
    SDK would misread as a notification is refused here. A line that is no UTF-8 (JSON text
    is) is refused too: the SDK replaced the bytes with U+FFFD and served the request (a
    capture stored the replacement), where `/mcp` answers the same body -32700."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return NotUtf8()
    try:
        message = t.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except Exception as exc:
        return Undecodable(text, exc)
    # A notification with an "id" is a request the SDK misread. The key is looked for in the
    # bytes (requests, the common case, are never decoded twice); it can only be spelled
    # otherwise with a \u escape, so a line holding one is decoded to be sure.
    if isinstance(message, t.JSONRPCNotification) and (b'"id"' in line or b"\\u" in line):
        try:
            problem = misread(json.loads(text))
        except (ValueError, RecursionError):
            problem = None
        if problem is not None:
            return Misread(problem)
    return SessionMessage(message)


async def stdio_relay(
    lines: AsyncIterator[bytes | None],
    write: Any,
    inbound: anyio.abc.ObjectSendStream[SessionMessage | Exception],
    pending: Pending | None = None,
) -> None:
    """Forward decoded messages to the server; answer the lines it cannot use on ``write``.
    At the end of stdin, wait for the answers of the requests already forwarded."""
    async with inbound:
        async for line in lines:
            item = decode(line) if line is not None else None
            if not isinstance(item, SessionMessage):
                reply = _refusal(item)
                if reply is not None:
                    try:
                        await write.send(reply)
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        return
                continue
            if pending is not None and isinstance(item.message, t.JSONRPCRequest):
                pending.add(item.message.id)
            await inbound.send(item)
        if pending is not None:
            await pending.drained()


def _refusal(failure: Misread | Undecodable | NotUtf8 | None) -> SessionMessage | None:
    """The answer to an overlong line (None), a misread request or an undecodable line."""
    if failure is None:
        return _reply(None, t.INVALID_REQUEST, OVERLONG)
    if isinstance(failure, NotUtf8):
        return _reply(None, t.PARSE_ERROR, "Parse error: the line is not UTF-8")
    if isinstance(failure, Misread):
        return _reply(None, t.INVALID_REQUEST, str(failure))
    return error_reply(failure)


async def answer_relay(
    answers: anyio.abc.ObjectReceiveStream[SessionMessage],
    write: Any,
    pending: Pending,
    answered: tuple[Any, dict[str, Any]] | None = None,
) -> None:
    """The server's messages to ``write``, noting which requests got their answer; closes
    ``write`` when the server closed its end (the transport then flushes and ends).
    ``answered``: (id, answer) of the `initialize` gno already answered (gno/mcp/early.py):
    the server's own answer to it is compared, not sent."""
    async with answers, write:
        async for message in answers:
            reply = message.message
            answer_id = reply.id if isinstance(reply, t.JSONRPCResponse | t.JSONRPCError) else None
            is_answer = answer_id is not None
            if answered is not None and is_answer and answer_id == answered[0]:
                sent = json.loads(reply.model_dump_json(by_alias=True, exclude_unset=True))
                if sent != answered[1]:  # the early answer was not what the SDK says
                    print(f"gno mcp: early initialize answer differs: {sent!r}", file=sys.stderr)
                answered = None
            else:
                await write.send(message)
            if is_answer:
                pending.answered(answer_id)


def guarded(handler: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """A request handler whose unexpected failures are -32603, never code 0 with a trace."""

    @functools.wraps(handler)
    async def run(*args: Any, **kwargs: Any) -> R:
        try:
            return await handler(*args, **kwargs)
        except MCPError:
            raise
        except Exception:
            traceback.print_exc(file=sys.stderr)  # stdout belongs to the protocol
            raise MCPError(code=t.INTERNAL_ERROR, message=INTERNAL_MESSAGE) from None

    return run
