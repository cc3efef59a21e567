"""Per-chunk language detection (engine.md §2.8), cheap enough for every chunk.

CJK scripts decide first (kana -> ja, Hangul -> ko, else zh); otherwise the
share of common stopwords picks among a few Latin-script languages.
"""

from __future__ import annotations

import re
from collections import Counter

MIN_CHARS = 50
MIN_WORDS = 10
CJK_RATIO = 0.10
MIN_MARKER_SCORE = 0.02

_KANA = re.compile("[\u3040-\u30ff]")
_HANGUL = re.compile("[\uac00-\ud7af]")
_CJK = re.compile("[\u4e00-\u9fff\u3400-\u4dbf\u3040-\u30ff\uac00-\ud7af]")
_WORD = re.compile(r"[^\W\d_]{2,15}")
_SPACE = re.compile(r"\s+")
SAMPLE_CHARS = 500  # enough words to tell languages apart; keeps per-chunk cost flat

_STOPWORDS = {
    "en": [
        "the",
        "and",
        "of",
        "to",
        "in",
        "is",
        "that",
        "for",
        "it",
        "with",
        "as",
        "are",
        "was",
        "this",
        "be",
        "on",
        "not",
        "or",
        "by",
    ],
    "de": [
        "der",
        "die",
        "das",
        "und",
        "ist",
        "nicht",
        "mit",
        "ein",
        "eine",
        "den",
        "dem",
        "sich",
        "auf",
        "für",
        "von",
        "zu",
    ],
    "fr": [
        "le",
        "la",
        "les",
        "des",
        "est",
        "une",
        "dans",
        "pour",
        "que",
        "qui",
        "sur",
        "pas",
        "avec",
        "sont",
        "du",
        "et",
    ],
    "it": [
        "il",
        "lo",
        "gli",
        "della",
        "che",
        "per",
        "una",
        "sono",
        "con",
        "non",
        "del",
        "nel",
        "alla",
        "questo",
        "di",
    ],
    "es": [
        "el",
        "los",
        "las",
        "del",
        "que",
        "una",
        "por",
        "con",
        "para",
        "es",
        "se",
        "como",
        "más",
        "pero",
        "su",
        "al",
    ],
    "pt": [
        "os",
        "das",
        "dos",
        "uma",
        "que",
        "para",
        "com",
        "não",
        "por",
        "mais",
        "como",
        "ao",
        "se",
        "é",
        "do",
        "na",
    ],
}
_LOOKUP: dict[str, list[str]] = {}
for _lang, _words in _STOPWORDS.items():
    for _w in _words:
        _LOOKUP.setdefault(_w, []).append(_lang)


def detect_language(text: str) -> str | None:
    if len(text) < MIN_CHARS:
        return None
    text = text[:SAMPLE_CHARS]
    if _CJK.search(text):
        visible = len(_SPACE.sub("", text))
        if visible and len(_CJK.findall(text)) / visible >= CJK_RATIO:
            if _KANA.search(text):
                return "ja"
            return "ko" if _HANGUL.search(text) else "zh"
    words = _WORD.findall(text.lower())
    if len(words) < MIN_WORDS:
        return None
    counts: dict[str, int] = {}
    for word, n in Counter(filter(_LOOKUP.__contains__, words)).items():
        for lang in _LOOKUP[word]:
            counts[lang] = counts.get(lang, 0) + n
    if not counts:
        return None
    best = max(sorted(counts), key=lambda lang: counts[lang])
    return best if counts[best] / len(words) > MIN_MARKER_SCORE else None


# --- the language of a query (short text) ------------------------------------------------

