"""Shell completion (issue 11 item 11): `gno completion bash|zsh|fish` prints a script the
shell runs, which asks a real `gno` for the candidates; `gno completion install` writes
it where the shell loads it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.surfaces.test_cli_process import run

GNO_BIN = Path(sys.executable).with_name("gno")


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_script_completes_commands_and_flags(tmp_path: Path) -> None:
    assert GNO_BIN.exists(), "the venv's gno console script"
    script = tmp_path / "gno.bash"
    script.write_text(run("completion", "bash").stdout)

    def complete(*words: str) -> list[str]:
        probe = (
            f"source {script}; COMP_WORDS=({' '.join(words)}); "
            f"COMP_CWORD={len(words) - 1}; _gno_completion {GNO_BIN}; "
            'printf "%s\\n" "${COMPREPLY[@]}"'
        )
        done = subprocess.run(
            ["bash", "-c", probe], capture_output=True, text=True, timeout=60, env=os.environ
        )
        return done.stdout.split()

    assert complete("gno", "sea") == ["search"]
    assert "clear-embeddings" in complete("gno", "collection", "cl")
    assert complete("gno", "search", "x", "--no-proj") == ["--no-project-affinity"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts(shell: str) -> None:
    text = run("completion", shell).stdout
    assert "_GNO_COMPLETE=complete_" + shell in text


def test_unknown_or_missing_shell_is_a_usage_error() -> None:
    assert run("completion", "tcsh", check=False).returncode == 1
    assert run("completion", check=False).returncode == 1


@pytest.mark.parametrize(
    ("shell", "where"),
    [
        ("bash", "data/bash-completion/completions/gno"),
        ("zsh", ".zfunc/_gno"),
        ("fish", "config/fish/completions/gno.fish"),
    ],
)
def test_install_writes_the_script_where_the_shell_loads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shell: str, where: str
) -> None:
    home = tmp_path / "userhome"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("SHELL", f"/bin/{shell}")
    done = json.loads(run("completion", "install", "--json").stdout)
    path = home / where
    assert done["installed"]["shell"] == shell and done["installed"]["path"] == str(path)
    assert path.read_text() == run("completion", shell).stdout


def test_install_where_a_folder_cannot_be_made_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: "Internal error (FileExistsError: … .zfunc)" when ~/.zfunc was a file.
    home = tmp_path / "userhome"
    home.mkdir()
    (home / ".zfunc").write_text("not a folder")
    monkeypatch.setenv("HOME", str(home))
    done = run("completion", "install", "--shell", "zsh", "--json", check=False)
    assert done.returncode == 2, done.stdout
    assert json.loads(done.stderr)["error"]["message"] == (
        f"Cannot write {home}/.zfunc/_gno: a folder on its way is not a folder"
    )
    assert (home / ".zfunc").read_text() == "not a folder"
