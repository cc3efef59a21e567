"""The words the lexical proof searches for: corpus-derived probe terms (spec/setup.md).

Each document's title words of four letters or more, longest first (case-insensitively
unique per document), document after document, at most ``limit`` in all. Used by the
activation in status/doctor and by setup's and the connectors' proof."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Protocol, TypeVar

_WORD = re.compile(r"[^\W\d_]{4,}")


class Titled(Protocol):
    @property
    def title(self) -> str | None: ...


D = TypeVar("D", bound=Titled)


def probe_words(docs: Sequence[D], limit: int) -> Iterator[tuple[str, D]]:
    """(word, its document) pairs to search, in order, at most ``limit``."""
    given = 0
    for doc in docs:
        seen: set[str] = set()
        for word in sorted(_WORD.findall(doc.title or ""), key=len, reverse=True):
            if word.casefold() in seen:
                continue
            seen.add(word.casefold())
            if given == limit:
                return
            given += 1
            yield word, doc