# Function words that give a one-line question away; a word may point at several languages.
_QUERY_WORDS = {
    "en": [
        "the",
        "a",
        "an",
        "of",
        "to",
        "in",
        "is",
        "are",
        "how",
        "what",
        "which",
        "why",
        "when",
        "where",
        "do",
        "does",
        "can",
        "i",
        "my",
        "we",
        "our",
        "with",
        "for",
        "from",
        "should",
        "will",
        "without",
        "into",
        "on",
        "it",
        "this",
        "that",
        "and",
        "or",
        "as",
        "by",
        "at",
        "be",
        "if",
        "not",
    ],
    "es": [
        "el",
        "la",
        "los",
        "las",
        "del",
        "de",
        "que",
        "en",
        "y",
        "con",
        "por",
        "para",
        "cómo",
        "qué",
        "cuál",
        "es",
        "son",
        "un",
        "una",
        "se",
        "al",
        "mi",
        "mis",
    ],
    "pt": [
        "o",
        "os",
        "as",
        "do",
        "da",
        "dos",
        "das",
        "de",
        "que",
        "em",
        "no",
        "na",
        "nos",
        "nas",
        "com",
        "para",
        "como",
        "é",
        "são",
        "um",
        "uma",
        "não",
        "ao",
        "meu",
        "minha",
    ],
    "fr": [
        "le",
        "la",
        "les",
        "des",
        "du",
        "de",
        "et",
        "en",
        "un",
        "une",
        "pour",
        "avec",
        "que",
        "qu",
        "est",
        "sont",
        "comment",
        "quel",
        "quelle",
        "dans",
        "sur",
        "pas",
        "ce",
        "cette",
        "mon",
        "ma",
        "mes",
        "l",
        "d",
    ],
    "de": [
        "der",
        "die",
        "das",
        "und",
        "ist",
        "nicht",
        "mit",
        "ein",
        "eine",
        "den",
        "dem",
        "sich",
        "auf",
        "für",
        "von",
        "zu",
        "wie",
        "was",
        "warum",
        "ich",
        "mein",
        "meine",
        "kann",
    ],
    "it": [
        "il",
        "lo",
        "gli",
        "della",
        "che",
        "per",
        "una",
        "sono",
        "con",
        "non",
        "del",
        "nel",
        "come",
        "cosa",
    ],
}
_QUERY_LOOKUP: dict[str, list[str]] = {}
for _lang, _words in _QUERY_WORDS.items():
    for _w in _words:
        _QUERY_LOOKUP.setdefault(_w, []).append(_lang)
# Letters and endings one language uses and the others (of these) do not, or rarely.
_MARKERS = (
    ("es", re.compile(r"[ñ¿¡]|ción\b|ciones\b")),
    ("pt", re.compile(r"[ãõ]|ção\b|ções\b|\bnão\b")),
    ("fr", re.compile(r"[èêëîïœùû]|\b[ldjq]u?'|\bqu'|eaux?\b")),
    ("de", re.compile(r"[äöüß]")),
)
_QUERY_WORD = re.compile(r"[^\W\d_]+")
_HAN = re.compile("[\u4e00-\u9fff\u3400-\u4dbf]")


def detect_query_language(text: str) -> str | None:
    """The language of a short query (one line, a few words), or None when unsure.

    Any kana makes it Japanese, Hangul Korean, other Han characters Chinese. Otherwise
    letters and endings only one language uses count 2, function words 1 per language they
    belong to; the best language must lead the runner-up. English needs an English function
    word: a bare identifier or keyword list says nothing about its language."""
    if _KANA.search(text):
        return "ja"
    if _HANGUL.search(text):
        return "ko"
    if _HAN.search(text):
        return "zh"
    scores = query_language_scores(text)
    if not scores:
        return None
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]


def query_language_scores(text: str) -> dict[str, float]:
    """Evidence per Latin-script language in a short query (see detect_query_language)."""
    lowered = text.lower()
    scores: dict[str, float] = {}
    for lang, pattern in _MARKERS:
        hits = len(pattern.findall(lowered))
        if hits:
            scores[lang] = scores.get(lang, 0) + 2 * hits
    for word in _QUERY_WORD.findall(lowered.replace("’", "'")):
        for lang in _QUERY_LOOKUP.get(word, ()):
            scores[lang] = scores.get(lang, 0) + 1
    return scores
