import os
import time
from pathlib import Path

import pytest

from gno.adapters.sqlite.store import SqliteStore
from tests.conftest import search, sync

NOTES = {
    "a.md": "---\ntitle: Alpha note\ntags: [x]\n---\nalpha content about sampling\n",
    "dir/b.md": "# Beta\nbeta body text\n",
    "c.txt": "plain gamma text\n",
    "code.py": "def delta():\n    return 'delta'\n",
    ".hidden/h.md": "hidden\n",
    "node_modules/m.md": "module\n",
}


def counts(store: SqliteStore) -> tuple[int, int]:
    docs = store.conn.execute(
        "SELECT count(*) FROM documents WHERE active = 1 AND mirror_hash IS NOT NULL"
    ).fetchone()[0]
    fts = store.conn.execute("SELECT count(*) FROM documents_fts").fetchone()[0]
    return docs, fts


def test_first_sync_then_noop(make_app):
    app, _ = make_app(NOTES)
    first = sync(app).collections[0]
    assert (first.filesProcessed, first.filesAdded, first.filesErrored) == (4, 4, 0)
    second = sync(app).collections[0]
    assert (second.filesUnchanged, second.filesAdded, second.filesUpdated) == (4, 0, 0)
    assert counts(app.store()) == (4, 4)


def test_unchanged_stat_is_not_read(make_app):
    """Same size, mtime and inode: skipped without reading, even if bytes differ."""
    app, root = make_app({"a.md": "alpha one\n"})
    sync(app)
    path = root / "a.md"
    st = path.stat()
    with open(path, "r+b") as f:  # same inode, same size
        f.write(b"omega")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert sync(app).collections[0].filesUnchanged == 1
    assert search(app, "alpha").results and not search(app, "omega").results
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert sync(app).collections[0].filesUpdated == 1
    assert search(app, "omega").results


def test_touched_but_identical_file_only_updates_stat(make_app):
    app, root = make_app({"a.md": "alpha\n"})
    sync(app)
    os.utime(root / "a.md", ns=(time.time_ns(), time.time_ns() + 5 * 10**9))
    result = sync(app).collections[0]
    assert (result.filesUnchanged, result.filesUpdated) == (1, 0)


def test_vanished_file_is_soft_deleted_and_restored(make_app):
    app, root = make_app(NOTES)
    sync(app)
    content = (root / "dir/b.md").read_bytes()
    (root / "dir/b.md").unlink()
    assert sync(app).collections[0].filesMarkedInactive == 1
    assert not search(app, "beta").results
    row = (
        app.store()
        .conn.execute("SELECT active FROM documents WHERE rel_path = 'dir/b.md'")
        .fetchone()
    )
    assert row == (0,)  # kept, not deleted
    (root / "dir/b.md").write_bytes(content)
    assert sync(app).collections[0].filesUpdated == 1
    assert search(app, "beta").results
    ids = (
        app.store()
        .conn.execute("SELECT count(*) FROM documents WHERE rel_path = 'dir/b.md'")
        .fetchone()
    )
    assert ids == (1,)  # the same row came back


def test_missing_root_does_not_wipe_index(make_app):
    app, root = make_app(NOTES)
    sync(app)
    root.rename(root.with_name("moved"))
    result = sync(app).collections[0]
    assert result.errors[0].code == "PATH_NOT_FOUND"
    assert result.filesMarkedInactive == 0
    assert counts(app.store()) == (4, 4)


