"""The MCP server against hostile clients (issue 10), as real processes:

- over stdio every request gets an answer: a line that is not JSON is -32700, JSON that
  is not a JSON-RPC request -32600, a lone surrogate in the params -32602 (with the
  request's id), and a malformed ``resources/list`` cursor -32602, never code 0 with a
  Python message; the session goes on serving afterwards;
- a write-enabled client can neither store a collection's ``updateCmd`` nor run one
  (``gno_add_collection`` with ``updateCmd``, ``gno_sync``/``gno_index`` with
  ``runUpdateCmd: true``): only the CLI, run by the user, runs it. Over stdio and over
  `/mcp` of `gno serve`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from contract_helpers import GNO, run_gno, write_tree
from mcp_raw import (
    DEADLINE,
    HTTP_HEADERS,
    INITIALIZE,
    code_and_id,
    indexed_notes,
    raw_http,
    raw_stdio,
)
from rest_helpers import running

from gno.core.jsonrpc import MAX_MESSAGE_BYTES

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

PARSE, INVALID_REQUEST, INVALID_PARAMS, INTERNAL = -32700, -32600, -32602, -32603


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    corpus = indexed_notes(tmp_path_factory.mktemp("mcp-hardening"))
    root, env = corpus["root"], corpus["env"]
    # Set by the user through the CLI (after the CLI's own sync): no tool may run it.
    scripted = write_tree(root / "corpus" / "scripted", {"s.md": "# S\n"})
    marker = root / "ran-update-cmd"
    done = run_gno(
        env, "collection", "add", str(scripted), "--name", "scripted",
        "--update", f"touch {marker}", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return corpus | {"notes": root / "corpus" / "notes", "marker": marker}


def _error(answer: dict[str, Any], code: int, request_id: Any) -> str:
    assert answer.get("id") == request_id, answer
    assert "result" not in answer, answer
    assert answer["error"]["code"] == code, answer
    message = answer["error"]["message"]
    assert message and "Traceback" not in message
    return message


def test_stdio_answers_every_malformed_request_with_a_json_rpc_code(
    corpus: dict[str, Any],
) -> None:
    call = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"gno_search","arguments":{"query":"%s"}}}'
    with raw_stdio(corpus) as session:
        session.send((call % ("5", "\\ud800")).encode())
        _error(session.answer(), INVALID_PARAMS, 5)
        session.send((call % ('"s-6"', "light\\udfffhouse")).encode())
        _error(session.answer(), INVALID_PARAMS, "s-6")
        session.send(b"{not json")
        _error(session.answer(), PARSE, None)
        session.send(b'{"jsonrpc":"2.0","id":8}')
        _error(session.answer(), INVALID_REQUEST, 8)
        session.send(b"[1, 2]")
        _error(session.answer(), INVALID_REQUEST, None)
        session.send(b'{"jsonrpc":"2.0","id":9,"method":"tools/list","params":7}')
        _error(session.answer(), INVALID_REQUEST, 9)
        for i, cursor in enumerate(["\u00b2", "9" * 5000, "-1", "abc"]):
            session.send(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": 20 + i,
                        "method": "resources/list",
                        "params": {"cursor": cursor},
                    }
                ).encode()
            )
            message = _error(session.answer(), INVALID_PARAMS, 20 + i)
            assert "cursor" in message.lower()
        # the session goes on serving
        session.send((call % ("30", "lighthouse")).encode())
        answer = session.answer()
        assert answer["id"] == 30 and not answer["result"]["isError"], answer


BAD_IDS = ["{}", "[1]", "true", "1.5", "null"]


def test_stdio_answers_bad_ids_and_batches(corpus: dict[str, Any]) -> None:
    """A request whose id is no string or integer was taken by the SDK for a notification
    and never answered. Now it is -32600 with id null (gno/core/jsonrpc.py), a batch too,
    and the session goes on serving."""
    with raw_stdio(corpus) as session:
        for bad in BAD_IDS:
            session.send(b'{"jsonrpc":"2.0","id":%s,"method":"ping"}' % bad.encode())
            assert "id" in _error(session.answer(), INVALID_REQUEST, None), bad
        session.send(b'[{"jsonrpc":"2.0","id":3,"method":"ping"}]')
        assert "batch" in _error(session.answer(), INVALID_REQUEST, None)
        notification = (
            b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}'
        )
        session.send(notification)  # no answer
        session.send(b'{"jsonrpc":"2.0","id":5,"method":"ping"}')
        assert session.answer() == {"jsonrpc": "2.0", "id": 5, "result": {}}


def test_stdio_refuses_an_overlong_line_unread(corpus: dict[str, Any]) -> None:
    """A line of any length was read whole and answered (100 MB: 1.1 GB of memory). One
    past MAX_MESSAGE_BYTES is -32600 with id null, read to its end and dropped; the
    session goes on serving."""
    with raw_stdio(corpus) as session:
        padding = b"x" * MAX_MESSAGE_BYTES
        session.send(b'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"p":"%s"}}' % padding)
        assert "longer" in _error(session.answer(), INVALID_REQUEST, None)
        session.send(b'{"jsonrpc":"2.0","id":5,"method":"ping"}')
        assert session.answer() == {"jsonrpc": "2.0", "id": 5, "result": {}}


# JSON that is no JSON-RPC message: requests (stdio answers them) and a malformed
# notification and response (stdio answers neither; HTTP must answer: 400, id null).
NOT_REQUESTS = [
    b'{"foo": 1}',
    b"[]",
    b"42",
    b'"x"',
    b'{"jsonrpc":"2.0"}',
    b'{"jsonrpc":"2.0","method":5,"id":1}',
    b'{"jsonrpc":"1.0","method":"ping","id":"a"}',
    b'{"jsonrpc":"2.0","method":"ping","id":7,"params":[1]}',
]
NOT_NOTIFICATIONS = [
    b'{"jsonrpc":"2.0","method":"notifications/x","params":5}',
    b'{"jsonrpc":"2.0","id":9,"result":5}',
]


def test_json_that_is_no_json_rpc_message_is_answered_alike_on_stdio_and_http(
    corpus: dict[str, Any],
) -> None:
    """`/mcp` answered these 400 `-32602` with pydantic's validation text and id null; it
    now gives stdio's answer, word for word: `-32600` naming what is wrong, with the
    request's id when it has a usable one (HTTP 400). A malformed notification or response
    is 400 `-32600` with id null over HTTP (which must answer), and unanswered on stdio."""
    httpx = pytest.importorskip("httpx")
    with raw_stdio(corpus) as session:
        over_stdio = []
        for line in NOT_REQUESTS:
            session.send(line)
            over_stdio.append(session.answer())
            # `"x"` was -32700 "the line is not JSON": the decoded string was taken for the line.
            assert over_stdio[-1]["error"]["code"] == INVALID_REQUEST, (line, over_stdio[-1])
        for line in NOT_NOTIFICATIONS:
            session.send(line)  # no answer
        session.send(b'{"jsonrpc":"2.0","id":5,"method":"ping"}')
        assert session.answer() == {"jsonrpc": "2.0", "id": 5, "result": {}}
    with running(corpus["env"], "--no-watch") as srv, httpx.Client(timeout=DEADLINE) as http:
        url = f"{srv.url}/mcp"
        opened = http.post(url, json=INITIALIZE, headers=HTTP_HEADERS)
        headers = HTTP_HEADERS | {"Mcp-Session-Id": opened.headers["mcp-session-id"]}
        for line, stdio_answer in zip(NOT_REQUESTS, over_stdio, strict=True):
            refused = http.post(url, content=line, headers=headers)
            assert refused.status_code == 400, (line, refused.status_code, refused.text)
            assert refused.json() == stdio_answer, line
            assert "alidation" not in stdio_answer["error"]["message"], stdio_answer
        for line in NOT_NOTIFICATIONS:
            refused = http.post(url, content=line, headers=headers)
            assert refused.status_code == 400, (line, refused.status_code, refused.text)
            _error(refused.json(), INVALID_REQUEST, None)
    assert [a["id"] for a in over_stdio] == [None, None, None, None, None, 1, "a", 7]


# The same lines to both transports: each must get the same JSON-RPC code and id (None: no
# answer on stdio, 202 over HTTP). Python's parser reads what the SDK's strict one refuses
# (a lone surrogate, nesting past its 200 levels): stdio answered -32602 with the id, `/mcp`
# -32700 with id null; a lone surrogate in the id itself ended `gno mcp` (the answer echoing
# it could not be written). NaN/Infinity the SDK's parser reads on both: unused, they change
# nothing (ping); in tool arguments they are `VALIDATION`. An "id" spelled with an escape was
# missed on stdio when the id was unusable: the request went unanswered.
# (contract-tests/test_mcp_transport_parity.py sends random messages the same way.)
DEEP = b"[" * 300 + b"]" * 300
SEARCH = b'{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"gno_search","arguments":{"query":"x"%s}}}'
SAME_ON_BOTH: list[tuple[bytes, tuple[Any, Any]]] = [
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}', ("result", 1)),
    (b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":-Infinity}}', ("result", 2)),
    (SEARCH % (b"3", b',"limit":NaN'), ("result", 3)),
    (SEARCH % (b"4", b',"minScore":Infinity'), ("result", 4)),
    (SEARCH % (b"5", b',"limit":NaN,"q":"\\ud800"'), (INVALID_PARAMS, 5)),
    (b'{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":"\\udc00"}}', (INVALID_PARAMS, 6)),
    (b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":%s}}' % DEEP, (INVALID_PARAMS, 7)),
    (b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}', (INVALID_REQUEST, None)),
    (b'{"jsonrpc":"2.0","\\u0069d":8,"method":"ping"}', ("result", 8)),
    (b'{"jsonrpc":"2.0","\\u0069d":{},"method":"ping"}', (INVALID_REQUEST, None)),
    (b'{"jsonrpc":"2.0","\\u0069\\u0064":null,"method":"ping"}', (INVALID_REQUEST, None)),
    (b'{"jsonrpc":"2.0","i\\u0064":1.5,"method":"notifications/x"}', (INVALID_REQUEST, None)),
    # Not UTF-8 (JSON text is): stdio replaced the bytes with U+FFFD and served the request
    # (a capture stored the replacement), `/mcp` said -32700. A BOM or UTF-16: `/mcp` read
    # the body from bytes and named what was wrong in it, or dispatched it (2026-07-28).
    (b'{"jsonrpc":"2.0","id":11,"method":"ping","params":{"x":"\xff"}}', (PARSE, None)),
    (b'{"jsonrpc":"2.0","id":"\xff","method":"ping"}', (PARSE, None)),
    (b'{"jsonrpc":"2.0","id":12,"method":"ping","params":{"x":"\xed\xa0\x80"}}', (PARSE, None)),
    (b'\xef\xbb\xbf{"jsonrpc":"2.0","id":13,"method":"ping"}', (PARSE, None)),
    (b'\xef\xbb\xbf{"jsonrpc":"2.0","id":{},"method":"ping"}', (PARSE, None)),  # was -32600
    ('{"jsonrpc":"2.0","id":14,"method":"ping"}'.encode("utf-16-le"), (PARSE, None)),
    # A tool name that is no string: the write gate of `/mcp` tested it against its set of
    # names (a list is unhashable): HTTP 500 RUNTIME, where stdio says -32602.
    (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":[]}}', (INVALID_PARAMS, 9)),
    (
        b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":{"a":1}}}',
        (INVALID_PARAMS, 10),
    ),
]


def test_the_same_line_gets_the_same_code_and_id_on_stdio_and_http(
    corpus: dict[str, Any],
) -> None:
    with raw_stdio(corpus) as session:
        over_stdio = []
        for line, _ in SAME_ON_BOTH:  # each is answered: one at a time, in order
            session.send(line)
            over_stdio.append(code_and_id(session.answer()))
    with raw_http(corpus) as http:
        over_http = [code_and_id(http.answer_or_none(line)[1]) for line, _ in SAME_ON_BOTH]
    expected = [want for _, want in SAME_ON_BOTH]
    assert over_stdio == expected
    assert over_http == expected


def test_nan_in_tool_arguments_is_validation_on_both(corpus: dict[str, Any]) -> None:
    line = SEARCH % (b"3", b',"limit":NaN')
    with raw_stdio(corpus) as session:
        session.send(line)
        stdio_answer = session.answer()
    with raw_http(corpus) as http:
        http_answer = http.answer_or_none(line)[1]
    assert stdio_answer == http_answer
    assert stdio_answer["result"]["structuredContent"]["error"] == "VALIDATION", stdio_answer
    assert "limit" in stdio_answer["result"]["structuredContent"]["message"]


# ---------------------------------------------------------------- updateCmd


@contextlib.asynccontextmanager
async def _client(target: Any) -> AsyncIterator[Any]:
    async with Client(target, mode="legacy") as client:
        yield client


@contextlib.contextmanager
def _targets(corpus: dict[str, Any], transport: str) -> Iterator[Any]:
    if transport == "stdio":
        yield StdioServerParameters(
            command=str(GNO),
            args=["mcp", "--enable-write"],
            env=corpus["env"],
            cwd=str(corpus["root"]),
        )
        return
    with running(corpus["env"], "--no-watch", "--mcp-enable-write") as srv:
        yield f"{srv.url}/mcp"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_mcp_never_stores_or_runs_an_update_cmd(corpus: dict[str, Any], transport: str) -> None:
    root: Path = corpus["root"]
    marker = root / f"ran-{transport}"
    folder = root / "corpus" / f"cmd-{transport}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.md").write_text("# A\n")
    config = Path(corpus["env"]["GNO_CONFIG_DIR"]) / "index.yml"

    async def session(target: Any) -> None:
        async with _client(target) as client:
            added = await client.call_tool(
                "gno_add_collection",
                {"path": str(folder), "name": f"cmd-{transport}", "updateCmd": f"touch {marker}"},
            )
            assert added.is_error, added.content[0].text
            assert added.structured_content["error"] == "VALIDATION"
            assert "updateCmd" in added.content[0].text
            for tool in ("gno_sync", "gno_index"):
                ran = await client.call_tool(tool, {"runUpdateCmd": True})
                assert ran.is_error, (tool, ran.content[0].text)
                assert ran.structured_content["error"] == "VALIDATION"
                assert "runUpdateCmd" in ran.content[0].text
            plain = await client.call_tool("gno_sync", {"runUpdateCmd": False})
            assert not plain.is_error, plain.content[0].text

    before = config.read_text()
    with _targets(corpus, transport) as target:
        anyio.run(session, target)
    assert f"cmd-{transport}" not in config.read_text() and str(marker) not in before
    assert not marker.exists() and not corpus["marker"].exists()
