"""Pseudo-relevance feedback for the BM25 leg (issue 12 §3). Pure.

The best documents of a first fusion pass are taken as relevant; words they share that the
query lacks, weighted by how often they occur there and how rare they are in the whole
index (tf·idf), become a few extra terms of one more BM25 list. Bounded everywhere: the
documents read, the characters read from each, the candidates counted, the terms kept.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

FEEDBACK_DOCS = 3  # top documents of the first pass read
FEEDBACK_CHARS = 6_000  # characters read from each (the costly part: ~1 ms per 1,000)
FEEDBACK_CANDIDATES = 12  # most frequent shared words whose document frequency is looked up
FEEDBACK_TERMS = 5  # terms added
MIN_SHARED = 2  # a term must occur in this many of the documents read
MAX_DF_SHARE = 0.2  # a term in more than this share of the index says nothing
VECTOR_BETA = 0.5  # vector feedback: how far the query vector moves toward the top chunks

_WORD = re.compile(r"[a-z][a-z0-9]{3,23}")
_NOISE = re.compile(r"```.*?```|https?://\S+|\{\{[<%].*?[%>]\}\}", re.S)
STOPWORDS = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "also",
        "always",
        "another",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "cannot",
        "could",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "even",
        "every",
        "from",
        "further",
        "have",
        "having",
        "here",
        "into",
        "itself",
        "just",
        "least",
        "more",
        "most",
        "much",
        "must",
        "need",
        "only",
        "other",
        "over",
        "same",
        "should",
        "since",
        "some",
        "such",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "very",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "will",
        "with",
        "within",
        "without",
        "would",
        "your",
        "yours",
        "using",
        "used",
        "uses",
        "make",
        "makes",
        "made",
        "like",
        "example",
        "examples",
        "following",
        "section",
        "value",
        "values",
        "true",
        "false",
        "null",
        "none",
        "name",
        "names",
        "docs",
        "page",
        "pages",
        "http",
        "https",
        "title",
        "description",
        "weight",
        "linktitle",
        "aliases",
        "cspell",
        "ignore",
    ]
)
# Generic words that say nothing about a topic (a fuller English stop list than FTS needs).
STOPWORDS |= frozenset(
    [
        "might",
        "want",
        "because",
        "consider",
        "could",
        "able",
        "across",
        "already",
        "although",
        "among",
        "around",
        "become",
        "better",
        "default",
        "different",
        "done",
        "either",
        "enough",
        "first",
        "given",
        "however",
        "instead",
        "less",
        "likely",
        "many",
        "means",
        "often",
        "order",
        "part",
        "please",
        "possible",
        "rather",
        "really",
        "right",
        "second",
        "several",
        "simply",
        "still",
        "sure",
        "take",
        "things",
        "think",
        "thus",
        "together",
        "upon",
        "usually",
        "various",
        "well",
        "whether",
        "work",
        "works",
        "yourself",
        "para",
        "como",
    ]
)


def stem(word: str) -> str:
    """A crude stem (first 6 letters) so `exporter`/`exporters` count as the query's."""
    return word[:6]


def candidate_terms(texts: Sequence[str], query: str) -> list[tuple[str, float]]:
    """Words shared by at least MIN_SHARED of the texts, not in the query, by summed
    log term frequency (best first), at most FEEDBACK_CANDIDATES."""
    asked = {stem(w) for w in re.findall(r"[a-z0-9]+", query.lower())}
    per_doc = [
        Counter(_WORD.findall(_NOISE.sub(" ", text[:FEEDBACK_CHARS]).lower()))
        for text in texts[:FEEDBACK_DOCS]
    ]
    need = min(MIN_SHARED, len(per_doc))
    seen = Counter(word for counts in per_doc for word in counts)
    shared = {
        word: sum(math.log1p(counts.get(word, 0)) for counts in per_doc)
        for word, docs in seen.items()
        if docs >= need and word not in STOPWORDS and stem(word) not in asked
    }
    ranked = sorted(shared.items(), key=lambda ws: (-ws[1], ws[0]))
    return ranked[:FEEDBACK_CANDIDATES]


def pick_terms(
    candidates: Sequence[tuple[str, float]], df: Mapping[str, int], total_docs: int
) -> list[tuple[str, float]]:
    """The FEEDBACK_TERMS candidates with the best tf·idf; words in more than MAX_DF_SHARE
    of the index (or in none) are dropped."""
    if total_docs <= 0:
        return []
    scored = []
    for word, tf in candidates:
        freq = df.get(word, 0)
        if freq <= 0 or freq > MAX_DF_SHARE * total_docs:
            continue
        scored.append((word, round(tf * math.log(total_docs / freq), 4)))
    scored.sort(key=lambda ws: (-ws[1], ws[0]))
    return scored[:FEEDBACK_TERMS]
