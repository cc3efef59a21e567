"""Query modes of a structured query document: `term:`, `intent:` and `hyde:` lines beside
the query text (spec/cli.md, `--query-mode`), and their counts for diagnose."""

from __future__ import annotations

from typing import Any

from gno.core.fts import MIRROR_DROPPED
from gno.core.invisible import drop_invisible
from gno.errors import ValidationError

STRUCTURED = ("term:", "intent:", "hyde:")


def split_structured(query: str, modes: list[tuple[str, str]]) -> tuple[str, list[tuple[str, str]]]:
    """A multi-line query document: `term:`/`intent:`/`hyde:` lines are modes, the rest the query.
    Invisible characters go first (core/invisible), as search drops them: ``splitlines``
    would end a line at U+001C..U+001E, splitting the word they sit in; and VT and FF, which
    the mirror deletes (gno.core.fts.MIRROR_DROPPED)."""
    lines, found = [], [(mode, drop_invisible(text).strip()) for mode, text in modes]
    for line in drop_invisible(query).translate(MIRROR_DROPPED).splitlines():
        stripped = line.strip()
        prefix = next((p for p in STRUCTURED if stripped.lower().startswith(p)), None)
        if prefix and stripped[len(prefix) :].strip():
            found.append((prefix[:-1], stripped[len(prefix) :].strip()))
        elif stripped:
            lines.append(stripped)
    text = " ".join(lines) or next((t for m, t in found if m == "term"), "")
    if not text:
        raise ValidationError("Query cannot be empty")
    if sum(1 for m, _ in found if m == "hyde") > 1:
        raise ValidationError("At most one hyde query mode")
    return text, found


def mode_counts(modes: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "term": sum(1 for m, _ in modes if m == "term"),
        "intent": sum(1 for m, _ in modes if m == "intent"),
        "hyde": any(m == "hyde" for m, _ in modes),
    }


def mode_items(items: list[str]) -> list[dict[str, str]]:
    """`--query-mode kind:text` (repeatable) as the input's ``queryModes`` items: the same
    three modes as the lines above, one per item."""
    modes: list[dict[str, str]] = []
    for item in items:
        mode, sep, text = item.partition(":")
        if not sep or f"{mode}:" not in STRUCTURED or not text.strip():
            raise ValidationError(
                f"Invalid --query-mode {item!r}: use term:<text>, intent:<text> or hyde:<text>"
            )
        modes.append({"mode": mode, "text": text.strip()})
    return modes
