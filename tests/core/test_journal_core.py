"""The journal's pure half: bounded structure deltas, cursors, change ids, ``since``."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gno.core import journal as j
from gno.core.identity import make_uri
from gno.core.journal_form import pack_entry, unpack_entry
from gno.errors import ValidationError

NOW = datetime(2026, 8, 1, 12, 0, tzinfo=UTC)
items = st.frozensets(st.text(min_size=1, max_size=400), max_size=40)


def test_headings_skip_fences_and_frontmatter() -> None:
    mirror = "---\ntitle: x\n# not\n---\n# Top\n\n```\n## in code\n```\n## Part ##\nnot # heading\n"
    assert j.headings(mirror, 4) == frozenset({"# Top", "## Part"})


@given(items, items)
def test_set_delta_is_bounded_and_exact_when_small(
    old: frozenset[str], new: frozenset[str]
) -> None:
    delta, truncated = j.set_delta(old, new)
    for side in ("added", "removed"):
        assert len(delta[side]) <= j.MAX_ITEMS
        assert len(set(delta[side])) == len(delta[side])
        for item in delta[side]:
            assert 1 <= len(json.dumps(item, ensure_ascii=False).encode()) <= j.MAX_ITEM_BYTES
    small = all(len(json.dumps(x).encode()) < j.MAX_ITEM_BYTES - 8 for x in old | new)
    if small and len(new - old) <= j.MAX_ITEMS and len(old - new) <= j.MAX_ITEMS:
        assert not truncated
        assert set(delta["added"]) == set(new - old) - {""}
        assert set(delta["removed"]) == set(old - new) - {""}
    if len(new - old) > j.MAX_ITEMS:
        assert truncated


@given(
    items,
    items,
    st.dictionaries(st.text(min_size=1, max_size=300), st.text(max_size=300), max_size=30),
)
def test_structure_delta_fits_its_byte_bound(
    old: frozenset[str], new: frozenset[str], dates: dict[str, str]
) -> None:
    delta = j.structure_delta(j.Structure(old, old, old, {}), j.Structure(new, new, new, dates))
    assert len(json.dumps(delta, ensure_ascii=False).encode()) <= j.MAX_DELTA_BYTES
    assert set(delta) == {"headings", "links", "typedEdges", "dates", "truncated"}


@given(st.integers(min_value=0, max_value=2**53))
def test_cursor_round_trips(sequence: int) -> None:
    cursor = j.encode_cursor(sequence)
    assert cursor.startswith("gno-change-v1.")
    assert j.decode_cursor(cursor) == sequence
    assert j.parse_since(cursor, NOW).sequence == sequence


@pytest.mark.parametrize(
    "bad",
    ["gno-change-v1.", "gno-change-v1.!!!", "gno-change-v1.eyJzZXF1ZW5jZSI6LTF9", "other.abc"],
)
def test_bad_cursors_are_validation_errors(bad: str) -> None:
    with pytest.raises(ValidationError):
        j.decode_cursor(bad)


def test_since_forms() -> None:
    assert j.parse_since("2h", NOW).time == "2026-08-01T10:00:00.000Z"
    assert j.parse_since("7d", NOW).time == "2026-07-25T12:00:00.000Z"
    assert j.parse_since("2026-07-01", NOW).time == "2026-07-01T00:00:00.000Z"
    assert j.parse_since("2026-07-01T05:00:00+02:00", NOW).time == "2026-07-01T03:00:00.000Z"
    assert j.parse_since(None, NOW) == j.Since()
    assert j.parse_since("999999w", NOW) == j.Since()  # before year 1: from the start
    # an offset past the start of the calendar raised OverflowError ("Internal error")
    assert j.parse_since("0001-01-01T00:00:00+01:00", NOW).time == "0001-01-01T00:00:00.000Z"
    for bad in ("yesterday-ish", "", "2h30", "x" * 600):
        with pytest.raises(ValidationError):
            j.parse_since(bad, NOW)


def test_change_ids() -> None:
    assert j.parse_change_id(j.change_id(42)) == 42
    for bad in ("42", "gno-change-id-v1.x", "gno-change-id-v1.-1"):
        with pytest.raises(ValidationError):
            j.parse_change_id(bad)


@given(st.text(max_size=24))
@example("\u00b2")  # a superscript two: str.isdigit() says yes, int() refuses it
@example("\u0661")  # an Arabic-Indic one: int() reads it as 1
def test_a_change_id_is_ascii_digits_or_validation(body: str) -> None:
    """Any other id is VALIDATION: a digit int() refused was an internal error on every
    surface (HTTP 500), and one int() read named a change gno never issued by that id."""
    try:
        sequence = j.parse_change_id(j.CHANGE_PREFIX + body)
    except ValidationError:
        assert not (body.isascii() and body.isdigit() and len(body) <= 18)
        return
    assert j.change_id(sequence) == j.CHANGE_PREFIX + body.lstrip("0").rjust(1, "0")
    assert body.isascii() and body.isdigit()


def test_headings_are_linear_on_hostile_lines() -> None:
    """A heading line with a long run of spaces or hashes is one regex pass, not quadratic."""
    hostile = "# a" + " " * 200_000 + "x\n" + "## " + " #" * 100_000 + "\n"
    found = j.headings(hostile)
    assert len(found) == 2 and all(len(h) < 500_000 for h in found)
    assert j.headings("## Title ##\n### C# notes\n#NoSpace\n") == {"## Title", "### C# notes"}


hexes = st.text("0123456789abcdef", min_size=64, max_size=64)
snapshots = st.builds(
    lambda path, source, mirror, active: {
        "relPath": path,
        "docid": "#" + source[:8],
        "uri": make_uri("notes", path),
        "sourceHash": source,
        "mirrorHash": source if mirror == "same" else mirror,
        "active": active,
    },
    st.text(min_size=1, max_size=40).filter(lambda p: "\x00" not in p),
    hexes,
    st.one_of(st.none(), st.just("same"), hexes),
    st.booleans(),
)


def _json(value: object) -> object:
    """A wire form as its JSON reads (empty arrays are shared tuples in memory)."""
    return json.loads(json.dumps(value))


@given(st.one_of(st.none(), snapshots), st.one_of(st.none(), snapshots), items, items)
def test_stored_form_round_trips(previous, current, old, new) -> None:
    delta = j.structure_delta(
        j.Structure(old, old, new, {}), j.Structure(new, old, old, {"d": "x"})
    )
    entry = unpack_entry(pack_entry(previous, current, delta), "notes")
    assert _json(entry) == {"previous": previous, "current": current, "structureDelta": delta}


@given(
    st.frozensets(st.sampled_from(["wiki:a", "wiki:b", "markdown:c.md", "markdown:d/e.md"])),
    st.frozensets(
        st.sampled_from(["mentions:a", "related_to:c.md", "depends_on:x", "mentions:zz"])
    ),
)
def test_stored_form_keeps_edges_the_links_do_not_imply(links, edges) -> None:
    delta = j.structure_delta(j.EMPTY, j.Structure(frozenset(), links, edges, {}))
    entry = unpack_entry(pack_entry(None, None, delta), "notes")
    assert _json(entry["structureDelta"]) == delta


@given(
    st.one_of(st.text(max_size=80), st.builds(lambda b: "gno-change-v1." + b, st.text(max_size=60)))
)
def test_since_never_fails_other_than_validation(text: str) -> None:
    try:
        since = j.parse_since(text, NOW)
    except ValidationError:
        return
    assert since.sequence is None or 0 <= since.sequence < 2**63


def test_a_cursor_beyond_sqlite_integers_is_refused() -> None:
    import base64

    huge = (
        "gno-change-v1." + base64.urlsafe_b64encode(b'{"sequence":99999999999999999999}').decode()
    )
    with pytest.raises(ValidationError):
        j.decode_cursor(huge)


def _reference_headings(mirror: str) -> set[str]:
    """Line by line: the obvious reading of 'ATX headings outside fences'."""
    import re

    found, fenced = set(), False
    for line in mirror.split("\n"):
        if re.match(r" {0,3}(```|~~~)", line):
            fenced = not fenced
            continue
        m = re.match(r" {0,3}(#{1,6})[ \t]+(.*)", line)
        if m and not fenced:
            text = m.group(2).rstrip(" \t")
            bare = text.rstrip("#")
            if bare != text and (not bare or bare[-1] in " \t"):
                text = bare.rstrip(" \t")
            if text.strip():
                found.add(f"{m.group(1)} {text.strip()}")
    return found


lines = st.sampled_from(
    ["# A", "## B ##", "```", "~~~ py", "text", "   ### C", "    # code", "#x", ""]
)


@given(st.lists(lines, max_size=40))
def test_headings_match_the_line_by_line_reading(parts: list[str]) -> None:
    mirror = "\n".join(parts) + "\n"
    assert j.headings(mirror) == _reference_headings(mirror)


@given(st.integers(min_value=0, max_value=253402300799999))  # up to 9999-12-31T23:59:59.999Z
@example(526870987)  # float seconds * 1000 truncated this one to ...986
def test_iso_of_ms_is_the_utc_millisecond_timestamp(ms: int) -> None:
    # The formatter caches each second's prefix; the answer must be the plain formatting's.
    plain = datetime.fromtimestamp(ms // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.")
    assert j.iso_of_ms(ms) == f"{plain}{ms % 1000:03d}Z"
    assert j.ms_of_iso(j.iso_of_ms(ms)) == ms


@given(st.text(max_size=300))
def test_the_cheap_fit_test_never_lets_a_long_value_through(value: str) -> None:
    # _fits skips json.dumps for most headings; it may refuse a value that fits, never the reverse
    if j._fits(value):
        assert len(json.dumps(value, ensure_ascii=False).encode()) <= j.MAX_ITEM_BYTES
    assert j._fits("## " + "é" * 120)  # printable, 243 UTF-8 bytes: fits without a dump
    assert not j._fits('## "' + "x" * 250)  # too long once quoted
