"""A ``.json`` chat export is streamed (gno/adapters/records/json_stream.py): the records
are those ``json.loads`` of the whole file gave, read in bounded memory (spec/records.md).

The reference below is the reader as it was before streaming (``json.loads`` of the whole
bytes, then the same record-making code); Hypothesis writes chat-shaped JSON in every
encoding ``json.loads`` accepts and reads it in windows down to one byte."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gno.adapters.records import chat
from gno.core.records import Malformed, Record
from gno.ingest.record_lane import read_container

BIG = "@@big-integer@@"  # replaced by an integer Python does not convert (> 4,300 digits)
BIG_DIGITS = "7" * 4_500


def old_read_json(data: bytes) -> list[Record | Malformed]:
    """The whole-file reader this replaces."""
    try:
        doc = json.loads(data, parse_int=chat._integer)
    except RecursionError as exc:
        raise chat.BrokenJson("deep") from exc
    except ValueError as exc:
        raise chat.NotAChat(str(exc)) from exc
    messages = doc.get("messages") if isinstance(doc, dict) else doc
    if (
        not isinstance(messages, list)
        or not messages
        or not any(
            isinstance(m, dict) and chat._first(m, chat._TEXT) is not None for m in messages[:20]
        )
    ):
        raise chat.NotAChat("no chat")
    out: list[Record | Malformed] = []
    for number, message in enumerate(messages, start=1):
        out.extend(chat._message(message, f"message:{number}", ("message", str(number), None)))
    return out


def outcome(read: Any) -> tuple[str, list[Record | Malformed]]:
    items: list[Record | Malformed] = []
    try:
        for item in read():
            items.append(item)
    except (chat.NotAChat, chat.BrokenJson, chat.CutShort) as exc:
        return type(exc).__name__, items
    return "ok", items


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False),  # NaN is never equal to itself; Infinity is kept
    st.text(max_size=12),
    st.just(BIG),
    st.sampled_from(["2026-12-01", "1764583200", "", " ", "\u2028", "\ud800x", "é東京😀"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
keys = st.sampled_from(
    ["text", "content", "message", "body", "author", "sender", "id", "ts", "created_at",
     "conversation_id", "parts", "extra"]
)  # fmt: skip
message_values = st.one_of(st.dictionaries(keys, values, max_size=6), values)
documents = st.one_of(
    st.lists(message_values, max_size=30),
    st.fixed_dictionaries(
        {"messages": st.one_of(st.lists(message_values, max_size=30), values)},
        optional={"meta": values, "zz": values},
    ),
    values,
)


def encode(doc: Any, encoding: str, indent: int | None, ascii_only: bool) -> bytes:
    text = json.dumps(doc, indent=indent, ensure_ascii=ascii_only).replace(f'"{BIG}"', BIG_DIGITS)
    return text.encode(encoding, "surrogatepass")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    doc=documents,
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-32-le"]),
    indent=st.sampled_from([None, 0, 2]),
    ascii_only=st.booleans(),
    chunk=st.integers(1, 70),
)
def test_streaming_gives_the_records_json_loads_gave(doc, encoding, indent, ascii_only, chunk):
    data = encode(doc, encoding, indent, ascii_only)
    expected = outcome(lambda: old_read_json(data))
    assert outcome(lambda: chat.read_json(io.BytesIO(data), chunk)) == expected


@settings(max_examples=200, deadline=None)
@given(
    doc=st.lists(message_values, min_size=1, max_size=40),
    cut=st.floats(0, 1, exclude_max=True),
    junk=st.sampled_from([b"", b"x", b"]", b",", b"{", b"\x00", b"\xff", b"\xe2\x82"]),
    chunk=st.integers(1, 70),
)
def test_a_broken_export_keeps_what_came_before_the_break(doc, cut, junk, chunk):
    """Cut anywhere (and maybe followed by junk): before the 20 deciding messages are read
    it is no chat export, as ``json.loads`` said; after them the records read are the
    whole file's first records, and the break is ``CutShort``."""
    data = encode({"messages": doc}, "utf-8", None, False)
    whole = outcome(lambda: old_read_json(data))
    broken = data[: int(len(data) * cut)] + junk
    kind, items = outcome(lambda: chat.read_json(io.BytesIO(broken), chunk))
    if kind in ("NotAChat", "BrokenJson"):
        assert items == []
    elif kind == "ok":  # the cut left valid JSON after all
        json.loads(broken)
    else:
        assert kind == "CutShort"
        assert items == whole[1][: len(items)]
        assert len({item.locator for item in items}) >= 20


def test_duplicate_messages_keys_lose_no_message():
    data = b'{"messages": [{"text": "one"}], "messages": "x", "messages": [{"text": "two"}]}'
    records = list(chat.read_json(io.BytesIO(data)))
    assert [(r.locator, r.body) for r in records if isinstance(r, Record)] == [
        ("message:1", "one"),
        ("message:2", "two"),
    ]


@pytest.mark.parametrize(
    ("tail", "reason"),
    [
        (", " + "[" * 100_000, "nested too deeply"),
        ("] extra", "Extra data"),
        (', {"text": "b\xff"}]', "can't decode"),
        (', {"text": "cut', "Unterminated string"),
    ],
)
def test_a_break_after_the_deciding_messages_is_cut_short(tail, reason):
    head = ", ".join(json.dumps({"id": n, "text": f"m{n}"}) for n in range(25))
    data = ("[" + head).encode() + tail.encode("latin-1")
    items: list[Any] = []
    with pytest.raises(chat.CutShort, match=reason):
        for item in chat.read_json(io.BytesIO(data), chunk=7):
            items.append(item)
    assert [i.body for i in items] == [f"m{n}" for n in range(25)]


def test_reading_a_large_export_holds_a_bounded_window(tmp_path: Path):
    """16 MiB of messages read through the record lane: Python's allocations peak under a
    quarter of the file (the whole-file reader held the bytes, their text and every
    message: about ten times the file)."""
    path = tmp_path / "big.json"
    with path.open("w", encoding="utf-8") as out:
        out.write('{"export": {"tool": "chat"}, "messages": [')
        for n in range(70_000):
            sep = "," if n else ""
            body = f"message {n} " + "lorem ipsum dolor sit amet " * 8
            out.write(f'{sep}{{"id": {n}, "author": "cy", "ts": 1764583200, "text": "{body}"}}')
        out.write("]}")
    size = path.stat().st_size
    assert size > 16 * 2**20
    tracemalloc.start()
    try:
        count = sum(
            1 for item in read_container(str(path), ".json", "big") if isinstance(item, Record)
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 70_000
    assert peak < size / 4, f"peak {peak} bytes reading {size} bytes"
