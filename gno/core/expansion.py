"""Generated query expansion (engine.md §9.4, §5.4 step 4). Pure: no I/O, no model.

An expand model is asked, with prompt version ``v3``, for keyword variants
(``lexicalQueries``), rephrasings (``vectorQueries``) and an answer-like passage
(``hyde``) as one JSON object. What comes back is distrusted:

- ``parse_answer`` takes the first ``{…}`` in the text that decodes as a JSON
  object (prose or code fences around it are ignored), keeps strings only,
  collapses whitespace, drops duplicates and keeps at most ``MAX_VARIANTS`` per list;
- ``guard`` keeps a variant only when it overlaps the query (contains one of its
  quoted phrases, critical entities or negated terms, or shares a word that is
  not a stopword), puts an *anchor* lexical query (entities + quoted phrases +
  negations of the query) first, falls back to the query itself for an empty
  list, and drops a HyDE passage that does not overlap.

Invariants (property-tested): every guarded variant is the query itself or
overlaps it; no list is longer than ``MAX_VARIANTS``; the same input gives the
same output.

One deliberate refinement of GNO's entity rule ("tokens with uppercase"): a
capital that only starts the query ("Keep only slow traces") makes no entity,
and neither does a capitalized stopword; otherwise every question would anchor
on its first word.

``strong_signal`` decides whether BM25 alone is confident enough to skip the
model: the raw BM25 scores of the top five hits mapped through
``1 / (1 + exp(-(|s| - 4.5) / 2.8))``; skip when the top is ≥ 0.84 and leads the
second by ≥ 0.14.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gno.core.fts import STOPWORDS, fts_words, has_cjk

PROMPT_VERSION = "v3"
MAX_VARIANTS = 5
MAX_TOKENS = 512  # generation budget of one expansion call
TIMEOUT_SECONDS = 5.0
MAX_DECODE_ATTEMPTS = 32  # '{' positions tried by parse_answer

STRONG_TOP, STRONG_GAP, STRONG_WINDOW = 0.84, 0.14, 5
_BM25_CENTER, _BM25_SCALE = 4.5, 2.8

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "lexicalQueries": {
            "type": "array",
            "items": {"type": "string", "maxLength": 120},
            "maxItems": MAX_VARIANTS,
        },
        "vectorQueries": {
            "type": "array",
            "items": {"type": "string", "maxLength": 200},
            "maxItems": MAX_VARIANTS,
        },
        "hyde": {"type": "string", "maxLength": 1000},
    },
    "required": ["lexicalQueries", "vectorQueries", "hyde"],
    "additionalProperties": False,
}

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ENGLISH = frozenset({"en", "en-us", "en-gb"})
_GERMAN = frozenset({"de", "de-de", "de-at", "de-ch"})

_SHAPE = '{"lexicalQueries": ["..."], "vectorQueries": ["..."], "hyde": "..."}'

_TEMPLATES = {
    "en": (
        "You turn a search query into better searches over a personal knowledge base.\n"
        "The base is searched in two ways: by keywords (BM25) and by meaning (embeddings).\n"
        f"Reply with a single JSON object and nothing else, shaped like {_SHAPE}\n"
        "- lexicalQueries: 2 or 3 keyword searches of 3 to 8 words, using words a "
        "matching note would contain (synonyms, related terms).\n"
        "- vectorQueries: 2 or 3 rephrasings of the query as natural questions, 3 to 8 words each.\n"
        "- hyde: 50 to 100 words written as if taken from the note that answers the query.\n"
        "Copy names, product names, identifiers, version numbers, quoted phrases and "
        "excluded terms (written -term) exactly as they appear in the query.\n"
    ),
    "de": (
        "Du machst aus einer Suchanfrage bessere Suchen in einer persönlichen Wissensbasis.\n"
        "Die Basis wird auf zwei Arten durchsucht: nach Stichwörtern (BM25) und nach "
        "Bedeutung (Embeddings).\n"
        f"Antworte nur mit einem einzigen JSON-Objekt der Form {_SHAPE}\n"
        "- lexicalQueries: 2 oder 3 Stichwortsuchen mit 3 bis 8 Wörtern, die in einer "
        "passenden Notiz vorkämen (Synonyme, verwandte Begriffe).\n"
        "- vectorQueries: 2 oder 3 Umformulierungen der Anfrage als natürliche Fragen, "
        "je 3 bis 8 Wörter.\n"
        "- hyde: 50 bis 100 Wörter, so geschrieben, als stammten sie aus der Notiz, die "
        "die Anfrage beantwortet.\n"
        "Übernimm Namen, Produktnamen, Bezeichner, Versionsnummern, Phrasen in "
        "Anführungszeichen und ausgeschlossene Begriffe (-begriff) genau so, wie sie in der "
        "Anfrage stehen. Schreibe auf Deutsch.\n"
    ),
    "multi": (
        "You turn a search query into better searches over a personal knowledge base.\n"
        "The base is searched in two ways: by keywords (BM25) and by meaning (embeddings).\n"
        f"Reply with a single JSON object and nothing else, shaped like {_SHAPE}\n"
        "- lexicalQueries: 2 or 3 keyword searches of 3 to 8 words, using words a "
        "matching note would contain.\n"
        "- vectorQueries: 2 or 3 rephrasings of the query as natural questions, 3 to 8 words each.\n"
        "- hyde: 50 to 100 words written as if taken from the note that answers the query.\n"
        "Write every string in the language of the query, not in English unless the query is "
        "English. Copy names, identifiers, version numbers, quoted phrases and excluded terms "
        "(written -term) exactly as they appear in the query.\n"
    ),
}


@dataclass(frozen=True)
class Expansion:
    lexical: tuple[str, ...] = ()
    vector: tuple[str, ...] = ()
    hyde: str | None = None

    def to_json(self) -> str:
        return json.dumps(
            {"lexicalQueries": self.lexical, "vectorQueries": self.vector, "hyde": self.hyde},
            ensure_ascii=False,
        )


# -- prompt -----------------------------------------------------------------------------


def template_language(lang: str | None) -> str:
    """``en``, ``de`` or ``multi``: which template a query language gets."""
    tag = (lang or "").strip().lower().replace("_", "-")
    if tag in _ENGLISH:
        return "en"
    return "de" if tag in _GERMAN else "multi"


def build_prompt(query: str, lang: str | None, intent: str | None = None) -> str:
    """The v3 prompt. The query comes last, so a truncated prompt still ends with it."""
    intent_line = f"Query intent: {' '.join(intent.split())}\n" if intent and intent.strip() else ""
    return f"{_TEMPLATES[template_language(lang)]}\n{intent_line}Query: {query}\n"


def cache_key(model: str, query: str, lang: str | None, intent: str | None) -> str:
    """SHA-256 over (prompt version, model, query, lang, intent)."""
    parts = [PROMPT_VERSION, model, query, lang or "", intent or ""]
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()


# -- parsing ----------------------------------------------------------------------------


def _clean(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(_CONTROL.sub(" ", value).split())
    return text or None


def _strings(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else []
    seen: dict[str, str] = {}
    for item in items:
        text = _clean(item)
        if text is not None:
            seen.setdefault(text.lower(), text)
    return tuple(seen.values())[:MAX_VARIANTS]


def parse_answer(text: str) -> Expansion | None:
    """The first ``{…}`` of ``text`` that decodes as a JSON object, or None. Raw control
    characters inside strings are tolerated (a grammar may let them through)."""
    decoder = json.JSONDecoder(strict=False)
    start = text.find("{")
    for _ in range(MAX_DECODE_ATTEMPTS):
        if start < 0:
            return None
        try:
            value, _end = decoder.raw_decode(text, start)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return Expansion(
                _strings(value.get("lexicalQueries")),
                _strings(value.get("vectorQueries")),
                _clean(value.get("hyde")),
            )
        start = text.find("{", start + 1)
    return None


def from_json(text: str) -> Expansion | None:
    """An ``Expansion`` written by ``Expansion.to_json`` (a cache entry), or None."""
    return parse_answer(text)


# -- guardrails -------------------------------------------------------------------------

# Function words that make no overlap on their own (English and German, beyond fts's list).
_EXTRA_STOPWORDS = frozenset((
    "about", "can", "could", "did", "does", "if", "into", "me", "my", "not", "our", "should",
    "so", "than", "that", "their", "them", "then", "there", "these", "they", "this", "those",
    "us", "vs", "we", "which", "who", "why", "will", "with", "would", "you", "your",
    "das", "dem", "den", "der", "die", "ein", "eine", "einen", "ich", "ist", "mit", "nicht",
    "sie", "von", "wie", "zu",
))  # fmt: skip
_STOP = STOPWORDS | _EXTRA_STOPWORDS
_TOKEN = re.compile(r'-?"[^"]*"|\S+')
_EDGE = "\"'`,;:!?()[]{}<>"


@dataclass(frozen=True)
class QuerySignals:
    """What of a query a variant must keep to count as overlapping it."""

    entities: tuple[str, ...]
    phrases: tuple[str, ...]
    negations: tuple[str, ...]  # as written: -term or -"a phrase"
    words: frozenset[str]

    def anchor(self) -> str | None:
        """The anchor lexical query, or None without an entity or a phrase to hold it."""
        if not self.entities and not self.phrases:
            return None
        return " ".join([*self.entities, *(f'"{p}"' for p in self.phrases), *self.negations])

    def needles(self) -> tuple[str, ...]:
        negated = (n[1:].strip('"') for n in self.negations)
        return tuple(n.lower() for n in (*self.phrases, *self.entities, *negated) if n)


def words(text: str) -> frozenset[str]:
    """Words that are not stopwords, as FTS5 indexed and compares them (``fts_words``: split
    where FTS5 splits, case and diacritics folded, CJK runs as character bigrams): a variant
    overlaps the query where search would find a word of one with the other."""
    return frozenset(w for w in fts_words(text) if has_cjk(w) or (len(w) >= 2 and w not in _STOP))


def _is_entity(token: str, first: bool) -> bool:
    core = token.strip(_EDGE).rstrip(".")
    if len(core) < 2:
        return False
    letters = any(c.isalpha() for c in core)
    if letters and any(c.isdigit() for c in core):
        return True  # gpt4, s3, ipv6, 2fa
    if any(c in "+#." for c in core.strip("+#.")) or core.endswith(("+", "#")):
        return True  # c++, c#, node.js, span.kind
    upper = [i for i, c in enumerate(core) if c.isupper()]
    if not upper or core.lower() in _STOP:
        return False
    return not first or upper != [0]  # "Keep" starting the query is not a name


def signals(query: str) -> QuerySignals:
    entities, phrases, negations, kept = [], [], [], []
    for position, token in enumerate(_TOKEN.findall(query)):
        if token.startswith("-") and len(token) > 1:
            if token.strip('-"').strip():
                negations.append(token)  # as written: -term or -"a phrase"
            continue
        kept.append(token)
        if token.startswith('"') and token.endswith('"') and len(token) > 1:
            if inner := " ".join(token[1:-1].split()):
                phrases.append(inner)
        elif _is_entity(token, first=position == 0):
            entities.append(token.strip(_EDGE).rstrip("."))
    return QuerySignals(
        tuple(dict.fromkeys(entities)),
        tuple(dict.fromkeys(phrases)),
        tuple(dict.fromkeys(negations)),
        words(" ".join(kept)),
    )


def overlaps(text: str, sig: QuerySignals) -> bool:
    lowered = text.lower()
    if any(needle in lowered for needle in sig.needles()):
        return True
    return bool(words(text) & sig.words)


def guard(query: str, raw: Expansion) -> Expansion:
    """Apply the guardrails to a parsed answer (see the module docstring)."""
    sig = signals(query)
    lexical = [v for v in raw.lexical if overlaps(v, sig)]
    if (anchor := sig.anchor()) is not None:
        lexical.insert(0, anchor)
    vector = [v for v in raw.vector if overlaps(v, sig)]
    hyde = raw.hyde if raw.hyde and overlaps(raw.hyde, sig) else None
    return Expansion(_unique(lexical) or (query,), _unique(vector) or (query,), hyde)


def _unique(items: Sequence[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for item in items:
        seen.setdefault(" ".join(item.lower().split()), item)
    return tuple(seen.values())[:MAX_VARIANTS]


# -- strong signal ----------------------------------------------------------------------


def bm25_confidence(raw_score: float) -> float:
    """A raw FTS5 bm25 score (negative: lower is better) mapped to (0, 1)."""
    x = (abs(raw_score) - _BM25_CENTER) / _BM25_SCALE
    return 1.0 / (1.0 + math.exp(-max(-700.0, min(700.0, x))))


@dataclass(frozen=True)
class Signal:
    strong: bool
    top: float
    gap: float


def strong_signal(raw_scores: Sequence[float]) -> Signal:
    """Whether BM25's best hit clearly stands out (``raw_scores``: best first)."""
    conf = [bm25_confidence(s) for s in raw_scores[:STRONG_WINDOW]]
    top = conf[0] if conf else 0.0
    gap = top - (conf[1] if len(conf) > 1 else 0.0)
    return Signal(top >= STRONG_TOP and gap >= STRONG_GAP, top, gap)


# -- depth policy -----------------------------------------------------------------------

SLIM_PRESETS = frozenset({"slim", "slim-tuned"})


def skip_reason(
    *, fast: bool, thorough: bool, expand: bool | None, has_modes: bool, preset: str | None
) -> str | None:
    """None when the depth policy (engine.md §5.5) calls for expansion, else why not.

    Caller-supplied query modes always win; ``fast`` is off and ``thorough`` on;
    ``expand`` decides only in balanced mode, where the default is on for the
    ``slim`` presets only."""
    if has_modes:
        return "query modes given"
    if fast:
        return "fast mode"
    if thorough:
        return None
    if expand is not None:
        return None if expand else "expansion turned off"
    if preset in SLIM_PRESETS:
        return None
    return f"preset {preset} expands only with --thorough or --expand"
