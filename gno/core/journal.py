"""The knowledge delta journal's pure half (engine.md §8.1): what one lifecycle event
records about a document's structure, bounded, and how cursors and ``since`` read.

A journal entry never holds a body: only headings (``## Title``), links
(``wiki:<target>`` / ``markdown:<path>``), typed edges (``<edge type>:<target>``)
and date fields (``key=value``) that were added or removed, each side capped.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from gno.core.dates import utc_iso
from gno.errors import ValidationError

KINDS = ("create", "update", "rename", "inactivate", "reactivate")
MAX_ITEMS = 16  # per side of one set delta
MAX_ITEM_BYTES = 256  # one value, as JSON
MAX_DELTA_BYTES = 16 * 1024  # one structureDelta, as JSON
RETENTION_DAYS = 30
RETENTION_ENTRIES = 10_000
RETENTION_BYTES = 16 * 1024 * 1024
PAGE_DEFAULT = 100
PAGE_MAX = 1000
CURSOR_PREFIX = "gno-change-v1."
CHANGE_PREFIX = "gno-change-id-v1."
MAX_CURSOR = 512

# Whole lines only, no nested quantifiers: the closing #s are stripped in code (linear time).
# Both start with a literal newline, which the regex engine finds with a fast scan instead of
# trying a match at every character (the text is searched with a newline in front).
_ATX_LINE = re.compile(r"\n {0,3}(#{1,6})[ \t]+([^\n]*)")
_FENCE_LINE = re.compile(r"\n {0,3}(?:```|~~~)[^\n]*")
_DURATION = re.compile(r"^(\d{1,6})\s*(s|m|h|d|w)$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


@dataclass(frozen=True)
class Structure:
    """The structural facts of one document version the journal compares."""

    headings: frozenset[str] = frozenset()
    links: frozenset[str] = frozenset()
    edges: frozenset[str] = frozenset()
    dates: dict[str, str] = field(default_factory=dict)


EMPTY = Structure()


def headings(mirror: str, start_line: int = 0) -> frozenset[str]:
    """ATX headings outside fenced code, as ``#… title``; lines before ``start_line``
    (the frontmatter) are skipped."""
    return frozenset(f"{level} {text}" for level, text in atx_headings(mirror, start_line))


def atx_headings(mirror: str, start_line: int = 0) -> list[tuple[str, str]]:
    """(hashes, text) of each ATX heading outside fenced code, in order; lines before
    ``start_line`` are skipped. Regex scans without backtracking, no per-line Python loop:
    this runs for every document a sync writes (the journal's structure, the outline)."""
    if "#" not in mirror:
        return []
    start = 0
    for _ in range(start_line):
        start = mirror.find("\n", start) + 1
        if start == 0:
            return []
    body = "\n" + mirror[start:]
    fences: list[tuple[int, int]] = []
    if "```" in body or "~~~" in body:
        opened = -1
        for m in _FENCE_LINE.finditer(body):
            if opened < 0:
                opened = m.start()
            else:
                fences.append((opened, m.end()))
                opened = -1
        if opened >= 0:
            fences.append((opened, len(body)))
    starts = [a for a, _ in fences]  # fences are in order and disjoint
    found: list[tuple[str, str]] = []
    for m in _ATX_LINE.finditer(body):
        if fences:
            i = bisect.bisect_right(starts, m.start()) - 1
            if i >= 0 and m.start() < fences[i][1]:
                continue
        text = m.group(2).rstrip(" \t")
        bare = text.rstrip("#")
        if bare != text and (not bare or bare[-1] in " \t"):
            text = bare.rstrip(" \t")  # "## Title ##" → "Title"
        if text.strip():
            found.append((m.group(1), text.strip()))
    return found


def link_key(link_type: str, target: str) -> str:
    return f"{link_type}:{target}"


def edge_key(edge_type: str, target: str) -> str:
    return f"{edge_type}:{target}"


def _fits(value: str) -> bool:
    """Whether the value's JSON string surely fits MAX_ITEM_BYTES, without writing it: up to
    40 characters always do (≤ 6 bytes per escaped character, + quotes); a longer one does
    when nothing in it is escaped and its UTF-8 fits (most headings: no json.dumps each)."""
    if len(value) <= 40:
        return True
    return (
        len(value) <= MAX_ITEM_BYTES - 2
        and '"' not in value
        and "\\" not in value
        and value.isprintable()  # control characters are escaped; this refuses them (and more)
        and len(value.encode()) <= MAX_ITEM_BYTES - 2
    )


def _clip(value: str) -> tuple[str, bool]:
    """The value cut so that its JSON string is at most MAX_ITEM_BYTES."""
    if _fits(value):
        return value, False
    if len(json.dumps(value, ensure_ascii=False).encode()) <= MAX_ITEM_BYTES:
        return value, False
    cut = value
    while cut and len(json.dumps(cut + "…", ensure_ascii=False).encode()) > MAX_ITEM_BYTES:
        cut = cut[: max(0, len(cut) - max(1, len(cut) // 8))]
    return cut + "…", True


def _side(items: set[str]) -> tuple[list[str], bool]:
    if len(items) <= MAX_ITEMS and all(x and _fits(x) for x in items):
        return sorted(items), False  # the common case: nothing to drop or cut
    truncated = len(items) > MAX_ITEMS
    kept: list[str] = []
    for item in sorted(items):
        if len(kept) == MAX_ITEMS:
            break
        if not item:
            continue
        clipped, cut = _clip(item)
        truncated |= cut
        if clipped not in kept:
            kept.append(clipped)
    return kept, truncated


def set_delta(old: frozenset[str], new: frozenset[str]) -> tuple[dict[str, list[str]], bool]:
    added, cut_a = _side(set(new - old))
    removed, cut_r = _side(set(old - new))
    return {"added": added, "removed": removed}, cut_a or cut_r


def structure_delta(old: Structure, new: Structure) -> dict[str, object]:
    """``structureDelta`` of changes@1.0: bounded per side, per value and in total."""
    truncated = False
    delta: dict[str, object] = {}
    for name, before, after in (
        ("headings", old.headings, new.headings),
        ("links", old.links, new.links),
        ("typedEdges", old.edges, new.edges),
    ):
        part, cut = set_delta(before, after)
        delta[name] = part
        truncated |= cut
    added = {f"{k}={v}" for k, v in new.dates.items() if k not in old.dates}
    removed = {f"{k}={v}" for k, v in old.dates.items() if k not in new.dates}
    changed = {
        f"{k}={new.dates[k]}" for k in new.dates if k in old.dates and old.dates[k] != new.dates[k]
    }
    dates: dict[str, list[str]] = {}
    for name, items in (("added", added), ("removed", removed), ("changed", changed)):
        dates[name], cut = _side(items)
        truncated |= cut
    delta["dates"] = dates
    # Whole-delta bound: drop the last items of the longest lists until it fits (measured only
    # when the cheap upper bound, ≤ 6 bytes per character + quotes and commas, may exceed it).
    lists = [lst for part in delta.values() if isinstance(part, dict) for lst in part.values()]
    if sum(6 * len(x) + 3 for lst in lists for x in lst) + 256 <= MAX_DELTA_BYTES - 32:
        delta["truncated"] = truncated
        return delta
    while len(json.dumps(delta, ensure_ascii=False).encode()) > MAX_DELTA_BYTES - 32:
        lists = [lst for part in delta.values() if isinstance(part, dict) for lst in part.values()]
        longest = max(lists, key=len)
        longest.pop()
        truncated = True
    delta["truncated"] = truncated
    return delta


# ------------------------------------------------------------------ cursors and ids


def encode_cursor(sequence: int) -> str:
    raw = json.dumps({"sequence": sequence}, separators=(",", ":")).encode()
    return CURSOR_PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The sequence a ``gno-change-v1.`` cursor names; anything else is VALIDATION."""
    body = cursor.removeprefix(CURSOR_PREFIX)
    if body == cursor or len(cursor) > MAX_CURSOR:
        raise ValidationError(f"Invalid change cursor: {cursor[:64]}")
    try:
        data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise ValidationError(f"Invalid change cursor: {cursor[:64]}") from None
    seq = data.get("sequence") if isinstance(data, dict) else None
    if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq < 2**63:
        raise ValidationError(f"Invalid change cursor: {cursor[:64]}")
    return seq


def path_key(collection: str, rel_path: str) -> int:
    """A 63-bit key of (collection, path) for the journal's path index."""
    digest = hashlib.blake2b(f"{collection}\0{rel_path}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def change_id(sequence: int) -> str:
    return f"{CHANGE_PREFIX}{sequence}"


def parse_change_id(value: str) -> int:
    body = value.removeprefix(CHANGE_PREFIX)
    # ASCII only: str.isdigit() also passes '²' (which int() refuses) and '١' (which it
    # reads as 1, an id gno never issued)
    if body == value or not (body.isascii() and body.isdigit()) or len(body) > 18:
        raise ValidationError(f"Invalid change id: {value[:64]}")
    return int(body)


@dataclass(frozen=True)
class Since:
    """Where a ``changes`` page starts: after a sequence, or at a time (ISO, UTC)."""

    sequence: int | None = None
    time: str | None = None


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def ms_of_iso(text: str) -> int:
    # Exact integer arithmetic: `timestamp() * 1000` is a float and truncated 0.987 s to
    # 986 ms, so `changes --since <an entry's own observedAt>` could miss that entry.
    return (datetime.fromisoformat(text.replace("Z", "+00:00")) - _EPOCH) // timedelta(
        milliseconds=1
    )


def iso_of_ms(ms: int) -> str:
    return f"{iso_second(ms // 1000)}{ms % 1000:03d}Z"


@functools.lru_cache(maxsize=4096)
def iso_second(seconds: int) -> str:
    # A sync journals hundreds of documents in the same second: a page of `changes` formats
    # each second once (strftime was a fifth of reading 1,000 entries).
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.")


def parse_since(value: str | None, now: datetime) -> Since:
    """``since`` of ``changes``: a cursor, an ISO date or date-time, or a duration such as
    ``2h``/``30m``/``7d`` counted back from ``now``."""
    if value is None:
        return Since()
    text = value.strip()
    if not text or len(text) > MAX_CURSOR:
        raise ValidationError("since must be 1 to 512 characters")
    if text.startswith(CURSOR_PREFIX):
        return Since(sequence=decode_cursor(text))
    if m := _DURATION.match(text):
        try:
            start = now - timedelta(seconds=int(m.group(1)) * _UNITS[m.group(2)])
        except OverflowError:  # before year 1: everything retained is newer
            return Since()
        return Since(time=utc_iso(start))
    try:
        if len(text) == 10:
            moment = datetime.fromisoformat(text).replace(tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
    except ValueError:
        raise ValidationError(
            f"since must be an ISO date/time, a duration such as 2h, or a change cursor: {text[:64]}"
        ) from None
    return Since(time=utc_iso(moment))
