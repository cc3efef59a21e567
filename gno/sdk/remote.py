"""The remote transport: a running `gno serve` (or `gno daemon`) over its REST API.

Each operation is ``POST <url>/api/op/<id>`` with the input model as JSON, answered with
the operation's output model (gno/rest/rpc.py), so both transports return the same models.
The token goes as ``X-GNO-Token`` (GNO_API_TOKEN) and as a bearer (the daemon's gateway).
A server that is down or silent is ``ServerUnreachableError`` naming the URL, within
``timeout`` seconds; an error envelope becomes its gno.errors class. A traced read's
``X-GNO-Trace-ID`` answer header is kept as ``last_trace_id``.

Whatever answers at the URL is not trusted: the body is read in pieces and given up past
``max_answer_bytes`` (default ``MAX_ANSWER_BYTES``) or once ``timeout`` seconds have passed since the request (a server
dripping bytes resets no per-read timeout for long); gno asks for no compression, so a
compressed body (a decompression bomb, with httpx's default decoding) is refused unread;
a body that is not JSON, nests deeper than the decoder can, or is not the operation's
output model is ``InvalidServerAnswerError``. httpx follows no redirects, so the token
never goes to another host."""

from __future__ import annotations

import json
import socket
import time
from typing import TYPE_CHECKING, Any

from gno_contracts.operations import Operation

from gno.errors import InvalidServerAnswerError, ServerUnreachableError, ValidationError
from gno.sdk.calls import error_from_rest

DEFAULT_TIMEOUT = 30.0
# Far above any page of results; a whole document rarely nears it. A client that reads whole
# documents near the 100 MiB ingest limit raises it (``Gno(max_answer_bytes=...)``).
MAX_ANSWER_BYTES = 64 << 20
TRACE_HEADER = "X-GNO-Trace-ID"  # the server's retrieval trace of the call (spec/traces.md)

if TYPE_CHECKING:
    from pydantic import BaseModel


def base_url(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValidationError(f"Invalid url: {url!r} is not an http(s) URL")
    return url.rstrip("/")


def headers(token: str | None) -> dict[str, str]:
    found = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Accept-Encoding": "identity",  # gno serve never compresses; see AnswerBody
    }
    if token:
        found |= {"X-GNO-Token": token, "Authorization": f"Bearer {token}"}
    return found


def request_body(inp: BaseModel) -> bytes:
    return inp.model_dump_json(exclude_unset=True).encode()


def answer(op: Operation, status: int, content: bytes, target: str) -> Any:
    """The output model of a 2xx answer, or the error it carries raised."""
    from pydantic import ValidationError as ModelError

    from gno.services import model

    try:
        body = json.loads(content) if content else None
    except (ValueError, RecursionError):  # RecursionError: nested past the decoder's limit
        body = None
    if status >= 400:
        raise error_from_rest(status, body)
    if 300 <= status < 400:  # httpx follows none: the token stays with this host
        raise InvalidServerAnswerError(
            f"{target} answered a redirect (HTTP {status}); gno follows none"
        )
    if body is None:
        raise InvalidServerAnswerError(f"{target} answered HTTP {status} without JSON")
    try:
        return model(op.output_model).model_validate(body)
    except ModelError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the answer"
        raise InvalidServerAnswerError(
            f"{target} answered no valid {op.id} output ({where}: {first['msg']})"
        ) from None


class AnswerBody:
    """Collects an answer's raw pieces, refusing it once it is too large, too late, or
    compressed. Raw pieces: httpx would otherwise inflate a gzip body as it reads, and a
    few KB can inflate to gigabytes; gno asked for none, so any encoding is refused."""

    def __init__(self, target: str, reply: Any, timeout: float, started: float, cap: int) -> None:
        self.target = target
        self.cap = cap
        self.deadline = started + timeout
        self.timeout = timeout
        self.pieces: list[bytes] = []
        self.size = 0
        encoding = reply.headers.get("Content-Encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise InvalidServerAnswerError(
                f"{target} answered with Content-Encoding {encoding[:40]!r}; gno asked for none"
            )

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.size > self.cap:
            raise InvalidServerAnswerError(f"{self.target} answered more than {self.cap} bytes")
        if time.monotonic() > self.deadline:
            raise ServerUnreachableError(
                f"Cannot reach gno at {self.target}: no whole answer within {self.timeout} s"
            )
        self.pieces.append(piece)

    def content(self) -> bytes:
        return b"".join(self.pieces)


# httpx writes a request's headers and its body with two sends; without TCP_NODELAY the
# body waits for the server's delayed ACK of the headers (Nagle): 40 ms on many calls.
NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]


def answer_cap(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(f"Invalid max_answer_bytes: {value!r} is not a positive integer")
    return value


def unreachable(url: str, exc: Exception) -> ServerUnreachableError:
    return ServerUnreachableError(f"Cannot reach gno at {url}: {type(exc).__name__}: {exc}")


class RemoteTransport:
    def __init__(
        self, url: str, token: str | None, timeout: float, cap: int = MAX_ANSWER_BYTES
    ) -> None:
        import httpx

        self.url = base_url(url)
        self.timeout = timeout
        self.cap = answer_cap(cap)
        self.last_trace_id: str | None = None
        self._client = httpx.Client(
            base_url=self.url,
            headers=headers(token),
            timeout=timeout,
            trust_env=False,
            transport=httpx.HTTPTransport(socket_options=NODELAY),
        )

    def call(self, op: Operation, inp: BaseModel) -> Any:
        import httpx

        target = f"{self.url}/api/op/{op.id}"
        started = time.monotonic()
        try:
            with self._client.stream(
                "POST", f"/api/op/{op.id}", content=request_body(inp)
            ) as reply:
                body = AnswerBody(target, reply, self.timeout, started, self.cap)
                for piece in reply.iter_raw():
                    body.add(piece)
        except httpx.HTTPError as exc:
            raise unreachable(target, exc) from None
        self.last_trace_id = reply.headers.get(TRACE_HEADER)
        return answer(op, reply.status_code, body.content(), target)

    def close(self) -> None:
        self._client.close()


class AsyncRemoteTransport:
    def __init__(
        self, url: str, token: str | None, timeout: float, cap: int = MAX_ANSWER_BYTES
    ) -> None:
        import httpx

        self.url = base_url(url)
        self.timeout = timeout
        self.cap = answer_cap(cap)
        self.last_trace_id: str | None = None
        self._client = httpx.AsyncClient(
            base_url=self.url,
            headers=headers(token),
            timeout=timeout,
            trust_env=False,
            transport=httpx.AsyncHTTPTransport(socket_options=NODELAY),
        )

    async def call(self, op: Operation, inp: BaseModel) -> Any:
        import httpx

        target = f"{self.url}/api/op/{op.id}"
        started = time.monotonic()
        path = f"/api/op/{op.id}"
        try:
            async with self._client.stream("POST", path, content=request_body(inp)) as reply:
                body = AnswerBody(target, reply, self.timeout, started, self.cap)
                async for piece in reply.aiter_raw():
                    body.add(piece)
        except httpx.HTTPError as exc:
            raise unreachable(target, exc) from None
        self.last_trace_id = reply.headers.get(TRACE_HEADER)
        return answer(op, reply.status_code, body.content(), target)

    async def close(self) -> None:
        await self._client.aclose()
