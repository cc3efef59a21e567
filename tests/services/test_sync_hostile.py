"""One bad file or folder never stops a sync nor loses documents (issue 10, defects 4, 5, 8).

Each test reproduces what broke: an unreadable folder soft-deleted its documents, an
undecodable name or deep frontmatter failed the whole `gno update` with "Internal error",
binary `.md` files were indexed as replacement characters, a named pipe blocked the sync
forever. Anything that could hang runs in a child process bounded by a timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import search, sync
from tests.hostile_corpus import DEEP, permissions_enforced, preexec

GNO = [sys.executable, "-m", "gno.cli.entry"]


def gno_update(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GNO, "update", "--json", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=os.environ.copy(),
        preexec_fn=preexec(),
    )


def errors_of(result) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {e.relPath: e.code for c in result.collections for e in c.errors}


def active_paths(app) -> set[str]:  # type: ignore[no-untyped-def]
    return {d.rel_path for d in app.store().active_paths("notes")}


# --- defect 4: an unreadable folder wiped its documents ----------------------------------


@pytest.mark.parametrize("locked", ["sub", ""])
def test_unreadable_folder_keeps_its_documents(make_app, tmp_path, locked):
    if not permissions_enforced(tmp_path):
        pytest.skip("cannot make a folder unreadable for a child process here")
    app, root = make_app({"top.md": "# Top\n\ntopword\n", "sub/a.md": "# A\n\nsubword\n"})
    sync(app)
    assert active_paths(app) == {"top.md", "sub/a.md"}
    folder = root / locked if locked else root
    folder.chmod(0)
    try:
        done = gno_update()
    finally:
        folder.chmod(0o755)
    assert done.returncode == 0, done.stderr
    tally = json.loads(done.stdout)["collections"][0]
    assert tally["filesMarkedInactive"] == 0
    assert [(e["relPath"], e["code"]) for e in tally["errors"]] == [(locked, "READ_ERROR")]
    assert "Permission denied" in tally["errors"][0]["message"]
    assert active_paths(app) == {"top.md", "sub/a.md"}
    assert [r.uri for r in search(app, "subword").results] == ["gno://notes/sub/a.md"]
    # readable again: the next sync is complete and clean
    sync(app)
    assert active_paths(app) == {"top.md", "sub/a.md"}


def test_a_folder_that_is_really_gone_still_removes_its_documents(make_app):
    app, root = make_app({"top.md": "# Top\n", "sub/a.md": "# A\n"})
    sync(app)
    (root / "sub" / "a.md").unlink()
    (root / "sub").rmdir()
    result = sync(app)
    assert result.collections[0].filesMarkedInactive == 1 and errors_of(result) == {}


# --- defect 5: one bad file stopped every sync -------------------------------------------


def test_undecodable_file_name_is_reported_and_the_rest_indexed(make_app):
    app, root = make_app({"ok.md": "# Ok\n\ngoodword\n"})
    with open(os.path.join(os.fsencode(root), b"caf\xe9-\xff.md"), "wb") as f:
        f.write(b"# Latin-1 name\n")
    result = sync(app)
    assert errors_of(result) == {"caf\\xe9-\\xff.md": "INVALID_NAME"}
    assert result.totalFilesAdded == 1 and active_paths(app) == {"ok.md"}
    assert [r.uri for r in search(app, "goodword").results] == ["gno://notes/ok.md"]


@pytest.mark.parametrize(
    "frontmatter",
    [
        "a:\n" + "".join(" " * (i + 1) + "a:\n" for i in range(DEEP)),
        "a: " + "[" * DEEP + "]" * DEEP + "\n",
        "a: " + "{b: " * DEEP + "c" + "}" * DEEP + "\n",
        "- " * DEEP + "x\n",
    ],
    ids=["block", "flow-list", "flow-map", "compact-list"],
)
def test_deep_frontmatter_is_that_files_error(make_app, frontmatter):
    app, _ = make_app({"deep.md": f"---\n{frontmatter}---\ndeepword\n", "ok.md": "goodword\n"})
    result = sync(app)
    assert errors_of(result) == {"deep.md": "CORRUPT"}
    assert "deeper than 64" in result.collections[0].errors[0].message
    assert [r.uri for r in search(app, "goodword").results] == ["gno://notes/ok.md"]


def test_reasonable_frontmatter_still_parses(make_app):
    nested = "a:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(20)) + " " * 21 + "v\n"
    app, _ = make_app({"fine.md": f"---\ntitle: Fine\ntags: [x, y]\n{nested}---\nbody\n"})
    result = sync(app)
    assert errors_of(result) == {} and result.totalFilesAdded == 1


def test_binary_files_named_as_text_are_errors(make_app):
    app, _ = make_app(
        {
            "image.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8,
            "noise.txt": bytes((i * 97 + 13) % 256 for i in range(1, 4000)),
            "latin1.md": "# Caf\xe9\n\nna\xefve text with one odd byte\n".encode("latin-1"),
            "ok.md": "goodword\n",
        }
    )
    result = sync(app)
    assert errors_of(result) == {"image.md": "UNSUPPORTED", "noise.txt": "UNSUPPORTED"}
    assert "Binary content" in result.collections[0].errors[0].message
    assert active_paths(app) >= {"latin1.md", "ok.md"}  # a few bad bytes are still text


def test_utf16_notes_with_a_byte_order_mark_are_text(make_app):
    # Windows writes these (PowerShell's `>`, Notepad's "Unicode"); they were UNSUPPORTED
    text = "# Réunion\n\nbudgetwort für Straße\n"
    app, _ = make_app(
        {"le.md": text.encode("utf-16"), "be.txt": ("\ufeff" + text).encode("utf-16-be")}
    )
    result = sync(app)
    assert errors_of(result) == {} and result.totalFilesAdded == 2
    assert {r.uri for r in search(app, "straße").results} == {
        "gno://notes/le.md",
        "gno://notes/be.txt",
    }
    assert {r.title for r in search(app, "budgetwort").results} == {"Réunion", "be"}


# --- defect 8: a named pipe blocked the sync forever -------------------------------------


def test_named_pipe_in_a_collection_does_not_block_update(make_app):
    app, root = make_app({"ok.md": "goodword\n"})
    os.mkfifo(root / "t.md")
    done = gno_update(timeout=60)  # before: blocked in open() until killed
    assert done.returncode == 0, done.stderr
    tally = json.loads(done.stdout)["collections"][0]
    assert [(e["relPath"], e["code"]) for e in tally["errors"]] == [("t.md", "UNSUPPORTED")]
    assert "named pipe" in tally["errors"][0]["message"]
    assert [r.uri for r in search(app, "goodword").results] == ["gno://notes/ok.md"]


def test_named_pipe_listed_by_the_watcher_does_not_block_a_path_sync(make_app):
    """The server's watcher syncs listed paths (``run_paths``): it stat'ed and opened them."""
    app, root = make_app({"ok.md": "goodword\n"})
    sync(app)
    os.mkfifo(root / "t.md")
    probe = (
        "import json\n"
        "from gno_contracts.models.update_input import UpdateInput\n"
        "from gno.app import App\nfrom gno.paths import resolve_paths\n"
        "from gno.services.sync import update\n"
        "out = update(App(resolve_paths()), UpdateInput(collection='notes', paths=['t.md']))\n"
        "print(json.dumps([(e.relPath, e.code) for c in out.collections for e in c.errors]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [["t.md", "UNSUPPORTED"]]


def test_symlink_loops_and_escapes_are_not_followed(make_app, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("escapedsecretword\n")
    app, root = make_app({"ok.md": "goodword\n", "target.md": "targetword\n"})
    (root / "loop-a.md").symlink_to(root / "loop-b.md")
    (root / "loop-b.md").symlink_to(root / "loop-a.md")
    (root / "escape.md").symlink_to(outside / "secret.md")
    (root / "escape-dir").symlink_to(outside, target_is_directory=True)
    (root / "self").symlink_to(root, target_is_directory=True)
    (root / "inner.md").symlink_to(root / "target.md")
    result = sync(app)
    assert errors_of(result) == {}
    assert active_paths(app) == {"ok.md", "target.md", "inner.md"}
    assert search(app, "escapedsecretword").results == []


# --- a folder symlink inside the root: the walk never follows it -------------------------


def test_a_write_or_path_sync_through_a_folder_link_is_refused(make_app):
    from gno_contracts.models.capture_input import CaptureInput

    from gno.errors import InvalidPathError
    from gno.services.capture import capture

    app, root = make_app({"ok.md": "goodword\n", "real/kept.md": "keptword\n"})
    (root / "alias").symlink_to(root / "real", target_is_directory=True)
    sync(app)
    # Before: indexed as alias/... now, inactive after the next full sync (found as real/...).
    with pytest.raises(InvalidPathError, match="folder symlink"):
        capture(app, CaptureInput(collection="notes", path="alias/new.md", content="linkword"))
    with pytest.raises(InvalidPathError, match="folder symlink"):
        sync(app, collection="notes", paths=["alias/kept.md"])
    assert sorted(p.name for p in (root / "real").iterdir()) == ["kept.md"]
    assert app.store().document_by_path("notes", "alias/kept.md") is None
    assert [r.uri for r in search(app, "keptword").results] == ["gno://notes/real/kept.md"]


def test_a_folder_swapped_for_a_link_out_of_the_root_after_the_walk_is_not_read(
    make_app, tmp_path: Path, monkeypatch
):
    import shutil

    import gno.services.sync as sync_module

    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "secret.md").write_text("topsecretword\n")
    app, root = make_app({"ok.md": "goodword\n", "zz/secret.md": "harmless\n"})
    real_walk = sync_module.walk

    def walk_then_swap(*args):
        entries = list(real_walk(*args))  # the walk sees zz/secret.md inside the root ...
        shutil.rmtree(root / "zz")  # ... then zz becomes a link to a private folder
        (root / "zz").symlink_to(outside, target_is_directory=True)
        return entries

    monkeypatch.setattr(sync_module, "walk", walk_then_swap)
    sync(app)
    assert not search(app, "topsecretword").results  # before: indexed from outside the root
    assert [r.uri for r in search(app, "goodword").results] == ["gno://notes/ok.md"]


def _mailbox(path: Path, word: str) -> None:
    from tests.records_corpus import message, write_mbox

    write_mbox(path, [message(1, f"Note {word}", f"Body {word}\n")])


def _calendar(path: Path, word: str) -> None:
    from tests.records_corpus import start, write_calendar

    write_calendar(path, [{"uid": "e1@x", "summary": f"Meet {word}", "dtstart": start()}])


@pytest.mark.parametrize("moment", ["walk", "hash"])  # before its hash, or its records
@pytest.mark.parametrize(
    ("name", "write"),
    [("box.mbox", _mailbox), ("cal.ics", _calendar)],  # streamed, and read whole
)
def test_a_record_container_swapped_out_of_the_root_after_the_walk_is_not_read(
    make_app, tmp_path: Path, monkeypatch, name, write, moment
):
    """The record lane opens containers itself (twice): the walked-inode check must hold
    at each open."""
    import shutil

    import gno.services.sync as sync_module
    import gno.services.sync_records as records_module

    outside = tmp_path / "private"
    outside.mkdir()
    write(outside / name, "topsecretword")
    app, root = make_app({"ok.md": "goodword\n"})
    write(root / "zz" / name, "harmlessword")

    def swap() -> None:
        shutil.rmtree(root / "zz")  # zz becomes a link to a private folder
        (root / "zz").symlink_to(outside, target_is_directory=True)

    def then_swap(real):  # type: ignore[no-untyped-def]
        def run(*args):  # type: ignore[no-untyped-def]
            done = real(*args)
            if moment == "walk":
                done = list(done)  # the walk sees zz/<container> inside the root
            swap()
            return done

        return run

    if moment == "walk":
        monkeypatch.setattr(sync_module, "walk", then_swap(sync_module.walk))
    else:  # hashed inside the root, its records read after the swap
        monkeypatch.setattr(
            records_module, "hash_container", then_swap(records_module.hash_container)
        )
    result = sync(app)
    assert not search(app, "topsecretword").results  # before: imported from outside the root
    assert not search(app, "harmlessword").results
    assert [r.uri for r in search(app, "goodword").results] == ["gno://notes/ok.md"]
    if moment == "hash":  # a partial import that removes nothing
        assert errors_of(result)[f"zz/{name}"] == "CORRUPT"


# --- a root that became (a link to) a system or home root --------------------------------


def test_a_root_replaced_by_a_link_to_home_is_never_read(make_app, tmp_path, monkeypatch):
    # `collection add` refuses /, the home folder and system folders, but a sync took the
    # root as it found it: replaced by a link to / it walked and indexed the whole machine.
    # The home folder stands in for / here (a test must not walk the machine).
    home = tmp_path / "home-of-user"
    (home / "private").mkdir(parents=True)
    (home / "private" / "secret.md").write_text("# Secret\n\nhomeword\n")
    monkeypatch.setenv("HOME", str(home))
    app, root = make_app({"a.md": "# A\n\nrootword\n"})
    sync(app)
    root.rename(tmp_path / "moved-away")
    root.symlink_to(home, target_is_directory=True)
    result = sync(app)
    assert errors_of(result) == {"": "INVALID_PATH"}
    assert result.collections[0].filesMarkedInactive == 0  # touches nothing, like a lost root
    assert active_paths(app) == {"a.md"}
    assert search(app, "homeword").results == []
    assert (
        sync(app, collection="notes", paths=["private/secret.md"]).collections[0].errors[0].code
        == "INVALID_PATH"
    )
    assert search(app, "homeword").results == []
    from gno.ingest.roots import root_problem  # status, doctor and the watcher ask this

    assert root_problem(str(root)) == (
        "INVALID_PATH",
        "The collection folder is (or links to) a system or home root.",
    )
