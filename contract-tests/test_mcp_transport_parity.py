"""Both MCP transports of real gno processes answer the same JSON-RPC text alike: random
messages, valid and not (wrong types for ``jsonrpc``/``id``/``method``/``params``, duplicate
keys, keys spelled with escapes, huge numbers, NaN, lone surrogates, deep nesting, extra
members, no object at all), each written as one line to `gno mcp` and posted as one body to
`/mcp` of `gno serve` on 127.0.0.1. The JSON-RPC error code (or a result) and the id must be
the same; a line stdio leaves unanswered (a notification, a response) is 202 over HTTP, or a
refusal with id null (HTTP must answer a malformed one)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_raw import code_and_id, indexed_notes, raw_http, raw_stdio

pytest.importorskip("mcp")
pytest.importorskip("httpx")

PROBE_ID = "parity-probe"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return indexed_notes(tmp_path_factory.mktemp("mcp-parity"))


def _escaped(key: str) -> str:
    """``key`` with every character as a ``\\u`` escape."""
    return "".join(f"\\u{ord(c):04x}" for c in key)


# JSON values as text, also what Python's json writes no JSON for.
SPECIAL_VALUES = st.sampled_from(
    [
        "NaN", "-Infinity", "1e400", "-0", "1.0", "1e2", "9" * 40, "-" + "9" * 25,
        '"\\ud800"', '"a\\udfffb"', '"\\u0000"', '"\\u00e9t\\u00e9"', '"\U0001f600"',
        "[" * 250 + "]" * 250, '{"a":' * 70 + "1" + "}" * 70, "[]", "{}", "null",
        "true", '"2.0"',
        # Raw bytes, written as surrogateescape (``_encoded``): no UTF-8, a UTF-8-encoded
        # surrogate, a raw tab in a string.
        '"\udcff"', '"\udced\udca0\udc80"', '"a\tb"',
    ]
)  # fmt: skip
PLAIN_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
).map(lambda v: json.dumps(v))
VALUES = SPECIAL_VALUES | PLAIN_VALUES
# Each member is mostly well formed, so most messages get past the envelope checks.
GOOD_IDS = st.integers(-(2**70), 2**70).map(str) | st.text(max_size=6).map(json.dumps)
IDS = GOOD_IDS | GOOD_IDS | st.sampled_from(['"\\u00e9"', '"\\ud800"', "1.0"]) | VALUES
# Methods answered without a slow handler: a tool call names no tool, so no worker thread
# runs and each answer comes before the next probe's.
GOOD_METHODS = st.sampled_from(['"ping"', '"tools/list"', '"no/such"', '"tools/call"'])
METHODS = (
    GOOD_METHODS
    | GOOD_METHODS
    | st.sampled_from(['"notifications/cancelled"', '"p\\u0069ng"', '""', "5", "null", '["ping"]'])
)
GOOD_PARAMS = st.sampled_from(["{}", '{"name":"no_such_tool"}', '{"name":5}', '{"_meta":{}}'])
PARAMS = (
    GOOD_PARAMS
    | st.dictionaries(st.sampled_from(["x", "name", "cursor", "_meta"]), VALUES).map(
        lambda d: "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in d.items()) + "}"
    )
    | VALUES
)
VERSIONS = st.sampled_from(['"2.0"'] * 8 + ['"1.0"', "2.0", "null", '"2.0 "'])


@st.composite
def members(draw: st.DrawFn) -> list[tuple[str, str]]:
    """(key, value text) pairs of a JSON-RPC-ish object, keys possibly repeated."""
    found: list[tuple[str, str]] = []
    for key, values, present in (
        ("jsonrpc", VERSIONS, 0.95),
        ("id", IDS, 0.8),
        ("method", METHODS, 0.9),
        ("params", PARAMS, 0.6),
    ):
        if draw(st.floats(0, 1)) < present:
            found.append((key, draw(values)))
    if draw(st.booleans()):
        found.append(
            (draw(st.sampled_from(["result", "error", "extra", "ID", "id"])), draw(VALUES))
        )
    return draw(st.permutations(found))


def _encoded(text: str) -> bytes:
    """The message's bytes: UTF-8, with the raw bytes of ``SPECIAL_VALUES`` restored."""
    return text.encode("utf-8", "surrogateescape")


@st.composite
def messages(draw: st.DrawFn) -> bytes:
    if draw(st.integers(0, 9)) == 0:  # no object at all
        batch = "[" + '{"jsonrpc":"2.0","id":1,"method":"ping"}' + "]"
        return _encoded(draw(VALUES | st.just(batch)))
    parts = []
    for key, value in draw(members()):
        spelled = _escaped(key) if draw(st.integers(0, 6)) == 0 else key
        parts.append(f'"{spelled}":{value}')
    bom = "\ufeff" if draw(st.integers(0, 19)) == 0 else ""
    return _encoded(bom + "{" + ",".join(parts) + "}")


def _agree(line: bytes, stdio: dict[str, Any] | None, http: tuple[int, Any]) -> None:
    status, answer = http
    if stdio is None:  # unanswered on stdio: accepted (202) or refused with id null over HTTP
        assert answer is None or (status == 400 and answer.get("id") is None), (line, http)
        return
    assert code_and_id(stdio) == code_and_id(answer), (line, stdio, http)


def test_stdio_and_http_give_the_same_code_and_id(corpus: dict[str, Any]) -> None:
    with raw_stdio(corpus) as stdio, raw_http(corpus) as http:

        @settings(
            max_examples=300,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(messages())
        def same(line: bytes) -> None:
            if PROBE_ID.encode() in line:
                return
            _agree(line, stdio.answer_or_none(line), http.answer_or_none(line))

        same()
