"""The top-level values of a ``.json`` chat export other than its messages are skipped:
checked as ``json.loads`` checks them, never built, in a bounded window
(gno/adapters/records/json_stream.py, spec/records.md)."""

from __future__ import annotations

import io
import json
import re
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gno.adapters.records import chat, json_stream
from gno.core.records import Record
from gno.ingest.record_lane import NotAContainer, read_container

_WS = re.compile(r"[ \t\n\r]*")


def parsed_whole(text: str) -> tuple[str, list[Any]]:
    """The messages yielded, then "ok" or "refused": the top level walked as the reader
    walks it, each value parsed whole by the standard decoder (the reader before skipping)."""
    decoder, out = json.JSONDecoder(parse_int=chat._integer), []
    pos = _WS.match(text).end()

    def value() -> Any:
        nonlocal pos
        item, pos = decoder.raw_decode(text, pos)
        pos = _WS.match(text, pos).end()
        return item

    def expect(chars: str) -> str:
        nonlocal pos
        char = text[pos : pos + 1]
        if not char or char not in chars:
            raise ValueError(f"expected {chars!r} at {pos}")
        pos = _WS.match(text, pos + 1).end()
        return char

    def items() -> Iterator[Any]:
        if text.startswith("]", pos):
            expect("]")
            return
        while True:
            yield value()
            if expect(",]") == "]":
                return

    try:
        if text.startswith("[", pos):
            expect("[")
            out.extend(items())
        elif text.startswith("{", pos):
            expect("{")
            if text.startswith("}", pos):
                expect("}")
            else:
                while True:
                    if not text.startswith('"', pos):
                        raise ValueError("expected a key")
                    name = value()
                    expect(":")
                    if name == "messages" and text.startswith("[", pos):
                        expect("[")
                        out.extend(items())
                    else:
                        value()
                    if expect(",}") == "}":
                        break
        else:
            value()
        if pos < len(text):
            raise ValueError("Extra data")
    except (ValueError, RecursionError):
        return "refused", out
    return "ok", out


def streamed(data: bytes, chunk: int) -> tuple[str, list[Any]]:
    out: list[Any] = []
    try:
        for item in json_stream.messages(io.BytesIO(data), chat._integer, chunk):
            out.append(item)
    except (ValueError, RecursionError):
        return "refused", out
    return "ok", out


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and ±Infinity are written as json.loads reads them
    st.text(max_size=8),
    st.sampled_from(["\ud800", "\\", '"', "\x00\x1f", "é東京😀", "\u2028"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)
# Valid and invalid JSON the decoder has opinions about.
tokens = st.sampled_from(
    ["NaN", "-Infinity", "Infinity", "-0", "1E+2", "-0.5e-3", "01", "1.", "-", "1e", "1e+",
     ".5", "+1", "tru", "nul", "nan", "[1,]", '{"a":1,}', '{"a" 1}', "{1: 2}", '"\\u12G4"',
     '"\\uD800\\udc00"', '"\\x"', '"a\x01b"', '"\\/\\b\\f"', "[", "]", "{", "}", "", "1 2",
     '"\\\\\\"', "[[]", "[]]", "\u00a0", '"\t"', "7" * 5000, "0" * 3 + "1", "[-]", "true"]
)  # fmt: skip
mutants = st.sampled_from(list('"\\{}[],: 0123456789.eE+-tfnulrsaNI\x00\x1f\n\té'))


@st.composite
def fragments(draw: st.DrawFn) -> str:
    """The text of one JSON value, valid or not: written, a token, or written and broken."""
    kind = draw(st.sampled_from(["dumped", "token", "mutated"]))
    if kind == "token":
        return draw(tokens)
    text = json.dumps(
        draw(values), indent=draw(st.sampled_from([None, 0, 1])), ensure_ascii=draw(st.booleans())
    )
    if kind == "mutated":
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 2))
        text = text[:at] + draw(st.text(mutants, max_size=2)) + text[at + cut :]
    return text


