"""Embedding windows: where a chunk longer than the embedding model's context is cut into
overlapping windows (issue 12 §2). Pure.

A chunk is ~3,200 characters, MiniLM reads 256 word pieces: without windows the vector sees
about the first third of it. Window 0 is the whole chunk (the embedder keeps its first
``max_tokens`` tokens, exactly today's text, so its vector is reused); window ``w`` starts at
``starts[w]`` and runs to the chunk's end (again cut by the embedder). Starts are evenly
spread so the last window ends at the chunk's end, snapped forward to a word boundary. The
count is bounded (``max_windows``) because each window costs one more model pass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MAX_WINDOWS_CAP = 8  # config may ask for fewer, never more
SNAP_CHARS = 40  # how far a start may move forward to reach a word boundary
CONTENT_SHARE = 0.9  # share of the model's tokens left for chunk text (title prefix, specials)


@dataclass(frozen=True)
class WindowPlan:
    starts: tuple[int, ...]  # character offsets into the chunk; starts[0] == 0

    @property
    def count(self) -> int:
        return len(self.starts)


def plan_windows(chunk: str, tokens: int, max_tokens: int, max_windows: int) -> WindowPlan:
    """Window starts for a chunk of ``tokens`` tokens (as the embedder counts them) when the
    model reads ``max_tokens``. One window when it fits or when windows are off (1)."""
    limit = max(1, min(max_windows, MAX_WINDOWS_CAP))
    room = max(1, int(max_tokens * CONTENT_SHARE))
    if tokens <= max_tokens or limit == 1 or not chunk:
        return WindowPlan((0,))
    count = min(limit, math.ceil(tokens / room))
    if count == 1:
        return WindowPlan((0,))
    chars_per_token = len(chunk) / tokens
    span = min(len(chunk), int(room * chars_per_token))  # characters one window covers
    last = max(0, len(chunk) - span)
    starts = [0]
    for w in range(1, count):
        start = _snap(chunk, round(last * w / (count - 1)))
        if start > starts[-1] and start < len(chunk):
            starts.append(start)
    return WindowPlan(tuple(starts))


def _snap(text: str, pos: int) -> int:
    """The first word start at or after ``pos`` (within SNAP_CHARS), else ``pos``."""
    if pos <= 0 or pos >= len(text) or text[pos - 1].isspace():
        return pos
    end = min(len(text), pos + SNAP_CHARS)
    for i in range(pos, end):
        if text[i].isspace():
            return i + 1 if i + 1 < len(text) else pos
    return pos
