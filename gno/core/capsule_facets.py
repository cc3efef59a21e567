"""The facets of a Capsule goal (engine.md §6.1 step 2) and whether a passage covers one.

Facets are what coverage is measured against: quoted spans, query-mode texts, comparison
operands, capitalized entity runs, temporal signals and every other word longer than one
character that is not a stop word; lowercased, de-duplicated, at most 128 of at most 512
characters, sorted by UTF-16 code unit. A goal that yields none has the whole goal as its
one facet. All scans are linear (no backtracking patterns).
"""

from __future__ import annotations

import re
import unicodedata

from gno.core.feedback import STOPWORDS as FEEDBACK_STOPWORDS
from gno.core.fts import STOPWORDS as FTS_STOPWORDS

MAX_FACETS = 128
MAX_FACET_CHARS = 512
TEMPORAL = ("today", "yesterday", "this week", "last week", "this month", "last month",
            "latest", "most recent", "recent")  # fmt: skip
STOPWORDS = FEEDBACK_STOPWORDS | FTS_STOPWORDS | frozenset(
    ("vs", "versus", "compare", "compared", "does", "did", "can", "could", "should", "would",
     "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "am", "was",
     "were", "been", "being", "have", "has", "had", "it", "its", "me", "my", "we", "our", "you",
     "your", "they", "their", "them", "i", "about", "into", "onto", "from", "with", "without")
)  # fmt: skip
_QUOTED = re.compile(r'"([^"\n]{2,512})"')
_WORD = re.compile(r"[^\W_][\w.+#-]*", re.UNICODE)
_COMPARE = re.compile(r"\s(?:vs\.?|versus|compared (?:to|with))\s", re.I)


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text).lower()
    return " ".join(text.split()).strip(" .,;:!?()[]{}'\"")[:MAX_FACET_CHARS]


def facets(goal: str, mode_texts: list[str] | None = None) -> list[str]:
    """The sorted facets of a normalized goal (and its query-mode texts)."""
    found: list[str] = []
    found += [m for m in _QUOTED.findall(goal)]
    found += list(mode_texts or [])
    unquoted = _QUOTED.sub(" ", goal)
    parts = _COMPARE.split(unquoted)
    if len(parts) > 1:
        found += parts
    elif (at := goal.lower().find("compare ")) >= 0 and (
        sep := goal.lower().find(" and ", at + 8)
    ) > 0:  # "compare X and Y"
        found += [goal[at + 8 : sep], goal[sep + 5 :]]
    words = _WORD.findall(unquoted)
    run: list[str] = []
    for word in [*words, ""]:  # "" flushes the last run
        if word[:1].isupper() and word.lower() not in STOPWORDS:
            run.append(word)
            continue
        if run:
            found.append(" ".join(run))
        run = []
    lowered = " ".join(goal.lower().split())
    found += [t for t in TEMPORAL if re.search(rf"\b{t}\b", lowered)]
    found += [w for w in words if len(w) > 1 and w.lower().strip(".-") not in STOPWORDS]
    cleaned = {c for c in (_clean(f) for f in found) if c}
    if not cleaned:
        cleaned = {_clean(goal) or goal[:MAX_FACET_CHARS]}
    ordered = sorted(cleaned, key=lambda f: f.encode("utf-16-be", "surrogatepass"))
    return ordered[:MAX_FACETS]


def is_temporal(facet: str) -> bool:
    return facet in TEMPORAL


def covered(facet: str, haystack: str, dated: bool) -> bool:
    """Whether a passage (its lowercased normalized ``title\\ntext``) covers ``facet``.
    A temporal facet is covered by a passage of a dated document (retrieval already
    applied the period or the recency order the word asked for)."""
    if is_temporal(facet):
        return dated
    return facet in haystack


def haystack(title: str | None, text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", f"{title or ''}\n{text}").lower().split())
