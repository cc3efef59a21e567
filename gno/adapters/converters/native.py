"""Markdown, plain text and code: decoded as UTF-8 (lossy), no conversion."""

from __future__ import annotations

from pathlib import Path

from gno.ports import Conversion

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
        return Conversion(data.decode("utf-8", errors="replace"), None, self.id, self.version)


class PlainTextConverter:
    id = "native/plaintext"
    version = "1.0.0"

    def can_handle(self, ext: str, mime: str) -> bool:
        return ext in TEXT_EXTENSIONS

    def convert(self, path: Path, data: bytes, ext: str, mime: str) -> Conversion:
        return Conversion(data.decode("utf-8", errors="replace"), None, self.id, self.version)
