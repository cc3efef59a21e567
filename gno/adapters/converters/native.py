"""Markdown, plain text and code: decoded as UTF-8 (lossy), no conversion; a file that
starts with a UTF-16 or UTF-32 byte order mark is decoded as its mark says.

Bytes that are not text (an image or archive renamed ``.md``) are refused rather than
indexed as replacement characters; see ``looks_binary`` for the rule.
"""

from __future__ import annotations

import re
from pathlib import Path

from gno.core.text_encoding import unicode_mark
from gno.ports import UNSUPPORTED, Conversion, ConversionError

BINARY_SNIFF_BYTES = 8192
BINARY_BAD_SHARE = 0.10  # of the sniffed characters: replacement characters or controls
# replacement characters and the C0 controls text does not hold (all but \t \n \v \f \r and
# escape): counted by the regex engine, not a Python loop over every sniffed character
_BAD = re.compile("[\ufffd\x00-\x08\x0e-\x1a\x1c-\x1f]")


def looks_binary(data: bytes) -> bool:
    """A NUL byte in the first 8 KiB, or more than 10 % of those 8 KiB's characters that are
    invalid UTF-8 or C0 controls other than tab, newlines, form feed and escape."""
    head = data[:BINARY_SNIFF_BYTES]
    if b"\0" in head:
        return True
    text = head.decode("utf-8", errors="replace")
    if len(head) == BINARY_SNIFF_BYTES:  # the cut may split one last character
        text = text[:-1]
    return _mostly_bad(text)


def _mostly_bad(text: str) -> bool:
    if not text:
        return False
    return _BAD.search(text) is not None and len(_BAD.findall(text)) > BINARY_BAD_SHARE * len(text)


def decode_text(data: bytes) -> str:
    """The text, UTF-8 unless a UTF-16/32 byte order mark names another encoding
    (``gno.core.text_encoding``; such a file was refused as binary for its NUL bytes, so the
    same rule judges its decoded characters instead)."""
    marked = unicode_mark(data)
    if marked is None:
        if not looks_binary(data):
            return data.decode("utf-8", errors="replace")
    else:
        bom, codec = marked
        text = data[len(bom) :].decode(codec, errors="replace")
        head = text[:BINARY_SNIFF_BYTES]
        if "\0" not in head and not _mostly_bad(head):
            return text
    raise ConversionError(UNSUPPORTED, "Binary content in a text file (not indexed)")


MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown"})
TEXT_EXTENSIONS = frozenset(
    [".txt", ".ts", ".tsx", ".js", ".jsx", ".py", ".go", ".rs", ".swift", ".c"]
)


class MarkdownConverter:
    id = "native/markdown"
    version = "1.0.0"

    def can_handle(self, ext: str, mime: str) -> bool:
        return ext in MARKDOWN_EXTENSIONS

    def convert(self, path: Path, data: bytes, ext: str, mime: str) -> Conversion:
        return Conversion(decode_text(data), None, self.id, self.version)


class PlainTextConverter:
    id = "native/plaintext"
    version = "1.0.0"

    def can_handle(self, ext: str, mime: str) -> bool:
        return ext in TEXT_EXTENSIONS

    def convert(self, path: Path, data: bytes, ext: str, mime: str) -> Conversion:
        return Conversion(decode_text(data), None, self.id, self.version)
