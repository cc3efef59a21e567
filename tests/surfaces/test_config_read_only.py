"""A read-only index.yml is never replaced: every change of it (CLI or REST) is refused with
``READ_ONLY`` and leaves the file's bytes and mode and the index's rows as they were.
Before, the atomic rename replaced the file regardless of its mode (root included: `chmod
a-w` is the owner's word). Real `gno` processes, a real server, a real read-only file."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from gno.app import App
from gno.paths import resolve_paths
from tests.live_server import live_server

GNO = [sys.executable, "-m", "gno.cli.entry"]


def gno(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GNO, *args], capture_output=True, text=True, timeout=60, env=os.environ.copy()
    )


def indexed_names() -> list[str]:
    done = gno("status", "--json")
    assert done.returncode == 0, done.stderr
    return sorted(c["name"] for c in json.loads(done.stdout)["collections"])


@pytest.fixture(params=["file", "symlink"])
def locked(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, bytes]:
    """An initialized index whose index.yml (or the file its link names) is 0444."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nwords\n")
    (tmp_path / "more").mkdir()
    assert gno("init", str(root), "--name", "notes").returncode == 0
    assert gno("update").returncode == 0
    config = Path(os.environ["GNO_CONFIG_DIR"]) / "index.yml"
    real = config
    if request.param == "symlink":  # a dotfile repository's copy, linked into place
        real = tmp_path / "dotfiles" / "index.yml"
        real.parent.mkdir()
        config.rename(real)
        config.symlink_to(real)
    real.chmod(0o444)
    return real, real.read_bytes()


def unchanged(real: Path, before: bytes) -> None:
    assert real.read_bytes() == before
    assert stat.S_IMODE(real.stat().st_mode) == 0o444
    assert sorted(p.name for p in real.parent.iterdir()) == ["index.yml"]  # no temp file left
    assert indexed_names() == ["notes"]


def test_cli_changes_of_a_read_only_index_yml_are_refused(
    locked: tuple[Path, bytes], tmp_path: Path
) -> None:
    real, before = locked
    for command in (
        ["collection", "add", str(tmp_path / "more"), "--name", "more"],
        ["collection", "rename", "notes", "journal"],
        ["models", "use", "balanced"],
    ):
        done = gno(*command, "--json")
        assert done.returncode == 1, (command, done.stdout, done.stderr)  # before: 0
        error = json.loads(done.stderr)["error"]
        assert error["code"] == "VALIDATION", command  # the CLI envelope of exit 1
        assert "is read-only; gno left it untouched" in error["message"], command
        unchanged(real, before)
    done = gno("context", "add", "notes:", "team notes")  # no --json there
    assert done.returncode == 1, done.stderr
    assert "is read-only; gno left it untouched" in done.stderr
    unchanged(real, before)


def test_rest_changes_of_a_read_only_index_yml_are_read_only(locked: tuple[Path, bytes]) -> None:
    from gno.rest.app import ServeOptions, create_app

    real, before = locked
    api = create_app(
        App(resolve_paths()), options=ServeOptions(mcp=None, watch=False, web_ui=False)
    )
    with live_server(api) as (url, _), httpx.Client(base_url=url, timeout=30) as http:
        answers = [
            http.patch("/api/collections/notes", json={"models": {"embed": "file:/m/e.gguf"}}),
            http.post("/api/presets", json={"presetId": "balanced"}),
        ]
        for answer in answers:
            assert answer.status_code == 409, answer.text
            error = answer.json()["error"]
            assert error["code"] == "READ_ONLY"
            assert error["message"] == (  # the server's config folder masked
                "<path>/index.yml is read-only; gno left it untouched "
                "(make it writable to let gno change it)"
            )
        unchanged(real, before)
        assert http.get("/api/presets").json()["activePreset"] == "slim-tuned"
