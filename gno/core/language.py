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
