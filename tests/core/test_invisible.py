"""Invisible characters (gno.core.invisible) neither split a word nor make one, on the
index side (``index_text``) and the query side (``parse_query``) alike, checked on a real
FTS5 table with gno's tokenizer."""

from __future__ import annotations

import sys
import unicodedata

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.caseless import fold
from gno.core.fts import TOKENIZER, index_text, parse_query
from gno.core.invisible import WORD_BREAKS, drop_invisible
from gno.core.query_shape import query_shape
from gno.errors import ValidationError

ALL = [chr(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF]
INVISIBLE = [
    ch
    for ch in ALL
    if (unicodedata.category(ch) in ("Cc", "Cf") and not ch.isspace()) or "\x1c" <= ch <= "\x1f"
]
INVISIBLE = [ch for ch in INVISIBLE if ch not in WORD_BREAKS]
assert len(INVISIBLE) > 200
EXAMPLES = ["\x00", "\x07", "\x1b", "\x1f", "\x7f", "\x9b", "\xad", "\u200d", "\u2060",
            "\u202e", "\ufeff", "\U000e0041"]  # fmt: skip
WORDS = ["opentelemetry", "sampling", "kubernetes", "naïve", "zażółć", "trazas", "exporter"]


def test_the_set_is_every_control_and_format_character_but_whitespace() -> None:
    assert drop_invisible("".join(INVISIBLE)) == ""
    later = {chr(cp) for cp in range(0x13439, 0x13440)}  # format characters of Unicode 15
    dropped = {*INVISIBLE, *WORD_BREAKS, *later}
    kept = "".join(ch for ch in ALL if ch not in dropped)
    assert drop_invisible(kept) == kept  # letters, marks, spaces, tabs, unassigned: all kept
    assert drop_invisible("a\u200bb") == "a b"  # a word break, as UAX #29 has it
    assert (
        drop_invisible("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645")
        == "\u0645\u06cc \u062e\u0648\u0627\u0647\u0645"
    )
    assert drop_invisible("a\tb\x0bc\x0cd\x85e") == "a\tb\x0bc\x0cd\x85e"


@pytest.fixture(scope="module")
def fts() -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{TOKENIZER}')")
    docs = [f"notes on {w}" for w in WORDS] + ["open telemetry", "samp ling", "expo rter"]
    docs += [f"hidden {w[:3]}{ch}{w[3:]}" for w, ch in zip(WORDS, EXAMPLES, strict=False)]
    conn.executemany(
        "INSERT INTO t (rowid, body) VALUES (?, ?)",
        [(i, index_text(d)) for i, d in enumerate(docs)],
    )
    return conn


def hits(conn: apsw.Connection, query: str) -> set[int]:
    expr = parse_query(query).match_all()
    return {r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,))}


@pytest.mark.parametrize("ch", EXAMPLES)
def test_a_character_inside_a_query_word_is_not_a_word_break(fts, ch: str) -> None:
    assert hits(fts, f"open{ch}telemetry") == hits(fts, "opentelemetry") == {0, 10}
    assert 7 not in hits(fts, f"open{ch}telemetry")  # the page with "open telemetry"


def test_a_character_inside_an_indexed_word_is_not_a_word_break(fts) -> None:
    for i, word in enumerate(WORDS):
        assert hits(fts, word) >= {i, 10 + i}, word
    assert hits(fts, '"open"') == {7}  # nothing split "opentelemetry" into "open ..."
    assert hits(fts, "telemetry") == {7}


@settings(max_examples=300, deadline=None)
@given(
    word=st.sampled_from(WORDS),
    at=st.integers(1, 12),
    inserted=st.lists(st.sampled_from(INVISIBLE), min_size=1, max_size=3),
)
def test_invisible_characters_never_change_a_single_word_query(fts, word, at, inserted) -> None:
    at = min(at, len(word) - 1)
    typed = word[:at] + "".join(inserted) + word[at:]
    assert hits(fts, typed) == hits(fts, word)
    assert parse_query(typed) == parse_query(word)
    assert query_shape(typed) == query_shape(word)
    assert fold(typed) == fold(word)


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        st.sampled_from(INVISIBLE + list("ab -\"'\t*()^:") + ["\u200b", "\u200c", "é"]), max_size=24
    )
)
def test_any_query_parses_or_is_refused_and_fts5_accepts_it(fts, query: str) -> None:
    try:
        expr = parse_query(query).match_all()
    except ValidationError:
        return
    fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)).fetchall()
    visible = drop_invisible(query)
    assert parse_query(visible) == parse_query(query)


def test_only_invisible_characters_is_an_empty_query() -> None:
    with pytest.raises(ValidationError):
        parse_query("\u200d\xad\x00")


def test_a_mark_kept_apart_by_an_invisible_character_composes() -> None:
    assert index_text("nai\xad\u0308ve") == "naïve"
    assert parse_query("nai\u200d\u0308ve").terms == ("naïve",)
