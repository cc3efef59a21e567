"""Where gno's files are and how index.yml is written: real `gno` processes in throwaway
homes (tests/conftest.py sets GNO_CONFIG_DIR, GNO_DATA_DIR and GNO_CACHE_DIR)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

GNO = [sys.executable, "-m", "gno.cli.entry"]


def gno(
    *args: str, env: dict[str, str] | None = None, umask: int = -1
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GNO, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy() if env is None else env,
        umask=umask,
    )


def ok(*args: str, umask: int = -1) -> str:
    done = gno(*args, umask=umask)
    assert done.returncode == 0, done.stderr
    assert "Internal error" not in done.stderr
    return done.stdout


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def notes(tmp_path: Path, name: str = "notes") -> Path:
    root = tmp_path / name
    root.mkdir()
    (root / "a.md").write_text("# A\n")
    return root


def test_a_symlinked_index_yml_is_edited_through_the_link_and_keeps_its_mode(
    tmp_path: Path,
) -> None:
    # Before: every config write renamed a new file over the link, so the dotfile
    # repository's copy stopped getting edits without a word, and the file became 0600.
    config = Path(os.environ["GNO_CONFIG_DIR"]) / "index.yml"
    ok("init")
    repo = tmp_path / "dotfiles" / "index.yml"
    repo.parent.mkdir()
    config.rename(repo)
    repo.chmod(0o644)
    config.symlink_to(repo)
    ok("collection", "add", str(notes(tmp_path)), "--name", "notes")
    ok("context", "add", "notes:", "team notes")
    ok("collection", "rename", "notes", "journal")
    ok("collection", "add", str(notes(tmp_path, "more")), "--name", "more")
    ok("collection", "remove", "more")
    assert config.is_symlink() and config.resolve() == repo
    assert mode(repo) == 0o644
    text = repo.read_text()
    assert "name: journal" in text and "scopeKey: 'journal:'" in text and "more" not in text
    listed = json.loads(ok("collection", "list", "--json"))
    assert [c["name"] for c in listed] == ["journal"]
    assert [p.name for p in config.parent.iterdir()] == ["index.yml"]  # no temp file left
    assert sorted(p.name for p in repo.parent.iterdir()) == ["index.yml"]


def test_index_yml_keeps_its_mode_and_a_new_one_gets_the_umask(tmp_path: Path) -> None:
    # Before: every write made the file 0600, whatever it was and whatever the umask.
    config = Path(os.environ["GNO_CONFIG_DIR"]) / "index.yml"
    ok("init", umask=0o027)
    assert mode(config) == 0o640
    config.chmod(0o604)
    ok("collection", "add", str(notes(tmp_path)), "--name", "notes", umask=0o077)
    assert mode(config) == 0o604
