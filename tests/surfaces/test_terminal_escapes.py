"""Terminal escape injection (issue 10, item 12): control characters in indexed data
(a frontmatter title, a file name, a body) never reach the terminal from a text
renderer; JSON keeps the data intact (JSON escapes every control character)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gno.render import json_text
from gno.render.style import terminal_safe

GNO = [sys.executable, "-m", "gno.cli.entry"]
# What a terminal would act on: C0 (but TAB and LF), DEL and C1 (U+0080-U+009F: 0x9B is CSI).
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
TITLE = "\x1b]0;PWNED\x07Evil \x9b31m title\x1b[2J"


def gno(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*GNO, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def hostile_index(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "evil.md").write_text(
        '---\ntitle: "\\e]0;PWNED\\aEvil \\x9b31m title\\e[2J"\n---\n\n# Heading\n\nsampling body\n'
    )
    gno("init", str(root), "--name", "notes")
    gno("update")
    return root


@pytest.mark.parametrize(
    "args",
    [
        ["search", "sampling"],
        ["search", "sampling", "--no-color"],
        ["search", "sampling", "--md"],
        ["search", "sampling", "--csv"],
        ["search", "sampling", "--xml"],
        ["ls"],
        ["ls", "--md"],
        ["query", "sampling", "--no-expand", "--no-rerank"],
    ],
)
def test_text_output_carries_no_control_characters(hostile_index: Path, args: list[str]) -> None:
    done = gno(*args)
    assert "PWNED" in done.stdout, done.stdout  # the title is shown, only its controls go
    assert not CONTROL.findall(done.stdout), repr(done.stdout)
    assert not CONTROL.findall(done.stderr), repr(done.stderr)


def test_json_keeps_the_title_intact_and_escaped(hostile_index: Path) -> None:
    done = gno("search", "sampling", "--json")
    assert not CONTROL.findall(done.stdout), repr(done.stdout)
    assert json.loads(done.stdout)["results"][0]["title"] == TITLE


@given(st.text())
def test_terminal_safe_removes_only_controls_and_json_text_round_trips(text: str) -> None:
    safe = terminal_safe(text)
    assert not CONTROL.findall(safe)
    assert safe == "".join(c for c in text if not CONTROL.match(c))  # nothing else goes
    encoded = json_text({"t": text})
    assert not CONTROL.findall(encoded.replace("\n", ""))
    assert json.loads(encoded) == {"t": text}
