"""A saved Capsule read for `context verify <file|->` and `context compiled preview|check`
(``services.context_verify.read_capsule``): a regular file or a stream (standard input),
bounded in size; anything else is ``invalid_input`` (CLI exit 1) with the reason."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from gno.errors import ContextInputError
from gno.services import context_verify
from gno.services.context_verify import read_capsule


def test_file_and_stream_give_the_same_object(tmp_path: Path) -> None:
    path = tmp_path / "cap.json"
    path.write_text('{"capsuleId": "c1", "evidence": []}', encoding="utf-8")
    expected = {"capsuleId": "c1", "evidence": []}
    assert read_capsule(str(path)) == expected
    assert read_capsule(io.BytesIO(path.read_bytes())) == expected


@pytest.mark.parametrize(
    ("body", "reason"),
    [(b"[1, 2]", "not an object"), (b"{not json", "Expecting"), (b'"\xff"', "codec")],
)
def test_bad_content_is_invalid_input(body: bytes, reason: str) -> None:
    with pytest.raises(ContextInputError) as caught:
        read_capsule(io.BytesIO(body))
    assert caught.value.exit_code == 1
    assert reason in caught.value.details["reason"]


def test_size_cap_on_a_stream_and_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context_verify, "MAX_CAPSULE_BYTES", 16)
    body = b'{"padding": "' + b"x" * 32 + b'"}'
    with pytest.raises(ContextInputError) as caught:
        read_capsule(io.BytesIO(body))
    assert caught.value.details["reason"] == "too large"
    path = tmp_path / "big.json"
    path.write_bytes(body)
    with pytest.raises(ContextInputError):
        read_capsule(str(path))


def test_a_fifo_or_folder_is_never_opened_for_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # a blocking open would hang here: the read must refuse it first
    for source in (fifo, tmp_path):
        with pytest.raises(ContextInputError) as caught:
            read_capsule(str(source))
        assert "Not a regular file" in caught.value.details["reason"]
