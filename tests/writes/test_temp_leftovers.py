"""A write killed mid-way (kill -9, power) leaves its hidden ``.gno-tmp-<12 hex>-<name>``
file; the next full sync of a writable collection removes it once it is an hour old. A
fresh one (a write in flight in another process), a user's own dot file, a link and
anything outside the root are left alone (spec/writes.md)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from gno.file_writes import STALE_TEMP_SECONDS, remove_stale_temps, temp_name
from tests.conftest import sync

OLD = time.time() - STALE_TEMP_SECONDS - 60


def _leftover(folder: Path, name: str, age: float | None = OLD) -> Path:
    path = folder / name
    path.write_bytes(b"half a note")
    if age is not None:
        os.utime(path, (age, age))
    return path


def test_a_stale_leftover_is_removed_by_the_next_sync_and_nothing_else(
    make_app, tmp_path: Path
) -> None:
    app, root = make_app({"note.md": "# Note\n", "sub/deep.md": "# Deep\n"})
    stale = _leftover(root, temp_name("note.md"))
    stale_deep = _leftover(root / "sub", temp_name("deep.md"))
    in_flight = _leftover(root, temp_name("note.md"), age=None)  # written just now
    kept = [
        in_flight,
        _leftover(root, ".gno-tmp-notes.md"),  # the user's own: not gno's shape
        _leftover(root, ".gno-tmp-ABCDEF012345-note.md"),  # upper-case hex: not gno's
        _leftover(root, ".gno-tmp-0123456789a-note.md"),  # 11 hex digits
        _leftover(root, ".gno-tmp-0123456789ab-"),  # no name after the dash
    ]
    folder_like = root / temp_name("dir")  # a folder with the shape: not a regular file
    folder_like.mkdir()
    os.utime(folder_like, (OLD, OLD))
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = _leftover(outside, temp_name("note.md"))
    link = root / temp_name("link.md")  # a link with the shape, pointing out of the root
    link.symlink_to(victim)
    os.utime(link, (OLD, OLD), follow_symlinks=False)
    (root / "away").symlink_to(outside, target_is_directory=True)  # never walked

    result = sync(app)

    assert result.totalFilesErrored == 0
    assert not stale.exists() and not stale_deep.exists()
    assert all(p.exists() for p in kept), [p.name for p in kept if not p.exists()]
    assert folder_like.is_dir()
    assert link.is_symlink() and victim.read_bytes() == b"half a note"
    assert sorted(p.name for p in outside.iterdir()) == [victim.name]
    assert (root / "note.md").read_text() == "# Note\n"  # the notes themselves untouched


def test_a_read_only_collection_is_never_swept(make_app) -> None:
    app, root = make_app({"note.md": "# Note\n"})
    config = app.config
    config.collections[0].extra["readOnly"] = True  # gno never writes there: not its files
    app.save_config(config)
    stale = _leftover(root, temp_name("note.md"))
    sync(app)
    assert stale.exists()


def test_a_folder_swapped_for_a_link_out_of_the_root_is_not_swept(tmp_path: Path) -> None:
    """Between the walk and the removal a folder may become a link leading out."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    victim = _leftover(outside, temp_name("note.md"))
    walked = str(root / "sub" / victim.name)  # what the walk saw inside the root
    (root / "sub").rmdir()
    (root / "sub").symlink_to(outside, target_is_directory=True)
    assert remove_stale_temps(root, [walked]) == 0
    assert victim.exists()
    (root / "sub").unlink()
    (root / "sub").mkdir()
    inside = _leftover(root / "sub", victim.name)
    assert remove_stale_temps(root, [walked]) == 1
    assert not inside.exists() and victim.exists()
