"""Transcript records from WebVTT (``.vtt``) and SubRip (``.srt``) subtitles.

Both formats are blocks separated by blank lines: an optional cue id, one timing line
``start --> end`` and the cue text. They are parsed here with ``str.split`` and
``partition`` (no regex, linear in the file): a parser library would add a dependency
for twenty lines and, for WebVTT, only drop the STYLE/REGION/NOTE blocks skipped below.
Consecutive cues are grouped into records of ``CUES_PER_RECORD`` so that a hit points to a
few minutes of the recording; each record's anchors give its cue range and time span.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gno.core.records import Malformed, Record

ADAPTER_ID = "record/transcript"
ADAPTER_VERSION = "1.0.0"
CUES_PER_RECORD = 40
MAX_TRANSCRIPT_CHARS = 50_000_000


class NotATranscript(Exception):
    """A ``.vtt`` without the WEBVTT signature, or a file with no cue at all."""


@dataclass(frozen=True)
class Cue:
    number: int
    ident: str
    start: str
    end: str
    text: str
    line: int


def parse_timestamp(text: str, *, comma: bool) -> str:
    """``HH:MM:SS,mmm`` (SRT) or ``[HH:]MM:SS.mmm`` (VTT) as ``HH:MM:SS.mmm``; ValueError if not."""
    text = text.strip()
    clock, sep, millis = text.rpartition("," if comma else ".")
    if not sep or len(millis) != 3 or not millis.isdigit():
        raise ValueError(f"bad timestamp {text[:40]!r}")
    parts = clock.split(":")
    if len(parts) == 2 and not comma:
        parts.insert(0, "0")
    if len(parts) != 3 or not all(p.isdigit() and 1 <= len(p) <= 3 for p in parts):
        raise ValueError(f"bad timestamp {text[:40]!r}")
    hours, minutes, seconds = (int(p) for p in parts)
    if minutes > 59 or seconds > 59:
        raise ValueError(f"bad timestamp {text[:40]!r}")
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}.{millis}"


def _blocks(text: str) -> Iterator[tuple[int, list[str]]]:
    """(first line number, lines) of each blank-line separated block."""
    block: list[str] = []
    first = 1
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            if not block:
                first = number
            block.append(line.rstrip("\r"))
        elif block:
            yield first, block
            block = []
    if block:
        yield first, block


def cues(text: str, *, vtt: bool) -> Iterator[Cue | Malformed]:
    text = text.lstrip("\ufeff")
    blocks = _blocks(text)
    if vtt:
        header = next(blocks, None)
        if header is None or not header[1][0].startswith("WEBVTT"):
            raise NotATranscript("Not a WebVTT file: it does not start with WEBVTT")
    number = 0
    for first, lines in blocks:
        if vtt and lines[0].split(" ", 1)[0] in ("NOTE", "STYLE", "REGION"):
            continue
        timing_at = 0 if "-->" in lines[0] else 1
        if len(lines) <= timing_at or "-->" not in lines[timing_at]:
            yield Malformed(f"lines:{first}-{first + len(lines) - 1}", "Block has no timing line")
            continue
        number += 1
        start_text, _, rest = lines[timing_at].partition("-->")
        end_text = rest.strip().split(" ", 1)[0] if rest.strip() else ""
        try:
            start = parse_timestamp(start_text, comma=not vtt)
            end = parse_timestamp(end_text, comma=not vtt)
        except ValueError as exc:
            yield Malformed(f"lines:{first}-{first + len(lines) - 1}", f"Cue {number}: {exc}")
            continue
        ident = lines[0].strip() if timing_at else str(number)
        yield Cue(number, ident, start, end, "\n".join(lines[timing_at + 1 :]), first)


def read_transcript(data: bytes, stem: str, *, vtt: bool) -> Iterator[Record | Malformed]:
    if b"\0" in data[:8192]:
        raise NotATranscript("Binary content in a transcript file")
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    group: list[Cue] = []
    seen = False
    for item in cues(text, vtt=vtt):
        if isinstance(item, Malformed):
            yield item
            continue
        seen = True
        group.append(item)
        if len(group) >= CUES_PER_RECORD:
            yield _record(group, stem)
            group = []
    if group:
        yield _record(group, stem)
    if not seen:
        raise NotATranscript("No cue in this transcript")


def _record(group: list[Cue], stem: str) -> Record:
    first, last = group[0], group[-1]
    body = "\n".join(f"[{c.start[:8]}] {' '.join(c.text.split())}" for c in group)
    return Record(
        stable_id=f"cues:{first.number}-{last.number}",
        title=f"{stem} ({first.start[:8]}–{last.end[:8]})",
        headers=(
            ("Cues", f"{first.number}-{last.number}"),
            ("Time", f"{first.start} to {last.end}"),
        ),
        body=body,
        locator=f"cues:{first.number}-{last.number}",
        anchors=(
            ("cue", first.ident, last.ident),
            ("timestamp", first.start, last.end),
            ("line", str(first.line), str(last.line)),
        ),
        meta={"dateFields": {}},
    )
