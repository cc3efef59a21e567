"""The shared write primitives: path rules, containment, atomic writes, the writer lease."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gno.core.write_paths import MAX_PATH_BYTES, check_rel_path
from gno.errors import DuplicateError, InvalidPathError, LockedError, ValidationError
from gno.file_writes import TEMP_PREFIX, make_parents, resolve_inside, write_atomic
from gno.index_lock import write_lease, write_lease_path
from gno.paths import Paths


@pytest.mark.parametrize(
    "rel",
    [
        "",
        "   ",
        "/etc/passwd",
        "C:/x.md",
        "../x.md",
        "notes/../../x.md",
        "a\\b.md",
        "a\x00b.md",
        "a\x1bb.md",
        "a\x7fb.md",
        "a\x85b.md",  # C1 controls (NEL, CSI) are controls too
        "a\x9b31mred.md",
        "CON",
        "notes/nul.txt",
        "com1.md",
        "notes/trailing.",
        "notes/trailing ",
        ".git/config",
        "x/.ssh/id",
        "node_modules/x.md",
        "a" * 256 + ".md",
        "a/" * (MAX_PATH_BYTES // 2) + "b.md",
        "bad\udcffname.md",
    ],
)
def test_hostile_paths_are_refused(rel: str) -> None:
    with pytest.raises(InvalidPathError):
        check_rel_path(rel)


@pytest.mark.parametrize(
    ("rel", "normal"),
    [
        ("notes/a.md", "notes/a.md"),
        ("./notes//a.md", "notes/a.md"),
        ("Ünïcode/日本.md", "Ünïcode/日本.md"),
    ],
)
def test_ordinary_paths_are_normalized(rel: str, normal: str) -> None:
    assert check_rel_path(rel) == normal


@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=6))
def test_an_accepted_path_never_climbs_or_starts_at_the_root(segments: list[str]) -> None:
    try:
        rel = check_rel_path("/".join(segments))
    except InvalidPathError:
        return
    assert not rel.startswith("/")
    assert ".." not in rel.split("/")
    assert all(ord(c) >= 0x20 for c in rel)


def test_a_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "link").symlink_to(outside)
    with pytest.raises(InvalidPathError):
        resolve_inside(root, "link/evil.md")
    (root / "file-link.md").symlink_to(outside / "x.md")
    with pytest.raises(InvalidPathError):
        resolve_inside(root, "file-link.md")
    assert list(outside.iterdir()) == []


def test_write_atomic_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = resolve_inside(tmp_path, "notes/a.md")
    make_parents(tmp_path, target)
    write_atomic(target, b"one")
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    with pytest.raises(DuplicateError):
        write_atomic(target, b"three", exclusive=True)
    assert target.read_bytes() == b"two"
    assert not [p for p in target.parent.iterdir() if p.name.startswith(TEMP_PREFIX)]


@pytest.mark.parametrize(
    "name",
    ["日" * 83 + ".md", "é" * 126 + ".md", "a" * 252 + ".md"],
    ids=["cjk", "accents", "ascii"],
)
def test_a_name_of_up_to_255_bytes_is_written_whatever_its_characters(
    tmp_path: Path, name: str
) -> None:
    # The temporary name beside it must fit in 255 bytes too, not 255 characters.
    assert len(name.encode()) <= 255
    target = resolve_inside(tmp_path, name)
    write_atomic(target, b"one", exclusive=True)
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_a_rewrite_keeps_the_files_permission_bits(tmp_path: Path) -> None:
    private, shared = tmp_path / "private.md", tmp_path / "shared.md"
    for path, bits in ((private, 0o600), (shared, 0o664)):
        path.write_bytes(b"old")
        path.chmod(bits)
        write_atomic(path, b"new")  # before: 0o644 whatever the file had
        assert path.stat().st_mode & 0o777 == bits
        assert path.read_bytes() == b"new"
    write_atomic(private, b"newer", mode=0o640)  # an explicit mode still wins
    assert private.stat().st_mode & 0o777 == 0o640


def test_oversized_content_is_refused_not_cut(tmp_path: Path) -> None:
    target = tmp_path / "big.md"
    with pytest.raises(ValidationError) as refused:
        write_atomic(target, b"x" * (10 * 1024 * 1024 + 1))
    assert refused.value.code == "VALIDATION"  # the content's problem (was INVALID_PATH)
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "a.md"
    target.write_bytes(b"old")
    (tmp_path / "sub").mkdir()
    with pytest.raises(InvalidPathError):
        write_atomic(tmp_path / "sub", b"new")  # a folder is never replaced by a file
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "sub"]


def _paths(tmp_path: Path) -> Paths:
    return Paths(
        config_file=tmp_path / "config" / "index.yml",
        data_dir=tmp_path / "data",
        cache_dir=tmp_path / "cache",
        index_name="default",
    )


def test_the_write_lease_is_gnos_file_and_excludes_other_processes(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    lease = write_lease_path(paths)
    assert lease.name == ".mcp-write.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import fcntl,sys,os;f=os.open({str(lease)!r},os.O_RDWR|os.O_CREAT);"
            "fcntl.flock(f,fcntl.LOCK_EX);print('held',flush=True);sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        lease.parent.mkdir(parents=True, exist_ok=True)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(LockedError), write_lease(paths, wait=0.2):
            pass
    finally:
        holder.communicate("", timeout=10)
    with write_lease(paths, wait=1):  # free again once the other process let go
        pass


def test_threads_take_turns_under_the_lease(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    inside = 0
    overlap = []

    def work() -> None:
        nonlocal inside
        for _ in range(20):
            with write_lease(paths, wait=10):
                inside += 1
                overlap.append(inside)
                os.sched_yield()
                inside -= 1

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(overlap) == 80 and max(overlap) == 1
