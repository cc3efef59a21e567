"""No tracked file names a path of this machine: the shared folder is `../shared/…`,
corpora and models come from env variables or paths relative to the checkout.

Flagged: absolute paths under the machine's work folder and under root's home, the home folder of whoever runs the
test and of every account of this machine with a home under `/home`. Examples with
made-up users (`/home/ada/notes` in schema examples) are not machine paths and stay.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# An absolute path starts a token: not `~/work/…`, `gno://work/…` or `/home/ana/work/…`.
_START = r"(?<![\w~./:-])"


def _machine_homes() -> set[str]:
    homes = {str(Path.home())}
    for entry in pwd.getpwall():
        if entry.pw_dir.startswith("/home/") and entry.pw_dir.count("/") == 2:
            homes.add(entry.pw_dir)
    return {h.rstrip("/") for h in homes if h not in ("/", "")}


def _pattern() -> re.Pattern[str]:
    roots = ["/" + "work", "/" + "root"]  # spelled apart so this file does not match itself
    roots += sorted(_machine_homes())
    alternatives = "|".join(re.escape(r) for r in roots)
    return re.compile(f"{_START}(?:{alternatives})/")


def _tracked_files() -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (git ls-files needs one)")
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
    ).stdout
    return [ROOT / name for name in out.decode().split("\0") if name]


def offending_lines(files: list[Path], pattern: re.Pattern[str]) -> list[str]:
    found = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary or vanished: no text path to leak
        for number, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    return found


def test_no_tracked_file_names_a_machine_path() -> None:
    problems = offending_lines(_tracked_files(), _pattern())
    assert not problems, "machine paths in tracked files:\n" + "\n".join(problems)


def test_the_check_catches_what_it_is_for(tmp_path: Path) -> None:
    """The pattern is not vacuous: each kind of machine path is caught, look-alikes are not."""
    pattern = _pattern()
    home = sorted(_machine_homes())[0]
    assert pattern.search("corpus at " + "/" + "work/shared/corpora")
    assert pattern.search("`" + "/" + "root/.cache/gno`")
    assert pattern.search(f'path = "{home}/notes"')
    for fine in ("~/work/docs", "gno://work/plan.md", "/home/ana/work/docs", "../shared/spec"):
        assert not pattern.search(fine), fine
    assert os.sep == "/"
