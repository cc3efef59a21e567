"""Tag grammar: normalize = trim -> NFC -> lowercase; valid = '/'-separated
segments that start with a lowercase/caseless letter or digit, then letters,
digits, '-' or '.'. Hashtags in the body count, outside code."""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from gno.errors import ValidationError

if TYPE_CHECKING:
    from gno.core.regions import Regions

# '#', a letter/digit, then letters/digits/'-'/'/'. The char before '#' is checked
# in Python (a lookbehind first would run at every position of the text).
_HASHTAG = re.compile(r"#([^\W_](?:[^\W_]|[-/])*)")
_SEGMENT = r"[^\W_](?:[^\W_]|[-.])*"
_VALID_TAG = re.compile(rf"{_SEGMENT}(?:/{_SEGMENT})*")


def normalize_tag(tag: str) -> str:
    return unicodedata.normalize("NFC", tag.strip()).lower()


def _segment_ok(segment: str) -> bool:
    if not segment:
        return False
    first = segment[0]
    if not (first.isdigit() or (first.isalpha() and not first.isupper())):
        return False
    return all((ch.isalnum() and not ch.isupper()) or ch in "-." for ch in segment[1:])


def is_valid_tag(tag: str) -> bool:
    return bool(tag) and all(_segment_ok(seg) for seg in tag.split("/"))


def validate_tag(tag: str) -> str:
    normalized = normalize_tag(tag)
    if not is_valid_tag(normalized):
        raise ValidationError(f"Invalid tag: {tag!r}")
    return normalized


def hashtags(text: str, regions: Regions | None = None) -> list[str]:
    """Body hashtags outside frontmatter and code (``regions`` marks what to skip)."""
    if "#" not in text:
        return []
    if regions is None:  # the fence scanner's patterns: only a text's hashtags need them
        from gno.core.regions import Regions

        regions = Regions(text)
    found = []
    for m in _HASHTAG.finditer(text):
        start = m.start()
        # Only a '#' that starts a word is a tag: not anchors like (#id) or {#id}, URLs, or &#38;.
        if (start == 0 or text[start - 1].isspace()) and not regions.contains(start):
            found.append(m.group(1).rstrip("-/"))
    return found


def collect_tags(candidates: list[str]) -> list[str]:
    """Normalize, drop invalid ones, keep first-seen order."""
    seen: dict[str, None] = {}
    for tag in candidates:
        normalized = normalize_tag(tag.lstrip("#"))
        if is_valid_tag(normalized):
            seen.setdefault(normalized, None)
    return list(seen)
