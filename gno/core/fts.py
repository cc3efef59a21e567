"""What FTS5 sees: the index-time text transform and the query grammar.

Tokenizer: ``porter unicode61 remove_diacritics 2`` — English stems match
("sampling" finds "sample"), accents fold ("trazás" = "trazas"). unicode61 would
keep a run of CJK characters as one giant token, so before text reaches FTS5 every
CJK run is rewritten as overlapping character bigrams ("サンプリング" ->
"サン ンプ プリ リン ング"); a CJK query term becomes the phrase of its bigrams.

Query grammar (GNO's, engine.md §5.1): whitespace-separated terms, all required;
``"quoted phrases"``; ``-term`` / ``-"phrase"`` exclude (needs a positive term);
a token made of several word parts (``gpt-4``, ``OTEL_EXPORTER_OTLP_ENDPOINT``,
``span.kind``) is a phrase of its parts; other terms match as prefixes, except
short terms and stopwords, which match exactly so a stopword-heavy query never
expands into thousands of prefix terms.

A query's words are split where FTS5 split the indexed text, code point for code point
(``gno.core.fts_tokens``, FTS5's own table): Python's word characters differ from unicode61 on
about a million code points (a combining acute is inside a word for FTS5, so Yoruba "ẹ́"
or IPA is one word, not two; so are private-use and, SQLite's Unicode tables being older,
unassigned code points). Case is left to FTS5 but for A-Z: Python's ``lower()`` folds
letters FTS5 keeps as they are (Cherokee, "İ" to "i" plus a combining dot).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from gno.core.invisible import ASCII_INVISIBLE_CLASS, INVISIBLE_CLASS, drop_invisible
from gno.errors import ValidationError

TOKENIZER = "porter unicode61 remove_diacritics 2"
CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_ASCII_WORD_PART = re.compile(r"[A-Za-z0-9]+")  # what FTS5 keeps in a word, in ASCII
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_TOKEN = re.compile(r'-?"[^"]*"|\S+')
# VT and FF: the mirror (core/mirror, GNO's rule) deletes them, so "foo<VT>bar" was indexed as
# "foobar"; a query deletes them too (Python's split and splitlines would read a break there).
MIRROR_DROPPED = str.maketrans("", "", "\x0b\x0c")
MIN_PREFIX_LEN = 3
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "de",
        "del",
        "des",
        "di",
        "do",
        "du",
        "e",
        "el",
        "en",
        "es",
        "et",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "la",
        "le",
        "les",
        "los",
        "na",
        "no",
        "o",
        "of",
        "on",
        "or",
        "para",
        "por",
        "que",
        "the",
        "to",
        "un",
        "una",
        "und",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "y",
    ]
)


@cache
def _cjk_runs() -> re.Pattern[str]:
    """CJK runs (a capturing group: ``split`` keeps them). Compiled on the first text that
    is not ASCII: this character class alone takes ~3 ms of every CLI start to compile,
    and ASCII text (most queries) cannot contain it."""
    return re.compile(f"([{CJK_RANGES}]+)")


def has_cjk(text: str) -> bool:
    return not text.isascii() and _cjk_runs().search(text) is not None


def _run_bigrams(run: str) -> str:
    return " " + (" ".join(map(str.__add__, run[:-1], run[1:])) if len(run) > 1 else run) + " "


def index_text(text: str) -> str:
    """The text given to FTS5 for a title, path or body: invisible characters dropped
    (core/invisible: the query drops them too), CJK runs as bigrams. A mark that an
    invisible character kept from composing composes now, as the query's does (NFC)."""
    visible = drop_invisible(text)
    if visible is not text and not visible.isascii():
        text = unicodedata.normalize("NFC", visible)
    else:
        text = visible
    if not has_cjk(text):
        return text
    pieces = _cjk_runs().split(text)  # odd items are the CJK runs
    pieces[1::2] = [_run_bigrams(run) for run in pieces[1::2]]
    return "".join(pieces)


@cache
def _word_parts() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """FTS5's word characters, and a screen for a word that folds to nothing. Compiled on
    the first query that is not ASCII (~4 ms: the class has some 400 ranges)."""
    from gno.core.fts_tokens import VANISHING, WORD_CHARS

    return re.compile(f"[{WORD_CHARS}]+"), re.compile(f"[^{VANISHING}]")


def _words(text: str) -> list[str]:
    """A query's words as FTS5 indexed them, split where FTS5 splits (the module says why),
    A-Z lowercased. The mirror is NFC (core/mirror), so a query typed decomposed (NFD, as
    macOS and some keyboards give it) is composed first, as the text FTS5 saw was. A word
    of diacritics only, which remove_diacritics folds to nothing, is no word. Invisible
    characters are dropped as ``index_text`` drops them (core/invisible)."""
    text = drop_invisible(text).translate(MIRROR_DROPPED)
    if text.isascii():
        return _ASCII_WORD_PART.findall(index_text(text).translate(_ASCII_LOWER))
    text = index_text(unicodedata.normalize("NFC", text)).translate(_ASCII_LOWER)
    word_part, kept = _word_parts()
    return [w for w in word_part.findall(text) if w.isascii() or kept.search(w)]


