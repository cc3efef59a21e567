"""What `/mcp` of `gno serve` (a real uvicorn on 127.0.0.1, writes off) answers a POST body
that is JSON but no JSON-RPC message, how often the body is decoded, and that a body too
deeply nested for the decoder is a parse error, never a 500 (gno/rest/mcp_http.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pydantic_core
import pytest

from gno.app import App
from gno.paths import resolve_paths
from tests.conftest import sync
from tests.live_server import DEADLINE, live_server

pytest.importorskip("mcp")
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "body-test", "version": "0"},
    },
}
INVALID_REQUEST, PARSE_ERROR = -32600, -32700


@pytest.fixture
def mcp(make_app: Any) -> Iterator[tuple[httpx.Client, dict[str, str]]]:
    """A client of `/mcp` and the headers of an initialized session."""
    from gno.mcp.hosting import http_app
    from gno.rest.app import ServeOptions, create_app

    app, _ = make_app({"sampling.md": "# Tail sampling\n\nKeep only slow traces.\n"})
    sync(app)
    api = create_app(
        App(resolve_paths()), options=ServeOptions(mcp=http_app, watch=False, web_ui=False)
    )
    with live_server(api) as (url, _), httpx.Client(base_url=url, timeout=DEADLINE) as http:
        opened = http.post("/mcp", json=INIT, headers=ACCEPT)
        assert opened.status_code == 200, opened.text
        headers = ACCEPT | {"Mcp-Session-Id": opened.headers["mcp-session-id"]}
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post("/mcp", json=done, headers=headers).status_code == 202
        yield http, headers


def _answer(response: httpx.Response) -> dict[str, Any]:
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def _call(rid: int, name: str, arguments: Any) -> bytes:
    params = {"name": name, "arguments": arguments}
    message = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
    return json.dumps(message).encode()


# (body, the id answered, the start of the message): the first thing wrong, named; the
# request's id when it is usable (never a response's: that id is one of ours).
IR = "Invalid Request: "
NOT_MESSAGES = [
    (b'{"foo": 1}', None, IR + '"jsonrpc" must be "2.0"'),
    (b"[]", None, IR + "JSON-RPC batches are not supported"),
    (b"42", None, IR + "a JSON-RPC message must be a JSON object"),
    (b'"x"', None, IR + "a JSON-RPC message must be a JSON object"),
    (b"null", None, IR + "a JSON-RPC message must be a JSON object"),
    (b'{"jsonrpc":"2.0"}', None, IR + 'no "method"'),
    (b'{"jsonrpc":"2.0","method":5,"id":1}', 1, IR + '"method" must be a string'),
    (b'{"jsonrpc":"1.0","method":"ping","id":"a"}', "a", IR + '"jsonrpc" must be "2.0"'),
    (b'{"jsonrpc":"2.0","method":"ping","id":7,"params":[1]}', 7, IR + '"params" must be'),
    (b'{"jsonrpc":"2.0","method":"notifications/x","params":5}', None, IR + '"params" must'),
    (b'{"jsonrpc":"2.0","id":9,"result":5}', None, IR + '"result" must be an object'),
    (b'{"jsonrpc":"2.0","id":9,"error":{"code":"x"}}', None, IR + '"error" must be an object'),
    (b'{"jsonrpc":"2.0","result":{}}', None, IR + 'a response needs the "id"'),
]


def test_json_that_is_no_json_rpc_message_is_400_invalid_request(
    mcp: tuple[httpx.Client, dict[str, str]],
) -> None:
    """It was 400 `-32602` "Validation error: 11 validation errors for union[…]" with
    pydantic's text and id null: now `-32600` naming what is wrong, as stdio words it."""
    http, headers = mcp
    for body, rid, message in NOT_MESSAGES:
        refused = http.post("/mcp", content=body, headers=headers)
        assert refused.status_code == 400, (body, refused.status_code, refused.text)
        answer = refused.json()
        assert answer["jsonrpc"] == "2.0" and answer["id"] == rid, (body, answer)
        assert answer["error"]["code"] == INVALID_REQUEST, (body, answer)
        assert answer["error"]["message"].startswith(message), (body, answer)
        assert "alidation" not in answer["error"]["message"], (body, answer)
    ping = http.post("/mcp", json={"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers=headers)
    assert ping.status_code == 200 and _answer(ping) == {"jsonrpc": "2.0", "id": 3, "result": {}}


def test_the_2026_07_28_transport_names_what_is_wrong_too(
    mcp: tuple[httpx.Client, dict[str, str]],
) -> None:
    """An `MCP-Protocol-Version` after the handshake era routes a POST to the SDK's other
    transport, which answered every such body `-32600` "Body must be a single JSON-RPC
    request or notification object" with id null: now the same named answer. Its other
    400s (an unknown tool's `-32602`) are left as they are."""
    http, _ = mcp
    modern = ACCEPT | {"MCP-Protocol-Version": "2026-07-28"}
    for body, rid, message in [
        (b'{"jsonrpc":"2.0","method":5,"id":1}', 1, IR + '"method" must be a string'),
        (b'{"foo": 1}', None, IR + '"jsonrpc" must be "2.0"'),
        (b'{"jsonrpc":"2.0","id":3,"result":{}}', None, IR + "the body must be a request"),
    ]:
        refused = http.post("/mcp", content=body, headers=modern)
        assert refused.status_code == 400, (body, refused.status_code, refused.text)
        answer = refused.json()
        assert answer["id"] == rid and answer["error"]["code"] == INVALID_REQUEST, answer
        assert answer["error"]["message"].startswith(message), (body, answer)
    unknown = http.post("/mcp", content=_call(2, "gno_no_such_tool", {}), headers=modern)
    assert unknown.json()["error"]["code"] != INVALID_REQUEST, unknown.text


def test_the_sdks_refusal_is_known_by_its_shape_not_its_words(
    mcp: tuple[httpx.Client, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """gno recognized the SDK's refusal by its wording ("Validation error: …", "Body must be
    a single JSON-RPC request…"): a release rewording it would have let pydantic's text
    through. With both transports' words changed here, as a new release might, the answers
    are gno's named -32600 still."""
    from mcp.server import _streamable_http_modern as modern_transport
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from mcp_types import ErrorData, JSONRPCError

    refuse = StreamableHTTPServerTransport._create_error_response

    def reworded(self: Any, words: str, *args: Any, **kwargs: Any) -> Any:
        return refuse(self, "Rejected: " + words[::-1], *args, **kwargs)

    monkeypatch.setattr(StreamableHTTPServerTransport, "_create_error_response", reworded)
    words = ErrorData(code=INVALID_REQUEST, message="Rejected: not one message")
    monkeypatch.setattr(
        modern_transport, "_INVALID_BODY", JSONRPCError(jsonrpc="2.0", id=None, error=words)
    )
    http, headers = mcp
    modern = ACCEPT | {"MCP-Protocol-Version": "2026-07-28"}
    for sent in (modern, headers):
        for body, rid, message in NOT_MESSAGES:
            refused = http.post("/mcp", content=body, headers=sent)
            assert refused.status_code == 400, (body, refused.status_code, refused.text)
            answer = refused.json()
            assert answer["id"] == rid and answer["error"]["code"] == INVALID_REQUEST, answer
            assert answer["error"]["message"].startswith(message), (body, answer)
    # The SDK's other refusals keep their (changed) words: a message with no session.
    ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
    lost = http.post("/mcp", json=ping, headers=ACCEPT)
    assert lost.status_code == 400 and lost.json()["error"]["message"].startswith("Rejected: ")


def test_a_body_nested_too_deep_is_a_parse_error_not_a_500(
    mcp: tuple[httpx.Client, dict[str, str]],
) -> None:
    """The write gate decoded with Python's json (RecursionError past ~1,000 levels, not
    caught): 500 RUNTIME. It now decodes as the SDK does, whose nesting limit makes the
    body a parse error: 400 `-32700`, for a read tool's call and a write tool's."""
    http, headers = mcp
    deep = json.loads("[" * 150 + "]" * 150)  # within json.dumps' own recursion
    for name in ("gno_search", "gno_capture"):
        body = _call(4, name, {"query": "x"}).replace(b'"x"', b"[" * 5000 + b"]" * 5000)
        refused = http.post("/mcp", content=body, headers=headers)
        assert refused.status_code == 400, (name, refused.status_code, refused.text[:300])
        assert refused.json()["error"]["code"] == PARSE_ERROR and refused.json()["id"] is None
    # Nesting the SDK reads is served: the tool itself refuses it (spec/mcp.md, 64 levels).
    served = http.post("/mcp", content=_call(5, "gno_search", {"query": deep}), headers=headers)
    assert served.status_code == 200 and _answer(served)["id"] == 5


def test_the_write_gate_reads_what_the_sdk_reads(
    mcp: tuple[httpx.Client, dict[str, str]],
) -> None:
    """A write tool named through an escape, or as the last of duplicate keys (the one the
    SDK keeps), is refused 403 before dispatch like a plain one, on both of the SDK's
    transports, also in a body only the 2026-07-28 one reads (a lone surrogate)."""
    http, headers = mcp
    capture = {"collection": "notes", "content": "x"}
    lone = {"collection": "notes", "content": "\ud800"}  # json.dumps keeps it escaped
    bodies = [
        _call(6, "gno_capture", capture),
        _call(6, "gno_capture", lone),  # from_json refuses it, json.loads reads it
        _call(6, "gno_capture", capture).replace(b"gno_capture", b"gno\\u005fcapture"),
        _call(6, "gno_capture", capture).replace(b"tools/call", b"tools\\/call"),
        _call(6, "gno_search", capture).replace(
            b'"name": "gno_search"', b'"name": "gno_search", "name": "gno_capture"'
        ),
    ]
    modern = ACCEPT | {"MCP-Protocol-Version": "2026-07-28"}  # decodes with json.loads
    for body, sent in [(b, h) for b in bodies for h in (headers, modern)]:
        refused = http.post("/mcp", content=body, headers=sent)
        assert refused.status_code == 403, (body, refused.status_code, refused.text[:300])
        assert refused.json() == {
            "jsonrpc": "2.0",
            "error": {"code": -32000, "message": "Forbidden"},
            "id": 6,
        }


def test_gno_decodes_the_body_once(
    mcp: tuple[httpx.Client, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With writes off a tool call's body was decoded three times (the transport checks,
    the write gate, the SDK); now once by gno's gates together and once by the SDK, whose
    transport decodes the bytes it reads itself. A refused write call never reaches the
    SDK: one decode."""
    http, headers = mcp
    read = _call(8, "gno_status", {})
    write = _call(9, "gno_capture", {"collection": "notes", "content": "x"})
    counts = {read: 0, write: 0}

    def counting(decode: Any) -> Any:
        def counted(data: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(data, bytes) and data in counts:
                counts[data] += 1
            return decode(data, *args, **kwargs)

        return counted

    monkeypatch.setattr(json, "loads", counting(json.loads))
    monkeypatch.setattr(pydantic_core, "from_json", counting(pydantic_core.from_json))
    served = http.post("/mcp", content=read, headers=headers)
    assert served.status_code == 200 and _answer(served)["result"]["isError"] is False
    refused = http.post("/mcp", content=write, headers=headers)
    assert refused.status_code == 403, refused.text
    assert counts == {read: 2, write: 1}
