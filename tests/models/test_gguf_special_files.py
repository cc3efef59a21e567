"""A model file named by the user (`file:` URI, doctor's check, a pull's download) is read
only when it is a regular file: a named pipe there waited for a writer forever."""

from __future__ import annotations

import os
from pathlib import Path

from gno.models.gguf_check import gguf_problem
from tests.fifo import unblocked
from tests.tiny_gguf import write_tiny_bert


def test_a_named_pipe_for_a_model_is_a_problem_not_a_hang(tmp_path: Path) -> None:
    pipe = tmp_path / "model.gguf"
    os.mkfifo(pipe)
    with unblocked(pipe) as had_to:
        problem = gguf_problem(pipe)
    assert not had_to
    assert problem is not None and "named pipe" in problem


def test_a_device_or_folder_for_a_model_is_a_problem(tmp_path: Path) -> None:
    assert "character device" in (gguf_problem(Path("/dev/zero")) or "")
    assert "folder" in (gguf_problem(tmp_path) or "")


def test_a_regular_model_file_still_reads(tmp_path: Path) -> None:
    model = write_tiny_bert(tmp_path / "tiny.gguf")
    assert gguf_problem(model) is None