@cache
def _fold_table() -> dict[int, int | None]:
    from gno.core.fts_tokens import FOLD_DROP, FOLD_FROM, FOLD_TO

    return str.maketrans(FOLD_FROM, FOLD_TO, FOLD_DROP)


def fold_characters(text: str) -> str:
    """``text`` (not ASCII) with each character folded as FTS5 folds it (``fold``, no NFC)."""
    return text.translate(_fold_table())


def fold(word: str) -> str:
    """``word`` as FTS5 compares it: invisible characters dropped and NFC, as ``index_text``
    gives it, then case and diacritics folded code point by code point from FTS5's own table
    (gno.core.fts_tokens): "Naïve", "NAÏVE" and "nai<U+00AD><U+0308>ve" are all "naive"."""
    word = drop_invisible(word)
    if word.isascii():
        return word.translate(_ASCII_LOWER)
    return fold_characters(unicodedata.normalize("NFC", word))


def fts_words(text: str) -> list[str]:
    """The words of ``text`` as FTS5 indexed and compares them: split as a query is split
    (``_words``: where FTS5 splits, CJK runs as bigrams), each folded (``fold``). For any
    word notion that must agree with what search matches."""
    return [folded for folded in map(fold, _words(text)) if folded]


# A word as FTS5 read it in text not yet through ``index_text``: its word characters and the
# invisible characters it dropped from between them. One character class: linear.
_ASCII_WORD_SPAN = re.compile(f"[A-Za-z0-9{ASCII_INVISIBLE_CLASS}]+")


@cache
def _word_span() -> re.Pattern[str]:
    from gno.core.fts_tokens import WORD_CHARS

    return re.compile(f"[{WORD_CHARS}{INVISIBLE_CLASS}]+")


def word_spans(text: str) -> Iterator[re.Match[str]]:
    """Each word of ``text`` (a mirror's, a snippet's) where FTS5 found it, invisible
    characters inside included: ``fold(m.group())`` is the word FTS5 indexed (a run of
    invisible characters alone folds to ""). The large pattern loads for non-ASCII only."""
    return (_ASCII_WORD_SPAN if text.isascii() else _word_span()).finditer(text)


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


@dataclass(frozen=True)
class FtsQuery:
    """A user query as FTS5 expressions: what must match, what must not, and the words."""

    positives: tuple[str, ...]  # FTS5 sub-expressions, one per query term or phrase
    negatives: tuple[str, ...]
    terms: tuple[str, ...]  # plain lowercased words, for snippets and highlighting

    def match_all(self) -> str:
        return self._with_negatives(" AND ".join(self.positives))

    def match_any(self) -> str:
        return self._with_negatives(" OR ".join(self.positives))

    def _with_negatives(self, positive: str) -> str:
        expr = f"({positive})"
        for negative in self.negatives:
            expr += f" NOT {negative}"
        return expr


def _term_expr(token: str) -> str | None:
    words = _words(token)
    if not words:
        return None
    if len(words) > 1:
        return _quote(" ".join(words))
    word = words[0]
    cjk = has_cjk(word)
    if cjk or len(word) < MIN_PREFIX_LEN or word in STOPWORDS:
        return _quote(word)
    return _quote(word) + "*"


def parse_query(query: str) -> FtsQuery:
    # Invisible characters go first: a control that Python counts as whitespace (U+001F)
    # would otherwise split a term here before _words could drop it.
    text = drop_invisible(query).translate(MIRROR_DROPPED).strip()
    if not text:
        raise ValidationError("Query cannot be empty")
    if "\n" in text or "\r" in text:
        raise ValidationError("Search query must be a single line")
    if text.count('"') % 2:
        raise ValidationError('Unbalanced quotes in query: every " needs a closing "')
    positives: list[str] = []
    negatives: list[str] = []
    terms: list[str] = []
    for raw in _TOKEN.findall(text):
        negate = raw.startswith("-") and len(raw) > 1
        token = raw[1:] if negate else raw
        if token.startswith('"'):
            words = _words(token.strip('"'))
            expr = _quote(" ".join(words)) if words else None
        else:
            words = _words(token)
            expr = _term_expr(token)
        if expr is None:
            continue
        if negate:
            negatives.append(expr)
        else:
            positives.append(expr)
            terms.extend(word.lower() for word in words)
    if not positives:
        if negatives:
            raise ValidationError("A query needs at least one term that is not excluded")
        raise ValidationError(f"Query has no searchable terms: {query!r}")
    return FtsQuery(
        tuple(dict.fromkeys(positives)),
        tuple(dict.fromkeys(negatives)),
        tuple(dict.fromkeys(terms)),
    )


MAX_CJK_TERMS = 32  # bigrams of a relaxed CJK query (each one more FTS5 term)


def cjk_any(query: str) -> str | None:
    """For a query with CJK text: every CJK bigram (and other word) as an alternative, or
    None without CJK. A CJK question is one long run whose bigram phrase no page contains;
    BM25 over its bigrams ranks the pages sharing most of them first."""
    if not has_cjk(query):
        return None
    words = list(dict.fromkeys(w for w in _words(query) if w not in STOPWORDS))
    if not words:
        return None
    return "(" + " OR ".join(_quote(w) for w in words[:MAX_CJK_TERMS]) + ")"
