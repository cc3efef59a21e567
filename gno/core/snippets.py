"""Snippets: the best-matching lines of a mirror, with their line span. Pure."""

from __future__ import annotations

from dataclasses import dataclass

SNIPPET_TARGET_CHARS = 300
SNIPPET_MAX_LINES = 8


@dataclass(frozen=True)
class Snippet:
    text: str
    start_line: int
    end_line: int


def _stems(terms: tuple[str, ...]) -> list[str]:
    # A cheap stand-in for the porter stem: "sampling" -> "sampl" also finds "samples".
    return [t[: max(4, len(t) - 3)] if len(t) > 5 else t for t in terms]


def best_snippet(mirror: str, terms: tuple[str, ...], body_start_line: int = 1) -> Snippet:
    lines = mirror.split("\n")[:-1]
    if not lines:
        return Snippet("", 1, 1)
    first = min(max(body_start_line, 1), len(lines))
    stems = _stems(terms)
    best, best_score = first, 0
    for i in range(first - 1, len(lines)):
        lowered = lines[i].lower()
        if not lowered:
            continue
        score = sum(1 for stem in stems if stem in lowered)
        if score > best_score:
            best, best_score = i + 1, score
            if score == len(stems):
                break
    while best < len(lines) and not lines[best - 1].strip():
        best += 1
    end, size = best, len(lines[best - 1])
    while end < len(lines) and size < SNIPPET_TARGET_CHARS and end - best + 1 < SNIPPET_MAX_LINES:
        end += 1
        size += len(lines[end - 1]) + 1
    while end > best and not lines[end - 1].strip():
        end -= 1
    return Snippet("\n".join(lines[best - 1 : end]), best, end)
