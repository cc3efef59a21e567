"""The terminal highlighter (gno/render/style.py) styles the words search matched: the words
FTS5 indexed, compared as FTS5 compares them, checked against FTS5's own tokenizer."""

from __future__ import annotations

import unicodedata

import apsw
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.fts import index_text
from gno.render.style import MATCH, RESET, highlight, term_stems

_TOKENIZE = apsw.Connection(":memory:").fts5_tokenizer("unicode61", ["remove_diacritics", "2"])


def fts5_words(text: str) -> list[str]:
    """The tokens FTS5 indexes for ``text`` (case and diacritics folded, no stemming)."""
    return [t[2] for t in _TOKENIZE(index_text(text).encode(), apsw.FTS5_TOKENIZE_DOCUMENT, None)]


def styled(shown: str) -> list[str]:
    return [piece.split(RESET)[0] for piece in shown.split(MATCH)[1:]]


def test_words_are_fts5s_and_folded_as_fts5_folds_them() -> None:
    stems = term_stems("naive ecole snake_case")
    shown = highlight("The nai\xadve NAÏVE e\u0301cole; SNAKE_Case q\u0301x.", stems, True)
    assert styled(shown) == ["nai\xadve", "NAÏVE", "e\u0301cole", "SNAKE", "Case"]
    assert styled(highlight("The nai\xad\u0308ve way", term_stems("naïve"), True)) == [
        "nai\xad\u0308ve"
    ]
    # \w would split at the combining acute, and take "_" into a word: FTS5 does neither.
    assert styled(highlight("q\u0301x under_score", term_stems("q\u0301x score"), True)) == [
        "q\u0301x",
        "score",
    ]


LETTERS = "abeinrsvxzAÉÏNSZéïıİßΩωЖж\u0301\u0308"
TEXT = st.text(st.sampled_from(LETTERS + " .,;_'\xad\u200d"), max_size=40)


@settings(max_examples=300, deadline=None)
@given(TEXT, st.lists(st.text(st.sampled_from(LETTERS), min_size=1, max_size=6), max_size=3))
def test_the_styled_words_are_the_fts5_words_a_stem_begins(text: str, query: list[str]) -> None:
    text = unicodedata.normalize("NFC", text)
    stems = term_stems(" ".join(query))
    shown = highlight(text, stems, True)
    assert shown.replace(MATCH, "").replace(RESET, "") == text  # nothing else changed
    marked = [w for w in fts5_words(text) if stems and w.startswith(stems)]
    assert [fts5_words(word)[0] for word in styled(shown)] == marked
