"""A query's words are FTS5's tokens (gno.core.fts_tokens): the table matches the installed
SQLite, and any text, indexed, is found by the same text asked, on a real FTS5 table with
gno's tokenizer."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.fts import TOKENIZER, fts_words, index_text, parse_query
from gno.core.fts_tokens import FOLD_DROP, FOLD_FROM, FOLD_TO, VANISHING, WORD_CHARS
from gno.core.mirror import canonicalize
from gno.errors import ValidationError

BENCH = Path(__file__).resolve().parents[2] / "bench"


def code_points(char_class: str) -> set[int]:
    """The code points of a character class body made of single characters and ``a-b``."""
    out: set[int] = set()
    i = 0
    while i < len(char_class):
        if i + 2 < len(char_class) and char_class[i + 1] == "-":
            out.update(range(ord(char_class[i]), ord(char_class[i + 2]) + 1))
            i += 3
        else:
            out.add(ord(char_class[i]))
            i += 1
    return out


def test_the_table_is_the_installed_fts5s() -> None:
    """Fails after a SQLite upgrade that changed unicode61: run bench/fts_token_table.py."""
    sys.path.insert(0, str(BENCH))
    try:
        table = importlib.import_module("fts_token_table")
        live_word, live_vanishing = table.live_tables(TOKENIZER)
        live_folds = table.live_folds(live_word)
    finally:
        sys.path.remove(str(BENCH))
    assert code_points(WORD_CHARS) == set(live_word)
    assert code_points(VANISHING) == set(live_vanishing)
    assert dict(zip(FOLD_FROM, FOLD_TO, strict=True)) == {
        chr(cp): to for cp, to in live_folds.items() if to
    }
    assert set(FOLD_DROP) == {chr(cp) for cp, to in live_folds.items() if not to}


@pytest.fixture(scope="module")
def fts() -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE vocab USING fts5vocab(t, 'instance')")
    return conn


def found(conn: apsw.Connection, document: str, query: str) -> bool:
    conn.execute("DELETE FROM t")
    conn.execute("INSERT INTO t (rowid, body) VALUES (1, ?)", (index_text(document),))
    expr = parse_query(query).match_all()
    return bool(conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)).fetchall())


# The words FTS5 and Python's [^\W_] split differently, and (Cherokee, İ) case FTS5 does not
# fold as str.lower() does.
WORDS = [
    "ẹ́kọ́",  # Yoruba: U+1EB9 U+0301 has no precomposed form
    "q\u0301x",  # IPA
    "\ue000\ue001",  # private use
    "ᏣᎳᎩ",  # Cherokee capitals: lower() gives U+AB70.., which FTS5 does not fold to
    "İstanbul",  # lower() is "i" + U+0307
    "a\u2e42b",  # a code point SQLite's tables do not know: inside a word
]


@pytest.mark.parametrize("word", WORDS)
def test_a_word_fts5_keeps_whole_is_found_as_typed(fts, word: str) -> None:
    assert found(fts, f"notes on {word} here", word)
    assert found(fts, f"notes on {word} here", f'"on {word}"')
    assert len(parse_query(word).positives) == 1


def test_a_word_of_dropped_diacritics_only_is_no_word(fts) -> None:
    # remove_diacritics folds a lone U+0301 to nothing: FTS5 indexed no token for it.
    assert parse_query("kọ́ \u0301").positives == parse_query("kọ́").positives
    assert found(fts, "kọ́ \u0301", "kọ́ \u0301")
    with pytest.raises(ValidationError):
        parse_query("\u0301\u0300")


def test_cjk_bigrams_still_split_as_fts5_does(fts) -> None:
    assert found(fts, "サンプリングの設定", "サンプリング")
    assert found(fts, "ア・イ", "ア・イ")  # U+30FB, inside a CJK run, is no word character
    assert not found(fts, "サンプ", "サンプリング")


LETTERS = (
    "abzAZ09"
    "éÉßẞİıΩωЖж"  # accented, Turkish, Greek, Cyrillic
    "ᏣᎳᎩꮳ"  # Cherokee both cases
    "\u0915\u0924\u093e\u093f\u094d\u0939"  # Devanagari letters, vowel signs, virama
    "\u05d0\u05d1\u0591\u05b0"  # Hebrew letters and marks (FTS5 splits at the marks)
    "\u0627\u0644\u064b"  # Arabic letters and a harakat
    "\u19b0\u19c1"  # New Tai Lue vowels: letters to Python, not to FTS5
    "サンプ設定한국\u3099\u30fb"  # CJK, a combining voiced mark, a middle dot
    "\ue000\U000f0000"  # private use
    "\u2e42\u2e5d\U0001f600\U0001f774"  # unknown to SQLite's tables; emoji
    "\xad\u200d\u200b"  # invisible characters and a word break
)
MARKS = "\u0300\u0301\u0305\u0308\u0323\u0331\u0345\u1ab0\u1abe\u20d0\ufe20"
PUNCTUATION = " .,;:/_'()*^+"  # no '"' or '-': they are query grammar
# Nor a line break (a query is one line), nor VT or FF: the mirror drops them (core/mirror),
# as a query does (fts.MIRROR_DROPPED), where a title or path, not canonicalized, keeps them.
ALPHABET = st.sampled_from(LETTERS + MARKS + PUNCTUATION) | st.characters(
    exclude_categories=("Cs",), exclude_characters='"-\n\r\x0b\x0c'
)


@settings(max_examples=600)
@given(st.text(ALPHABET, max_size=16))
def test_any_text_is_found_by_the_same_text(fts, text: str) -> None:
    document = canonicalize(text)
    try:
        query = parse_query(text)
    except ValidationError:
        # No word: FTS5 indexed no token either.
        conn = fts
        conn.execute("DELETE FROM t")
        conn.execute("INSERT INTO t (rowid, body) VALUES (1, ?)", (index_text(document),))
        assert conn.execute("SELECT count(*) FROM vocab").fetchone() == (0,)
        return
    assert found(fts, document, text), (text, query.match_all())


_UNICODE61 = apsw.Connection(":memory:").fts5_tokenizer("unicode61", ["remove_diacritics", "2"])


@settings(max_examples=400)
@given(st.text(ALPHABET, max_size=24))
def test_fts_words_are_the_tokens_fts5_indexes(text: str) -> None:
    """``fts_words``, the word notion of snippets, highlighting, query shapes, expansion and
    traces: FTS5's own tokens of the indexed text (case and diacritics folded; unstemmed)."""
    document = index_text(canonicalize(text)).encode("utf-8")
    tokens = [t[2] for t in _UNICODE61(document, apsw.FTS5_TOKENIZE_DOCUMENT, None)]
    assert fts_words(text) == tokens
