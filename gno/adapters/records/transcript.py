"""Transcript records from WebVTT (``.vtt``) and SubRip (``.srt``) subtitles.

Both formats are blocks separated by blank lines: an optional cue id, one timing line
``start --> end`` and the cue text. gno splits the file into blocks itself (linear, no
regex: it keeps each block's line numbers for the locator and anchors, skips WebVTT's
``NOTE``/``STYLE``/``REGION`` blocks and reports a bad block as a malformed row without
losing the others); each cue block is then parsed by ``pysubs2`` (a maintained subtitle
library): its timing into milliseconds and its text, HTML-like tags kept as text (the
record's Markdown escapes them, and the tag-stripping pattern would be quadratic on hostile
text). gno adds one check the library leaves out: minutes and seconds ≤ 59. Consecutive
cues are grouped into records of ``CUES_PER_RECORD`` so that a hit points to a few minutes
of the recording; each record's anchors give its cue range and time span.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gno.core.records import Malformed, Record

ADAPTER_ID = "record/transcript"
ADAPTER_VERSION = "1.1.0"  # 1.1.0: cues parsed by pysubs2
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


def _formats(vtt: bool) -> Any:
    from pysubs2.formats.subrip import SubripFormat
    from pysubs2.formats.webvtt import WebVTTFormat

    return WebVTTFormat if vtt else SubripFormat


def clock(ms: int) -> str:
    """Milliseconds as ``HH:MM:SS.mmm``."""
    from pysubs2.time import ms_to_times

    hours, minutes, seconds, millis = ms_to_times(ms)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}"


def parse_cue(lines: list[str], *, vtt: bool) -> tuple[int, int, str]:
    """(start ms, end ms, text) of one cue block from its timing line on, by pysubs2;
    ValueError when the library finds no cue or a field is out of range."""
    import pysubs2

    fmt = _formats(vtt)
    stamps = fmt.TIMESTAMP.findall(lines[0].partition("-->")[0]) + fmt.TIMESTAMP.findall(
        lines[0].partition("-->")[2]
    )
    if len(stamps) != 2:
        raise ValueError(f"bad timing line {lines[0][:60]!r}")
    for groups in stamps:  # (…, minutes, seconds, millis) in both formats
        if int(groups[-3]) > 59 or int(groups[-2]) > 59:
            raise ValueError(f"bad timestamp in {lines[0][:60]!r}")
    parsed = pysubs2.SSAFile.from_string(
        "\n".join(lines) + "\n", format_="vtt" if vtt else "srt", keep_html_tags=True
    )
    if len(parsed) != 1:
        raise ValueError(f"bad timing line {lines[0][:60]!r}")
    event = parsed[0]
    text = event.plaintext
    # pysubs2 reads a last line of digits as the next cue's number; in one block it is text.
    last = lines[-1].strip() if len(lines) > 1 else ""
    if last.isdigit() and not text.rstrip().endswith(last):
        text = f"{text}\n{last}" if text else last
    return event.start, event.end, text


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
        try:
            start, end, text = parse_cue(lines[timing_at:], vtt=vtt)
        except ValueError as exc:
            yield Malformed(f"lines:{first}-{first + len(lines) - 1}", f"Cue {number}: {exc}")
            continue
        ident = lines[0].strip() if timing_at else str(number)
        yield Cue(number, ident, clock(start), clock(end), text, first)


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
