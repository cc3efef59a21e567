"""One HTTP byte range for /api/doc-asset (gno/rest/byteranges.py): what is served, what is
ignored, what is 416."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gno.rest.byteranges import ByteRange, Unsatisfiable, parse_range

SIZE = 1000


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("bytes=0-0", ByteRange(0, 0)),
        ("bytes=0-499", ByteRange(0, 499)),
        ("bytes=500-", ByteRange(500, 999)),
        ("bytes=-1", ByteRange(999, 999)),
        ("bytes=-5000", ByteRange(0, 999)),  # a suffix longer than the file: all of it
        ("bytes=990-5000", ByteRange(990, 999)),  # clamped to the end
        ("BYTES = 1 - 2", ByteRange(1, 2)),  # unit case and blanks do not matter
    ],
)
def test_one_range(header: str, expected: ByteRange) -> None:
    assert parse_range(header, SIZE) == expected


@pytest.mark.parametrize(
    "header", [None, "", "bytes=", "items=0-1", "bytes=a-b", "bytes=5-1", "bytes=-", "0-1"]
)
def test_not_a_valid_bytes_range_is_ignored(header: str | None) -> None:
    assert parse_range(header, SIZE) is None


@pytest.mark.parametrize(
    ("header", "size"),
    [
        ("bytes=1000-", SIZE),
        ("bytes=1000-1001", SIZE),
        ("bytes=-0", SIZE),
        ("bytes=0-", 0),  # nothing to serve in an empty file
        ("bytes=-5", 0),
        ("bytes=0-1,2-3", SIZE),  # several ranges: GNO serves one
        ("bytes=0-1,-5", SIZE),
    ],
)
def test_unsatisfiable(header: str, size: int) -> None:
    with pytest.raises(Unsatisfiable):
        parse_range(header, size)


def test_content_range() -> None:
    assert ByteRange(10, 19).content_range(SIZE) == "bytes 10-19/1000"
    assert ByteRange(10, 19).length == 10


@given(st.integers(0, 2000), st.integers(0, 2000), st.integers(1, 1500))
def test_a_served_range_lies_inside_the_file(first: int, last: int, size: int) -> None:
    header = f"bytes={first}-{last}"
    try:
        got = parse_range(header, size)
    except Unsatisfiable:
        assert first >= size
        return
    if last < first:
        assert got is None
        return
    assert got is not None and 0 <= got.start <= got.end < size and got.start == first
