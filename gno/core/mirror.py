"""The canonical Markdown mirror: the text every line number in gno refers to.

Rules (GNO's, engine.md §2.3): drop a leading BOM, CRLF/CR -> LF, strip C0
controls (except TAB and LF) and DEL, Unicode NFC, right-trim every line,
collapse runs of blank lines to one, end with exactly one newline; empty -> "\\n".

One deliberate difference: controls are stripped *before* NFC, not after, so
that canonicalization is idempotent (a control between a letter and a combining
mark would otherwise leave non-NFC text behind).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_CHARS = tuple(chr(c) for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F))
_BLANK_RUNS = re.compile(r"\n{3,}")


def canonicalize(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if any(ch in text for ch in _CONTROL_CHARS):  # substring scans beat a regex pass on clean text
        text = _CONTROLS.sub("", text)
    text = text.lstrip("\ufeff")  # every leading BOM, or a second one would survive a pass
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    text = "\n".join([line.rstrip() for line in text.split("\n")])
    if "\n\n\n" in text:
        text = _BLANK_RUNS.sub("\n\n", text)
    text = text.rstrip("\n")
    if text.startswith("\n\n"):  # a leading blank run is one blank line too
        text = "\n" + text.lstrip("\n")
    return text + "\n"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def line_count(mirror: str) -> int:
    return mirror.count("\n")