message_lists = st.lists(
    st.dictionaries(st.sampled_from(["text", "id", "author"]), values, max_size=3), max_size=5
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A top-level object with random extra keys around a ``messages`` list, or one value."""
    if draw(st.integers(0, 9)) == 0:
        return draw(fragments())
    keys = draw(st.lists(st.sampled_from(["meta", "attachments", "", "é", "x" * 70]), max_size=4))
    members = [f"{json.dumps(key)}: {draw(fragments())}" for key in keys]
    at = draw(st.integers(0, len(members)))
    members.insert(
        at,
        '"messages": ' + json.dumps(draw(message_lists), indent=draw(st.sampled_from([None, 1]))),
    )
    return "{" + draw(st.sampled_from([",", ", ", ",\n "])).join(members) + "}"


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=documents(),
    encoding=st.sampled_from(["utf-8", "utf-16-le"]),
    chunk=st.one_of(st.integers(1, 80), st.just(json_stream.CHUNK_BYTES)),
)
def test_skipped_values_are_refused_as_json_loads_refuses_them(text, encoding, chunk):
    data = text.encode(encoding, "surrogatepass")
    kind, items = parsed_whole(text)
    try:
        doc = json.loads(data, parse_int=chat._integer)  # as gno reads integers
    except (ValueError, RecursionError):
        assert kind == "refused"
    else:
        if isinstance(doc, dict):
            doc = doc["messages"] if isinstance(doc.get("messages"), list) else []
        assert (kind, _same(items)) == ("ok", _same(doc if isinstance(doc, list) else []))
    got_kind, got_items = streamed(data, chunk)
    assert (got_kind, _same(got_items)) == (kind, _same(items))


def _same(items: list[Any]) -> str:
    return json.dumps(items)  # NaN is not equal to itself, but is written alike


def nest(depth: int, shape: str) -> str:
    """A value nested ``depth`` containers deep."""
    opener, closer = {
        "lists": ("[", "]"),
        "objects": ('{"a": ', "}"),
        "mixed": ('[{"a": ', "}]"),
        "siblings": ("[[], ", "]"),  # twice as many brackets as levels
    }[shape]
    if shape == "mixed":
        half = depth // 2
        return opener * half + ("[]" if depth % 2 else "0") + closer * half
    return opener * (depth - 1) + "[]" + closer * (depth - 1)


def _outcome(items: Iterator[Any]) -> str:
    try:
        list(items)
    except RecursionError:
        return "too deep"
    return "ok"


@pytest.mark.parametrize("shape", ["lists", "objects", "mixed", "siblings"])
@pytest.mark.parametrize("chunk", [7, json_stream.CHUNK_BYTES])
def test_a_skipped_value_nests_exactly_as_deep_as_the_decoder_parsed_it(shape, chunk):
    """The decoder's depth limit where the reader parsed skipped values whole (``value``,
    one frame below ``messages``) is the skipped value's limit, to the level."""

    def whole(data: bytes) -> Iterator[Any]:  # frame for frame, as messages() calls skip()
        window = json_stream._Window(io.BytesIO(data), chunk, int)
        window.peek()
        window.pos += 1
        window.key()
        window.expect(":", "Expecting ':' delimiter")
        window.value()
        yield from ()

    def doc(depth: int) -> bytes:
        return ('{"meta": ' + nest(depth, shape) + ', "messages": []}').encode()

    low, high = 1, 20_000  # the deepest the whole parse takes
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if _outcome(whole(doc(mid))) == "ok" else (low, mid - 1)
    assert 50 < low < 20_000
    for depth in (low - 1, low, low + 1, low + 40):
        expected = _outcome(whole(doc(depth)))
        got = _outcome(json_stream.messages(io.BytesIO(doc(depth)), int, chunk))
        assert (depth, got) == (depth, expected)


def test_a_nesting_past_the_deciding_messages_is_cut_short():
    head = ", ".join(json.dumps({"id": n, "text": f"m{n}"}) for n in range(25))
    data = ('{"messages": [' + head + '], "meta": ' + "[" * 100_000 + "]" * 100_000 + "}").encode()
    items: list[Any] = []
    with pytest.raises(chat.CutShort, match="nested too deeply"):
        for item in chat.read_json(io.BytesIO(data), chunk=64):
            items.append(item)
    assert len(items) == 25


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_fault_deep_in_a_large_skipped_value_is_found(where):
    """A bad escape 2 MiB into a skipped value: before the messages, no chat export; after
    them, the records read are kept and the file is cut short."""
    blob = '{"meta": ["' + "x" * 2**21 + '\\q"]}'
    head = ", ".join(json.dumps({"id": n, "text": f"m{n}"}) for n in range(25))
    members = [f'"blob": {blob}', f'"messages": [{head}]']
    data = ("{" + ", ".join(members if where == "before" else members[::-1]) + "}").encode()
    with pytest.raises(ValueError):
        json.loads(data)
    items: list[Any] = []
    expected = chat.NotAChat if where == "before" else chat.CutShort
    with pytest.raises(expected, match="Invalid"):
        for item in chat.read_json(io.BytesIO(data)):
            items.append(item)
    assert len(items) == (0 if where == "before" else 25)


def test_a_key_longer_than_the_window_is_passed_over():
    data = ('{"' + "k" * 300 + '": 1, "messages": [{"text": "a"}]}').encode()
    assert streamed(data, 16) == ("ok", [{"text": "a"}])
    assert streamed(data.replace(b"kk", b"k\x01", 1), 16)[0] == "refused"


def _write_export(path: Path, shape: str) -> None:
    """31 MiB, nearly all one top-level value that is not the messages (32 MiB is the cap)."""
    with path.open("w", encoding="utf-8") as out:
        if shape == "scalar document":
            out.write('"' + "attachment bytes, base64 perhaps " * 980_000 + '"')
            return
        out.write('{"messages": [{"id": 1, "text": "hello"}], "attachments": [')
        for n in range(400_000):
            sep = "," if n else ""
            out.write(
                f'{sep}{{"name": "file{n}.png", "size": {n}, "tags": ["a", "b"], "ok": true}}'
            )
        out.write('], "metadata": {"note": "' + "é" * 1_000_000 + '"}}')


@pytest.mark.parametrize("shape", ["attachments", "scalar document"])
def test_a_large_value_outside_the_messages_is_not_built(tmp_path: Path, shape: str):
    """Python's allocations peak at a few MiB (parsing the value whole built every object
    in it: over ten times its size)."""
    path = tmp_path / "export.json"
    _write_export(path, shape)
    size = path.stat().st_size
    assert 30 * 2**20 < size < chat.MAX_JSON_BYTES
    tracemalloc.start()
    try:
        try:
            count = sum(
                1 for i in read_container(str(path), ".json", "big") if isinstance(i, Record)
            )
        except NotAContainer:  # one string is no chat export (read to its end to know)
            count = 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == (1 if shape == "attachments" else 0)
    assert peak < 4 * 2**20, f"peak {peak} bytes reading {size} bytes"
