"""`gno ask --answer` on a terminal streams an OpenAI-compatible model's answer as it is
generated (issue 21): a real `gno` process on a pseudo-terminal shows the first words
while the loopback server (tests/fake_openai.py) still holds the rest of the answer."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI
from tests.surfaces.terminal import GNO
from tests.surfaces.test_cli_process import indexed

ANSWER = "Sampling keeps the slow traces [1]. The body says so plainly [1]."
FIRST = "Sampling "
DEADLINE = 60.0


def _read_until(leader: int, seen: bytearray, wanted: bytes, process: subprocess.Popen) -> bool:
    """Read the terminal until ``wanted`` shows up (False at EOF or after the deadline)."""
    deadline = time.monotonic() + DEADLINE
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if not ready:
            if process.poll() is not None:
                return wanted in seen
            continue
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the process closed the terminal
            return wanted in seen
        if not chunk:
            return wanted in seen
        seen += chunk
    return wanted in seen


def test_the_answer_reaches_the_terminal_before_it_is_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    indexed(tmp_path)
    with FakeOpenAI(mode="ok") as server:
        server.chat_reply = lambda body: ANSWER
        gate = server.stream_gate = threading.Event()
        env = {**os.environ, "GNO_GEN_MODEL": f"{server.url}/v1#fake-gen"}
        leader, follower = pty.openpty()
        process = subprocess.Popen(
            [*GNO, "ask", "sampling", "--answer", "--no-pager"],
            stdin=subprocess.DEVNULL,
            stdout=follower,
            stderr=follower,
            env=env,
        )
        os.close(follower)
        seen = bytearray()
        try:
            assert _read_until(leader, seen, FIRST.encode(), process), bytes(seen)
            # The first word is on the terminal; the server has not sent the rest yet.
            assert process.poll() is None
            assert b"slow traces" not in seen
            gate.set()
            assert _read_until(leader, seen, b"gno://notes/", process), bytes(seen)
            assert process.wait(timeout=DEADLINE) == 0
        finally:
            gate.set()
            if process.poll() is None:
                process.kill()
                process.wait(timeout=DEADLINE)
            os.close(leader)
        shown = bytes(seen).decode("utf-8", "replace").replace("\r\n", "\n")
        assert ANSWER in shown  # streamed in pieces, whole on the screen
        assert "[1] gno://notes/" in shown  # then the checked citations
        assert shown.index(ANSWER) < shown.index("[1] gno://notes/")
        assert server.requests[-1].body["stream"] is True


def test_a_streamed_answer_gets_no_escape_sequence_through(tmp_path: Path) -> None:
    """A hostile model's pieces are made terminal-safe one by one, also when an escape
    sequence is split across two pieces."""
    from tests.surfaces.terminal import on_terminal

    indexed(tmp_path)
    with FakeOpenAI(mode="ok") as server:
        server.chat_reply = lambda body: "Sampling \x1b]0;pwned\x07 keeps traces \x1b[31m [1]."
        server.stream_pieces = lambda text: [text[:10], text[10:30], text[30:]]
        env = {"GNO_GEN_MODEL": f"{server.url}/v1#fake-gen"}
        code, shown = on_terminal("ask", "sampling", "--answer", "--no-pager", env=env)
        assert server.requests[-1].body["stream"] is True
    assert code == 0 and "keeps traces" in shown
    assert "\x1b]" not in shown and "\x07" not in shown and "\x1b[31m" not in shown
