"""The text sniff of the native converters: what counts as binary, counted by a regex."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.adapters.converters.native import (
    BINARY_BAD_SHARE,
    BINARY_SNIFF_BYTES,
    decode_text,
    looks_binary,
)
from gno.ports import UNSUPPORTED, ConversionError

TEXT_CONTROLS = frozenset("\t\n\r\f\v\x1b")


def reference(data: bytes) -> bool:
    """The rule as its docstring states it, one character at a time."""
    head = data[:BINARY_SNIFF_BYTES]
    if b"\0" in head:
        return True
    text = head.decode("utf-8", errors="replace")
    if len(head) == BINARY_SNIFF_BYTES:
        text = text[:-1]
    bad = sum(1 for ch in text if ch == "\ufffd" or (ch < " " and ch not in TEXT_CONTROLS))
    return bool(text) and bad > BINARY_BAD_SHARE * len(text)


MOSTLY_TEXT = st.lists(
    st.one_of(
        st.text(min_size=1, max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.sampled_from([b"\x01", b"\x07", b"\x0b", b"\x1b", b"\x1f", b"\xff", b"\xc3", b"\t\n"]),
    ),
    max_size=60,
).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(MOSTLY_TEXT)
def test_the_regex_count_is_the_rule(data: bytes) -> None:
    assert looks_binary(data) == reference(data)


def test_the_sniff_stops_at_its_window() -> None:
    text = b"plain words " * 1000
    assert not looks_binary(text)
    assert looks_binary(b"\x01\x02" * 600)
    assert not looks_binary(text[:BINARY_SNIFF_BYTES] + b"\x01" * 5000)  # past the sniff


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
def test_a_byte_order_mark_names_the_encoding(codec: str) -> None:
    # PowerShell's `>` and Notepad's "Unicode" write UTF-16 with a mark: its ASCII has a
    # NUL in every other byte, and such notes were refused as binary (UNSUPPORTED)
    text = "# Café\n\nnaïve crème brûlée\n"
    data = text.encode(codec)
    if not codec.endswith("-be"):  # Python's own codec wrote the (little-endian) mark
        assert data[:2] == b"\xff\xfe"
    else:
        data = ("\ufeff" + text).encode(codec)
    assert decode_text(data).removeprefix("\ufeff") == text


@pytest.mark.parametrize(
    "data",
    [
        codecs.BOM_UTF16_LE + b"\0\0" * 100 + "x".encode("utf-16-le"),  # NUL characters
        codecs.BOM_UTF16_BE + "\x01\x02\x03".encode("utf-16-be") * 100,  # controls
        codecs.BOM_UTF16_LE + b"\x00\xd8" * 300,  # lone surrogates: replacement characters
    ],
)
def test_binary_behind_a_byte_order_mark_is_still_binary(data: bytes) -> None:
    with pytest.raises(ConversionError) as caught:
        decode_text(data)
    assert caught.value.code == UNSUPPORTED