def test_corrupt_pdf_is_recorded_and_sync_goes_on(make_app):
    app, _ = make_app({"good.md": "fine text\n", "bad.pdf": b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n"})
    result = sync(app).collections[0]
    assert result.filesErrored == 1 and result.errors[0].relPath == "bad.pdf"
    assert result.errors[0].code == "CORRUPT"
    assert search(app, "fine").results
    again = sync(app).collections[0]  # permanent errors are not retried for unchanged bytes
    assert again.filesSkipped == 1 and again.filesErrored == 0


def test_too_large_file_is_skipped_before_reading(make_app, monkeypatch):
    import gno.services.sync_apply as apply_module

    monkeypatch.setattr(apply_module, "MAX_FILE_BYTES", 10)
    app, _ = make_app({"big.md": "x" * 100 + "\n", "ok.md": "ok\n"})
    result = sync(app).collections[0]
    assert [(e.relPath, e.code) for e in result.errors] == [("big.md", "TOO_LARGE")]


def test_symlink_outside_root_is_ignored(make_app, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret outside\n")
    app, root = make_app({"in.md": "inside\n"})
    (root / "link.md").symlink_to(outside)
    (root / "inner-link.md").symlink_to(root / "in.md")
    sync(app)
    assert not search(app, "secret").results
    assert {r.uri for r in search(app, "inside").results} == {
        "gno://notes/in.md",
        "gno://notes/inner-link.md",
    }


@pytest.mark.parametrize("stop_after", [1, 150])
def test_interrupted_sync_leaves_consistent_index(make_app, stop_after, monkeypatch):
    import gno.services.sync_apply as apply_module

    monkeypatch.setattr(apply_module, "BATCH_FILES", 40)
    files = {f"n{i:03d}.md": f"note {i} body word{i}\n" for i in range(300)}
    app, _ = make_app(files)

    calls = {"n": 0}

    def interrupt(collection: str, done: int, total: int) -> None:
        calls["n"] += 1
        if calls["n"] == stop_after:
            raise KeyboardInterrupt

    from gno_contracts.models.update_input import UpdateInput

    from gno.services.sync import update

    result = update(app, UpdateInput(), progress=interrupt)
    assert result.interrupted is True
    app.close()
    store = SqliteStore.open(Path(app.paths.db_path))
    assert store.integrity_ok()
    docs, fts = counts(store)
    assert docs == fts and docs < 300
    chunkless = store.conn.execute(
        "SELECT count(*) FROM documents d WHERE d.mirror_hash IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM content c WHERE c.mirror_hash = d.mirror_hash)"
    ).fetchone()[0]
    assert chunkless == 0
    store.close()
    result = sync(app).collections[0]
    assert result.filesAdded == 300 - docs and counts(app.store()) == (300, 300)


def test_file_deleted_mid_sync_is_treated_as_absent(make_app, monkeypatch):
    import gno.services.sync as sync_module

    app, root = make_app({"keep.md": "keep\n", "gone.md": "gone soon\n"})
    sync(app)
    (root / "gone.md").write_text("gone soon, edited\n")
    (root / "keep.md").write_text("keep, edited\n")
    real_walk = sync_module.walk

    def walk_then_delete(*args):
        entries = list(real_walk(*args))  # the walk sees gone.md ...
        (root / "gone.md").unlink()  # ... which vanishes before it is read
        return entries

    monkeypatch.setattr(sync_module, "walk", walk_then_delete)
    result = sync(app).collections[0]
    assert result.filesErrored == 0 and result.filesMarkedInactive == 1
    assert not search(app, "gone").results and search(app, "edited").results


def test_a_new_file_deleted_mid_sync_does_not_stop_the_sync(make_app, monkeypatch):
    import gno.services.sync as sync_module

    app, root = make_app({"keep.md": "keep\n"})
    sync(app)
    (root / "new.md").write_text("brand new\n")  # never indexed: no row in the index
    real_walk = sync_module.walk

    def walk_then_delete(*args):
        entries = list(real_walk(*args))
        (root / "new.md").unlink()
        return entries

    monkeypatch.setattr(sync_module, "walk", walk_then_delete)
    result = sync(app).collections[0]  # before: KeyError 'new.md', an internal error
    assert result.filesErrored == 0 and result.filesMarkedInactive == 0
    assert [r.uri for r in search(app, "keep").results] == ["gno://notes/keep.md"]


def test_malformed_config_is_a_clear_error(make_app):
    from gno.app import App
    from gno.errors import ConfigError
    from gno.paths import resolve_paths

    app, _ = make_app({"a.md": "a\n"})
    app.paths.config_file.write_text("version: '1.0'\ncollections:\n  - name: [unclosed\n")
    fresh = App(resolve_paths())
    with pytest.raises(ConfigError, match=r"Malformed config .*line 4.*expected"):
        fresh.config  # noqa: B018
    app.paths.config_file.write_text("version: '2.0'\n")
    with pytest.raises(ConfigError, match="unsupported config version"):
        App(resolve_paths()).config  # noqa: B018
    app.paths.config_file.write_text(
        "version: '1.0'\ncollections:\n  - name: Bad Name!\n    path: /tmp\n"
    )
    with pytest.raises(ConfigError, match=r"collections\[0\]"):
        App(resolve_paths()).config  # noqa: B018
