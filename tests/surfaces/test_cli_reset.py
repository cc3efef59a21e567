"""`gno reset` as a real process: nothing without --confirm, only gno's own files with it
(foreign files and the targets of links stay), refused while a real `gno serve` owns the
data folder or when a folder is the home folder or the root, and a fresh start afterwards."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from gno.reset_files import _Folder, _owned_data
from tests.surfaces.cli_schema import check_json_output
from tests.surfaces.test_cli_process import GNO, indexed, run

DIRS = ("GNO_DATA_DIR", "GNO_CONFIG_DIR", "GNO_CACHE_DIR")


def _tree(*roots: Path) -> dict[str, bytes | None]:
    """Every path under the roots (links as links), with file contents."""
    seen: dict[str, bytes | None] = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                path = Path(folder) / name
                seen[str(path)] = (
                    path.read_bytes() if path.is_file() and not path.is_symlink() else None
                )
    return seen


def _dirs() -> list[Path]:
    return [Path(os.environ[name]) for name in DIRS]


def test_without_confirm_nothing_is_deleted_and_the_message_says_what_would_be(
    tmp_path: Path,
) -> None:
    indexed(tmp_path)
    run("graph")  # a graph cache entry too
    before = _tree(*_dirs())
    done = run("reset", "--keep-cache", check=False)
    assert done.returncode == 1
    assert "--confirm" in done.stderr and "index-default.sqlite" in done.stderr
    assert "index.yml" in done.stderr and "(kept)" in done.stderr
    as_json = run("reset", "--json", check=False)
    assert as_json.returncode == 1 and as_json.stdout == ""
    error = json.loads(as_json.stderr)["error"]
    assert error["code"] == "VALIDATION"
    data = os.environ["GNO_DATA_DIR"]
    assert os.path.join(data, "index-default.sqlite") in error["details"]["wouldDelete"]
    assert _tree(*_dirs()) == before


def test_confirm_deletes_only_gnos_files_and_never_follows_a_link(tmp_path: Path) -> None:
    indexed(tmp_path)
    data, config, cache = _dirs()
    outside = tmp_path / "outside"
    outside.mkdir()
    precious = outside / "precious.txt"
    precious.write_text("keep me\n")
    (data / "notes.txt").write_text("not gno's\n")
    (data / "index-old.sqlite").symlink_to(precious)  # gno's name, a link out: the link goes
    (cache / "models").mkdir(parents=True, exist_ok=True)
    (cache / "models" / "escape").symlink_to(outside, target_is_directory=True)
    done = run("reset", "--confirm", "--json")
    result = check_json_output(("reset",), done.stdout)
    by_role = {r["role"]: r for r in result["results"]}
    assert by_role["data"]["status"] == "deleted" and by_role["data"]["foreign"] == ["notes.txt"]
    assert by_role["config"]["status"] == by_role["cache"]["status"] == "deleted"
    assert result["errors"] == []
    assert sorted(os.listdir(data)) == ["notes.txt"]
    assert (data / "notes.txt").read_text() == "not gno's\n"
    assert not config.exists() and not cache.exists()  # emptied, so removed
    assert precious.read_text() == "keep me\n" and sorted(os.listdir(outside)) == ["precious.txt"]

    gone = run("status", "--json", check=False)  # a fresh start, no leftovers in the way
    assert gone.returncode == 2
    (tmp_path / "again").mkdir()
    indexed(tmp_path / "again")
    assert json.loads(run("status", "--json").stdout)["totalDocuments"] == 3


def test_keep_config_and_keep_cache(tmp_path: Path) -> None:
    indexed(tmp_path)
    run("graph")
    data, config, cache = _dirs()
    kept = _tree(config, cache)
    result = json.loads(run("reset", "--confirm", "--keep-config", "--keep-cache", "--json").stdout)
    assert [r["status"] for r in result["results"]] == ["deleted", "kept", "kept"]
    assert _tree(config, cache) == kept and not data.exists()
    run("update")  # the kept config makes a new index
    assert json.loads(run("status", "--json").stdout)["totalDocuments"] == 3


def test_refused_while_a_real_server_owns_the_data_folder(tmp_path: Path) -> None:
    indexed(tmp_path)
    server = subprocess.Popen(
        [*GNO, "serve", "--port", "0", "--no-watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=os.environ.copy(),
    )
    try:
        assert server.stdout is not None
        for line in server.stdout:
            if re.search(r"http://127\.0\.0\.1:\d+", line):
                break
        else:
            raise AssertionError("gno serve did not start")
        before = _tree(*_dirs())
        done = run("reset", "--confirm", "--json", check=False)
        assert done.returncode == 2 and done.stdout == ""
        error = json.loads(done.stderr)["error"]
        # OwnerLockedError (LOCKED); GNO's CLI error codes are VALIDATION and RUNTIME only
        assert error["code"] == "RUNTIME" and "gno serve" in error["message"], error
        assert _tree(*_dirs()) == before
    finally:
        server.terminate()
        server.wait(30)
    run("reset", "--confirm")  # the owner gone, reset goes ahead
    assert not (_dirs()[0] / "index-default.sqlite").exists()


def test_refuses_the_home_folder_and_the_root(tmp_path: Path) -> None:
    indexed(tmp_path)
    home = tmp_path / "home-of-someone"
    home.mkdir()
    (home / "index-default.sqlite").write_text("a file with gno's name in a home folder\n")
    env = os.environ | {"HOME": str(home), "GNO_CACHE_DIR": str(home)}
    before = _tree(home, *_dirs())
    done = subprocess.run([*GNO, "reset", "--confirm"], capture_output=True, text=True, env=env)
    assert done.returncode == 1 and "home folder" in done.stderr, done.stderr
    env = os.environ | {"GNO_DATA_DIR": "/"}
    done = subprocess.run([*GNO, "reset", "--confirm"], capture_output=True, text=True, env=env)
    assert done.returncode == 1 and "top-level" in done.stderr, done.stderr
    assert _tree(home, *_dirs()) == before


def test_sqlite_sidecars_go_before_their_file_and_a_stopped_reset_is_finished(
    tmp_path: Path,
) -> None:
    names = ["index-a.sqlite", "index-a.sqlite-shm", "index-a.sqlite-wal", "resident.lock",
             "index-a.lock", "trace-a.db", "trace-a.db-wal", "index-a.sqlite.egress-audit-wal",
             "index-a.sqlite.egress-audit"]  # fmt: skip
    folder = tmp_path / "d"
    folder.mkdir()
    for name in names:
        (folder / name).write_text("x")
    order = _Folder("data", folder, _owned_data, False, True).ordered()
    for main in ("index-a.sqlite", "trace-a.db", "index-a.sqlite.egress-audit"):
        for tail in ("-wal", "-shm"):
            if main + tail in order:
                assert order.index(main + tail) < order.index(main), order
    assert order[-1] == "resident.lock"

    indexed(tmp_path)  # a reset stopped half-way left a renamed folder behind
    leftover = _dirs()[2] / ".gno-reset-0123456789ab"
    (leftover / "hf").mkdir(parents=True)
    (leftover / "hf" / "model.gguf").write_bytes(b"GGUF")
    run("reset", "--confirm")
    assert not leftover.exists()
