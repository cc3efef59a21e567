"""The hostile files suite (issue 10): a generated collection holding every bad case met so
far — undecodable names, deep frontmatter, binary `.md`/`.txt`, a named pipe, symlink loops
and escapes, a 4 MB line, an unreadable folder — indexed by real `gno update` processes.

Each bad file is reported as that file's ingest error (or, for links that loop or leave the
root, never followed), every good file is found by `gno search`, and nothing hangs: every
process runs under a timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.hostile_corpus import GOOD, build, permissions_enforced, preexec
from tests.index_consistency import assert_consistent

GNO = [sys.executable, "-m", "gno.cli.entry"]
TIMEOUT = 180  # per process; a hang fails the test instead of stalling `make test`


def gno(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GNO, *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=os.environ.copy(),
        preexec_fn=preexec(),
    )


def update() -> dict:
    done = gno("update", "--json")
    assert done.returncode == 0, done.stderr
    assert "Internal error" not in done.stderr
    return json.loads(done.stdout)["collections"][0]


def found(word: str) -> list[str]:
    done = gno("search", word, "--json")
    assert done.returncode == 0, done.stderr
    return [r["uri"] for r in json.loads(done.stdout)["results"]]


def test_hostile_collection_indexes_every_good_file(tmp_path: Path) -> None:
    root = tmp_path / "hostile"
    expect = build(root, tmp_path / "outside")
    assert gno("init", str(root), "--name", "hostile").returncode == 0

    tally = update()
    errors = {e["relPath"]: e["code"] for e in tally["errors"]}
    reported = {rel: code for rel, code in expect.items() if code != "absent"}
    assert errors == reported, tally["errors"]
    good = {f"gno://hostile/{rel}" for rel in GOOD} | {
        "gno://hostile/inner-link.md",
        "gno://hostile/locked/kept.md",
    }
    for rel, word in GOOD.items():
        assert f"gno://hostile/{rel}" in found(word), rel
    assert sorted(found("linktargetword")) == [  # a link inside the root is a file
        "gno://hostile/inner-link-target.md",
        "gno://hostile/inner-link.md",
    ]
    # nothing outside the root, nothing behind a loop, nothing of a bad file is searchable
    for word in ("escapedsecretword", "badnameword", "deepblockword", "flowword"):
        assert found(word) == [], word
    listed = json.loads(gno("ls", "--json").stdout)
    uris = {d["uri"] for d in listed["documents"]}
    assert good <= uris
    assert not any(
        u.endswith(("loop-a.md", "loop-b.md", "escape.md", "pipe-link.md")) for u in uris
    )
    assert not any("escape-dir" in u or "self-dir" in u for u in uris)

    # the unreadable folder: reported, and its documents kept (not soft-deleted)
    if permissions_enforced(tmp_path):
        (root / "locked").chmod(0)
        try:
            tally = update()
        finally:
            (root / "locked").chmod(0o755)
        assert ("locked", "READ_ERROR") in {(e["relPath"], e["code"]) for e in tally["errors"]}
        assert tally["filesMarkedInactive"] == 0
        assert found("lockedword") == ["gno://hostile/locked/kept.md"]

    # a second pass over the unchanged corpus is quiet and the index is sound
    tally = update()
    assert tally["filesAdded"] == 0 and tally["filesMarkedInactive"] == 0
    assert assert_consistent(Path(os.environ["GNO_DATA_DIR"]) / "index-default.sqlite") >= len(good)
