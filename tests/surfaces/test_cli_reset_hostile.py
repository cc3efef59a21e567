"""`gno reset` against folders set up to trick it, as a real process: links named like
gno's lock files, a user's folder under an index file's name, gno's folders nested in
one another or all one folder. The user's files stay, byte for byte, every time."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.surfaces.test_cli_process import indexed, run


def _dirs() -> tuple[Path, Path, Path]:
    return (
        Path(os.environ["GNO_DATA_DIR"]),
        Path(os.environ["GNO_CONFIG_DIR"]),
        Path(os.environ["GNO_CACHE_DIR"]),
    )


def _reset(*flags: str) -> dict[str, dict]:
    done = run("reset", "--confirm", "--json", *flags)
    return {r["role"]: r for r in json.loads(done.stdout)["results"]}


def test_links_named_like_lock_files_are_removed_and_their_targets_untouched(
    tmp_path: Path,
) -> None:
    indexed(tmp_path)
    data = _dirs()[0]
    owner, guard = tmp_path / "thesis.txt", tmp_path / "taxes.txt"
    owner.write_text("chapter one\n")
    guard.write_text("2025\n")
    (data / "resident.lock").symlink_to(owner)  # reset writes its owner record there
    (data / "index-x.lock").symlink_to(guard)
    os.mkfifo(data / "index-f.lock")  # opening it would wait for a writer elsewhere
    _reset()
    assert owner.read_text() == "chapter one\n" and guard.read_text() == "2025\n"
    assert not data.exists()


def test_a_folder_under_an_index_files_name_is_the_users(tmp_path: Path) -> None:
    indexed(tmp_path)
    data, config, _ = _dirs()
    (data / "index-d.sqlite").mkdir()
    (data / "index-d.sqlite" / "keep.txt").write_text("mine\n")
    (config / "index.yml.d").mkdir()
    by_role = _reset()
    assert by_role["data"]["foreign"] == ["index-d.sqlite"]
    assert (data / "index-d.sqlite" / "keep.txt").read_text() == "mine\n"
    assert sorted(os.listdir(data)) == ["index-d.sqlite"]


@pytest.mark.parametrize("nested", ["GNO_DATA_DIR", "GNO_CONFIG_DIR"])
def test_a_gno_folder_inside_the_caches_own_folders_is_not_deleted_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nested: str
) -> None:
    cache = _dirs()[2]
    inner = cache / ("graph" if nested == "GNO_DATA_DIR" else "config")
    monkeypatch.setenv(nested, str(inner))
    indexed(tmp_path)
    (inner / "keep.txt").write_text("mine\n")
    kept = (inner / "index.yml").read_bytes() if nested == "GNO_CONFIG_DIR" else b""
    by_role = _reset("--keep-config") if kept else _reset()
    assert (inner / "keep.txt").read_text() == "mine\n"
    assert inner.name in by_role["cache"]["foreign"]
    if kept:  # --keep-config keeps it even where the cache has a folder of that name
        assert (inner / "index.yml").read_bytes() == kept
    else:
        assert not list(inner.glob("index-*"))


def test_one_folder_for_all_three_reports_only_the_users_files_as_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    same = tmp_path / "gno"
    for name in ("GNO_DATA_DIR", "GNO_CONFIG_DIR", "GNO_CACHE_DIR"):
        monkeypatch.setenv(name, str(same))
    indexed(tmp_path)
    (same / "keep.txt").write_text("mine\n")
    by_role = _reset()
    assert [r["foreign"] for r in by_role.values()] == [["keep.txt"]] * 3
    assert sorted(os.listdir(same)) == ["keep.txt"]


def test_a_config_path_naming_a_file_that_is_no_gno_config_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    indexed(tmp_path)
    project = tmp_path / "site"
    project.mkdir()
    readme = project / "README.md"
    readme.write_text("# My project\n")  # YAML-wise a comment: an empty document
    site = project / "index.yml"
    site.write_text("title: My site\n")  # a static site's own index.yml
    done = run("--config", str(readme), "reset", "--confirm", "--keep-cache", "--json")
    config = json.loads(done.stdout)["results"][1]
    assert config["removed"] == 0 and "README.md" in config["foreign"]
    monkeypatch.setenv("GNO_CONFIG_DIR", str(project))
    by_role = _reset("--keep-cache")
    assert by_role["config"]["removed"] == 0 and "index.yml" in by_role["config"]["foreign"]
    assert readme.read_text() == "# My project\n" and site.read_text() == "title: My site\n"
    assert not (_dirs()[0] / "index-default.sqlite").exists()  # the data still went
