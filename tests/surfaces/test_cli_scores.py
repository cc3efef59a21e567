"""Scores do not depend on the page size (issue 11 item 7, surfaces.md §1.2): the same
document gets the same score with `-n 2` and `-n 5`, and a page's last hit is not 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.surfaces.test_cli_process import run


def _corpus(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    for i in range(12):  # every note matches, each a little less than the one before
        body = " ".join(["sampling"] * (12 - i) + ["filler words here"] * (i + 1))
        (root / f"n{i:02}.md").write_text(f"# Note {i}\n\n{body}\n")
    run("init", str(root), "--name", "notes")
    run("update")


@pytest.mark.parametrize("command", ["query", "search"])
def test_scores_do_not_depend_on_the_page_size(tmp_path: Path, command: str) -> None:
    _corpus(tmp_path)
    pages = {
        n: json.loads(run(command, "sampling", "-n", str(n), "--json").stdout)["results"]
        for n in (2, 5)
    }
    small = {h["docid"]: h["score"] for h in pages[2]}
    large = {h["docid"]: h["score"] for h in pages[5]}
    assert len(small) == 2 and len(large) == 5
    assert [h["docid"] for h in pages[5][:2]] == list(small)
    for docid, score in small.items():
        assert large[docid] == score
    assert pages[2][-1]["score"] > 0 and pages[5][-1]["score"] > 0
