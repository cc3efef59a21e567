"""The remote transport: a running `gno serve` (or `gno daemon`) over its REST API.

Each operation is ``POST <url>/api/op/<id>`` with the input model as JSON, answered with
the operation's output model (gno/rest/rpc.py), so both transports return the same models.
The token goes as ``X-GNO-Token`` (GNO_API_TOKEN) and as a bearer (the daemon's gateway).
A server that is down or silent is ``ServerUnreachableError`` naming the URL, within
``timeout`` seconds; an error envelope becomes its gno.errors class. A traced read's
``X-GNO-Trace-ID`` answer header is kept as ``last_trace_id``."""

from __future__ import annotations

import json
import socket
from typing import TYPE_CHECKING, Any

from gno_contracts.operations import Operation

from gno.errors import ServerUnreachableError, ValidationError
from gno.sdk.calls import error_from_rest

DEFAULT_TIMEOUT = 30.0
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
    found = {"Content-Type": "application/json", "Accept": "application/json"}
    if token:
        found |= {"X-GNO-Token": token, "Authorization": f"Bearer {token}"}
    return found


def request_body(inp: BaseModel) -> bytes:
    return inp.model_dump_json(exclude_unset=True).encode()


def answer(op: Operation, status: int, content: bytes) -> Any:
    """The output model of a 2xx answer, or the error it carries raised."""
    from gno.services import model

    try:
        body = json.loads(content) if content else None
    except ValueError:
        body = None
    if status >= 400 or body is None:
        raise error_from_rest(status, body)
    return model(op.output_model).model_validate(body)


# httpx writes a request's headers and its body with two sends; without TCP_NODELAY the
# body waits for the server's delayed ACK of the headers (Nagle): 40 ms on many calls.
NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]


def unreachable(url: str, exc: Exception) -> ServerUnreachableError:
    return ServerUnreachableError(f"Cannot reach gno at {url}: {type(exc).__name__}: {exc}")


class RemoteTransport:
    def __init__(self, url: str, token: str | None, timeout: float) -> None:
        import httpx

        self.url = base_url(url)
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
        try:
            reply = self._client.post(f"/api/op/{op.id}", content=request_body(inp))
        except httpx.HTTPError as exc:
            raise unreachable(target, exc) from None
        self.last_trace_id = reply.headers.get(TRACE_HEADER)
        return answer(op, reply.status_code, reply.content)

    def close(self) -> None:
        self._client.close()


class AsyncRemoteTransport:
    def __init__(self, url: str, token: str | None, timeout: float) -> None:
        import httpx

        self.url = base_url(url)
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
        try:
            reply = await self._client.post(f"/api/op/{op.id}", content=request_body(inp))
        except httpx.HTTPError as exc:
            raise unreachable(target, exc) from None
        self.last_trace_id = reply.headers.get(TRACE_HEADER)
        return answer(op, reply.status_code, reply.content)

    async def close(self) -> None:
        await self._client.aclose()
