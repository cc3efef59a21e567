"""Hand-written index.yml files through real `gno` processes that rewrite them: the edit
lands on the user's own lines, with the user's line endings, in bounded time."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from tests.surfaces.test_cli_process import run


def _config(tmp_path: Path, text: str) -> Path:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# a\n")
    config = Path(os.environ["GNO_CONFIG_DIR"]) / "index.yml"
    config.parent.mkdir(parents=True)
    config.write_bytes(text.replace("@ROOT@", str(notes)).encode())
    run("update")
    return config


def test_thousands_of_equal_ruler_lines_are_rewritten_in_bounded_time(tmp_path: Path) -> None:
    ruler = "# " + "-" * 20 + "\n"
    text = (
        "version: '1.0'\n" + ruler * 15_000 + "collections:\n- name: notes\n  path: @ROOT@\n"
        "contexts: []\n" + ruler * 15_000
    )  # an exact line diff of these took minutes: `gno` looked hung
    config = _config(tmp_path, text)
    before = config.read_text()
    run("context", "add", "/", "be brief")  # run() gives up after 60 s
    after = config.read_text()
    assert after == before.replace(
        "contexts: []\n", "contexts:\n- scopeType: global\n  scopeKey: /\n  text: be brief\n"
    )
    assert yaml.safe_load(after)["contexts"][0]["text"] == "be brief"


def test_a_file_with_cr_line_endings_keeps_them(tmp_path: Path) -> None:
    text = "version: '1.0'\r# mine\rcollections:\r- name: notes\r  path: @ROOT@\rcontexts: []\r"
    config = _config(tmp_path, text)
    before = config.read_bytes()
    run("collection", "rename", "notes", "notes2")
    after = config.read_bytes()
    assert after == before.replace(b"name: notes\r", b"name: notes2\r"), after
