"""The shape of a query and the fusion weights it gets (issue 12 §3). Pure.

Identifiers (``OTEL_BSP_SCHEDULE_DELAY``, ``db.query.text``, ``SeverityNumber``) and quoted
phrases are matched best by BM25: the vector list, which has no notion of an exact name,
weighs less. Long natural questions share few words with their answer: the vector list
weighs more. Everything else keeps GNO's equal weights.
"""

from __future__ import annotations

import re

from gno.core.fts import fts_words
from gno.core.invisible import drop_invisible

IDENTIFIER, KEYWORD, QUESTION = "identifier", "keyword", "question"
QUESTION_WORDS = 6  # a query of this many words or more reads as a question
CJK_QUESTION_CHARS = 12  # the same for CJK text, counted in characters

# Something only a name looks like: snake_case / SCREAMING_CASE, dotted.names, camelCase or
# PascalCase with an inner capital, a path, a flag, a word with digits inside (k8sattributes).
# Its \w is a name's characters ("_" included), not FTS5's words: it sees how a name is written.
_IDENT = re.compile(
    r"[A-Za-z0-9]+_[A-Za-z0-9_]+|[A-Za-z][\w-]*\.[A-Za-z][\w.-]*|[a-z]+[A-Z][A-Za-z0-9]*"
    r"|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|--?[a-z][\w-]+|\S*/\S+|[a-z]+\d+[a-z]{3,}"
)
_ENDS_QUESTION = re.compile(r"[?？]\s*$")
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")

# bm25 / bm25_variant / feedback / vector weights per shape (the rest stay GNO's).
SHAPE_WEIGHTS: dict[str, dict[str, float]] = {
    IDENTIFIER: {"bm25": 3.0, "vector": 1.0},
    KEYWORD: {"bm25": 2.0, "vector": 2.0},
    QUESTION: {"bm25": 1.5, "vector": 2.5},
}


def query_shape(text: str) -> str:
    """``identifier``, ``question`` or ``keyword`` for one query line. Invisible characters
    are dropped first (core/invisible), as search drops them: a soft hyphen inside a word
    does not make two words here either."""
    stripped = drop_invisible(text).strip()
    tokens = stripped.split()
    if '"' in stripped:
        return IDENTIFIER
    if (
        tokens
        and len(tokens) <= 3
        and any(_IDENT.fullmatch(t.strip("`'()[]{},;:")) for t in tokens)
    ):
        return IDENTIFIER
    if _CJK.search(stripped):  # no spaces between words: count characters instead
        cjk = len(_CJK.findall(stripped))
        return QUESTION if cjk >= CJK_QUESTION_CHARS or _ENDS_QUESTION.search(stripped) else KEYWORD
    words = fts_words(stripped)  # as search splits them (gno.core.fts)
    if len(words) >= QUESTION_WORDS or (len(words) >= 3 and _ENDS_QUESTION.search(stripped)):
        return QUESTION
    return KEYWORD


# The ``languageWeights`` stage, with an embedding model that reads English only: an English
# question leans on the vector list almost alone (its words are rarely the page's), and a
# question in another language keeps the keyword weights (the model cannot read it).
ENGLISH_QUESTION_WEIGHTS = {"bm25": 0.01, "vector": 3.0}


def shape_weights(shape: str) -> dict[str, float]:
    return dict(SHAPE_WEIGHTS.get(shape, SHAPE_WEIGHTS[KEYWORD]))


def language_weights(language: str | None) -> dict[str, float]:
    """A question's weights under ``languageWeights``: English (``en``, or plain ASCII with no
    sign of another language) leans on the vectors, anything else gets the keyword weights."""
    return dict(ENGLISH_QUESTION_WEIGHTS if language == "en" else SHAPE_WEIGHTS[KEYWORD])
