"""The request gates (gno/rest/security.py) and WebSocket handshakes: no route of gno is a
WebSocket, and a handshake is not checked by CORS, so a page of any site may open one to
127.0.0.1. The gate refuses every handshake before an app behind it sees it, whatever its
Host and Origin; an HTTP request and the lifespan still pass."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

import pytest

from gno.rest.security import GateMiddleware, Gates

PORT = 8765


class Recorder:
    """An ASGI app that accepts any WebSocket and sends a secret; records what reached it."""

    def __init__(self) -> None:
        self.scopes: list[str] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.scopes.append(scope["type"])
        if scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": "secret"})
            await send({"type": "websocket.close", "code": 1000})
        elif scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})


def _call(scope: dict[str, Any], first: dict[str, Any]) -> tuple[Recorder, list[dict[str, Any]]]:
    inner = Recorder()
    gate = GateMiddleware(inner, Gates(port=PORT))
    sent: list[dict[str, Any]] = []
    messages = [first]

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop(0)
        await asyncio.sleep(3600)  # nothing more comes from this client
        raise AssertionError("unreachable")

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))

    asyncio.run(asyncio.wait_for(gate(scope, receive, send), 10))
    return inner, sent


def _scope(kind: str, path: str, host: str, origin: str | None) -> dict[str, Any]:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    scope: dict[str, Any] = {
        "type": kind,
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "scheme": "ws" if kind == "websocket" else "http",
    }
    if kind == "http":
        scope["method"] = "GET"
    return scope


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("evil.example", "http://evil.example"),  # a DNS-rebinding page
        (f"127.0.0.1:{PORT}", "http://evil.example"),  # any page opening ws://127.0.0.1
        (f"127.0.0.1:{PORT}", None),
    ],
)
@pytest.mark.parametrize("path", ["/mcp/", "/api/status", "/"])
def test_a_websocket_handshake_never_reaches_the_app(
    path: str, host: str, origin: str | None
) -> None:
    inner, sent = _call(_scope("websocket", path, host, origin), {"type": "websocket.connect"})
    assert inner.scopes == []
    assert sent == [{"type": "websocket.close", "code": 1008}]


def test_http_requests_still_pass_the_gate() -> None:
    inner, sent = _call(
        _scope("http", "/api/status", f"127.0.0.1:{PORT}", None),
        {"type": "http.request", "body": b"", "more_body": False},
    )
    assert inner.scopes == ["http"]
    assert sent[0]["status"] == 200
    refused, answer = _call(
        _scope("http", "/api/status", "evil.example", None),
        {"type": "http.request", "body": b"", "more_body": False},
    )
    assert refused.scopes == [] and answer[0]["status"] == 403
