"""The lexical proof's probe words: title words of four letters or more, longest first,
unique per document (case-insensitively), document after document, bounded in all."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from gno.core.probe_words import probe_words


@dataclass(frozen=True)
class Doc:
    title: str | None


def test_longest_first_unique_per_document_then_the_next_document() -> None:
    docs = [Doc("OpenTelemetry semantic Semantic conventions for Apps"), Doc(None), Doc("Quokka")]
    assert [(w, d.title) for w, d in probe_words(docs, 64)] == [
        ("OpenTelemetry", docs[0].title),
        ("conventions", docs[0].title),
        ("semantic", docs[0].title),
        ("Apps", docs[0].title),
        ("Quokka", "Quokka"),
    ]
    assert [w for w, _ in probe_words(docs, 2)] == ["OpenTelemetry", "conventions"]
    assert list(probe_words([Doc("a 12 of the"), Doc("")], 64)) == []


@given(st.lists(st.text(max_size=60).map(Doc), max_size=10), st.integers(0, 70))
def test_never_more_than_the_limit_and_every_word_is_in_its_title(
    docs: list[Doc], limit: int
) -> None:
    pairs = list(probe_words(docs, limit))
    assert len(pairs) <= limit
    for word, doc in pairs:
        assert len(word) >= 4 and word in (doc.title or "")
