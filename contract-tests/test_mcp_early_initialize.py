"""`gno mcp` answers `initialize` before the MCP SDK is imported (gno/mcp/early.py): the
answer is the one the SDK gives (early answering on and off compared line for line,
the SDK's own answer compared inside the process, a difference logged), sent once, and
everything after it, malformed first lines included, is the SDK's as before."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
from contract_helpers import GNO, gno_env

from gno.mcp import early

pytest.importorskip("mcp")

TIMEOUT = 120


def _initialize(version: str, request_id: Any = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }


FOLLOW_UP = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def _session(env: dict[str, str], first: bytes, on: bool) -> tuple[list[Any], str]:
    lines = first + b"".join(json.dumps(m).encode() + b"\n" for m in FOLLOW_UP)
    done = subprocess.run(
        [str(GNO), "mcp"],
        input=lines,
        capture_output=True,
        env={**env, "GNO_MCP_EARLY_INITIALIZE": "1" if on else "0"},
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr.decode()


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return gno_env(tmp_path_factory.mktemp("early"))


def test_the_handshake_versions_are_the_sdks() -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    assert early.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    assert early.LATEST_HANDSHAKE == LATEST_HANDSHAKE_VERSION


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25", "2026-07-28", "1999-01-01"])
def test_an_early_answer_is_the_sdks_answer_sent_once(env: dict[str, str], version: str) -> None:
    first = json.dumps(_initialize(version)).encode() + b"\n"
    assert early.early_answer(first.strip()) is not None  # answered before the SDK
    answered, log = _session(env, first, on=True)
    expected, _ = _session(env, first, on=False)
    assert answered == expected
    assert [m["id"] for m in answered] == [1, 2]  # the SDK's own answer was not sent again
    assert answered[1]["result"]["tools"]
    assert "differs" not in log


@pytest.mark.parametrize(
    "first",
    [
        b"not json\n",
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}\n',
        json.dumps({**_initialize("2025-11-25"), "id": True}).encode() + b"\n",
        json.dumps(_initialize("2025-11-25", "text-id")).encode() + b"\n",
        b'{"jsonrpc": "2.0", "id": 7, "method": "ping"}\n',
        b"",
        # What the SDK's parser refuses (gno answers it -32700 or -32602) was answered early
        # too, as Python's reads it: the client got two answers to one initialize.
        b"\xef\xbb\xbf" + json.dumps(_initialize("2025-11-25")).encode() + b"\n",  # a BOM
        json.dumps(_initialize("2025-11-25")).replace('"test"', '"t\\ud800"').encode() + b"\n",
        json.dumps(_initialize("2025-11-25")).encode().replace(b'"test"', b'"t\xff"') + b"\n",
        json.dumps(_initialize("2025-11-25")).encode().replace(b'"test"', b'"\xed\xa0\x80"')
        + b"\n",
    ],
)
def test_other_first_lines_get_what_the_sdk_answers(env: dict[str, str], first: bytes) -> None:
    answered, log = _session(env, first, on=True)
    expected, _ = _session(env, first, on=False)
    assert answered == expected
    assert len([m for m in answered if m.get("id") in (1, None)]) <= 1, answered  # one answer
    assert "differs" not in log


def test_early_answer_refuses_shapes_the_sdk_might_refuse() -> None:
    good = _initialize("2025-11-25")
    assert early.early_answer(json.dumps(good).encode()) == (
        1,
        {"jsonrpc": "2.0", "id": 1, "result": early.initialize_result("2025-11-25")},
    )
    for bad in (
        {**good, "jsonrpc": "1.0"},
        {**good, "id": None},
        {**good, "method": "tools/list"},
        {**good, "params": {**good["params"], "capabilities": {"roots": True}}},
        {**good, "params": {**good["params"], "clientInfo": {"name": "x"}}},
        {**good, "params": {**good["params"], "protocolVersion": 5}},
        [good],
    ):
        assert early.early_answer(json.dumps(bad).encode()) is None, bad
    assert early.early_answer(b"[" * 100_000) is None  # too deep for json: not ours


def test_a_first_line_longer_than_the_read_bound_reaches_the_sdk_whole(
    env: dict[str, str],
) -> None:
    padded = _initialize("2025-11-25")
    padded["params"]["clientInfo"]["version"] = "x" * (early.MAX_FIRST_LINE * 2)
    first = json.dumps(padded).encode() + b"\n"
    answered, log = _session(env, first, on=True)
    expected, _ = _session(env, first, on=False)
    assert answered == expected and [m["id"] for m in answered] == [1, 2]
    assert "differs" not in log
