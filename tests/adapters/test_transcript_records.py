"""The transcript adapter (``gno/adapters/records/transcript.py``) on subtitles written by
pysubs2, the library it parses cues with: every cue comes back with its times and text,
grouped 40 to a record; what the library would drop or accept too leniently is handled by
gno (a last line of digits is text, minutes and seconds ≤ 59, one bad block is a malformed
row and the rest stay); tags stay inert text; hostile text is parsed in linear time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pysubs2
import pytest

from gno.adapters.records.transcript import NotATranscript, read_transcript
from gno.core.records import Malformed, Record


def made(texts: list[str], fmt: str) -> bytes:
    subs = pysubs2.SSAFile()
    for i, text in enumerate(texts):
        subs.append(pysubs2.SSAEvent(start=1000 * i, end=1000 * i + 750, text=text))
    return subs.to_string(fmt).encode()


@pytest.mark.parametrize("fmt", ["srt", "vtt"])
def test_every_cue_comes_back_with_its_times(fmt: str) -> None:
    texts = [f"cue number {i} says hello" for i in range(85)]
    out = list(read_transcript(made(texts, fmt), "talk", vtt=fmt == "vtt"))
    assert all(isinstance(r, Record) for r in out)
    assert [r.locator for r in out] == ["cues:1-40", "cues:41-80", "cues:81-85"]  # type: ignore[union-attr]
    last = out[2]
    assert isinstance(last, Record)
    assert ("timestamp", "00:01:20.000", "00:01:24.750") in last.anchors
    assert "cue number 84 says hello" in last.body


def test_a_last_line_of_digits_is_text_not_the_next_cue_number() -> None:
    data = b"1\n00:00:01,000 --> 00:00:02,000\nThe answer is\n42\n"
    (record,) = read_transcript(data, "film", vtt=False)
    assert isinstance(record, Record)
    assert record.body.endswith("The answer is 42")


def test_a_bad_block_is_one_malformed_row_and_the_others_stay() -> None:
    data = (
        b"1\n00:00:01,000 --> 00:00:02,000\nfine\n\n"
        b"2\n00:99:01,000 --> 00:00:02,000\nminutes out of range\n\n"
        b"3\nno timing here\n\n"
        b"4\n00:00:05,000 --> 00:00:06,000\n<b>bold</b> [link](x)\n"
    )
    out = list(read_transcript(data, "film", vtt=False))
    malformed = [r for r in out if isinstance(r, Malformed)]
    assert [m.locator for m in malformed] == ["lines:5-7", "lines:9-10"]
    (record,) = [r for r in out if isinstance(r, Record)]
    assert "fine" in record.body and "<b>bold</b> [link](x)" in record.body  # kept as text


def test_not_a_transcript() -> None:
    with pytest.raises(NotATranscript):
        list(read_transcript(made(["x"], "srt"), "talk", vtt=True))  # no WEBVTT signature
    with pytest.raises(NotATranscript):
        list(read_transcript(b"just words\n\nmore words\n", "film", vtt=False))
    with pytest.raises(NotATranscript):
        list(read_transcript(b"\0\x01binary", "film", vtt=False))


def test_hostile_cue_text_is_parsed_in_linear_time(tmp_path: Path) -> None:
    """One 4 MB cue of unclosed tags and digit lines: a quadratic pattern would take minutes;
    the child process must finish well inside its timeout."""
    script = tmp_path / "hostile.py"
    script.write_text(
        "from gno.adapters.records.transcript import read_transcript\n"
        "text = '<a' * 1_000_000 + '\\n1 ' * 500_000\n"
        "data = ('1\\n00:00:01,000 --> 00:00:02,000\\n' + text + '\\n').encode()\n"
        "out = list(read_transcript(data, 'film', vtt=False))\n"
        "print(len(out))\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
