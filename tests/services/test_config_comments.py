"""A config change rewrites only what it changes: the comments, blank lines, key order and
quoting a user wrote into index.yml survive `collection add/rename/remove` and `context
add`, and the file still reads as the configuration gno meant to save."""

from __future__ import annotations

from pathlib import Path

import yaml
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.collection_remove_input import CollectionRemoveInput
from gno_contracts.models.collection_rename_input import CollectionRenameInput
from gno_contracts.models.context_add_input import ContextAddInput

from gno.app import App
from gno.config import Collection, dump_config, load_config, save_config
from gno.paths import resolve_paths
from gno.services.collections import collection_add, collection_remove, collection_rename
from gno.services.contexts import context_add

HAND_WRITTEN = """\
# gno config, edited by hand
version: "1.0"   # do not touch

ftsTokenizer: porter

# What I index
collections:
  # personal notes
  - name: notes
    path: {root}/notes   # my notes
    pattern: "**/*.md"
    include: []
    exclude:
      - .git
      - node_modules   # huge

  # work stuff
  - name: work
    path: {root}/work
    pattern: "**/*"
    include: []
    exclude: [.git]
  # the archive
  - name: old
    path: {root}/old # read-only archive
    pattern: "**/*.md"
    include: []
    exclude: []

# contexts come last
contexts: []
# end of file
"""


def _app(tmp_path: Path) -> tuple[App, Path]:
    for name in ("notes", "work", "old", "new"):
        (tmp_path / name).mkdir()
    app = App(resolve_paths())
    config = app.paths.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(HAND_WRITTEN.format(root=tmp_path), encoding="utf-8")
    app.store(create=True)
    return app, config


def _names(config: Path) -> list[str]:
    return [c["name"] for c in yaml.safe_load(config.read_text())["collections"]]


def test_adding_a_collection_keeps_every_line(tmp_path: Path) -> None:
    app, config = _app(tmp_path)
    before = config.read_text()
    collection_add(app, CollectionAddInput(path=str(tmp_path / "new"), name="new"))
    after = config.read_text()
    assert after.startswith(before.split("\n# contexts come last")[0])  # all kept, in place
    assert after.endswith("\n# contexts come last\ncontexts: []\n# end of file\n")
    assert _names(config) == ["notes", "work", "old", "new"]
    assert load_config(config).find("new").path == str(tmp_path / "new")


def test_renaming_changes_one_line(tmp_path: Path) -> None:
    app, config = _app(tmp_path)
    before = config.read_text()
    collection_rename(app, CollectionRenameInput(oldName="work", newName="job"))
    after = config.read_text()
    assert after == before.replace("  - name: work\n", "  - name: job\n")
    assert _names(config) == ["notes", "job", "old"]


def test_removing_keeps_the_comments_of_the_others(tmp_path: Path) -> None:
    app, config = _app(tmp_path)
    before = config.read_text()
    collection_remove(app, CollectionRemoveInput(collection="work"))
    after = config.read_text()
    entry = (
        "\n  # work stuff\n  - name: work\n"
        f'    path: {tmp_path}/work\n    pattern: "**/*"\n    include: []\n    exclude: [.git]\n'
    )
    # the entry and the comment that introduced it go, every other line stays
    assert entry in before and after == before.replace(entry, "")
    assert "  # the archive" in after and "# my notes" in after and "# huge" in after
    assert _names(config) == ["notes", "old"]


def test_removing_the_first_and_the_last(tmp_path: Path) -> None:
    app, config = _app(tmp_path)
    collection_remove(app, CollectionRemoveInput(collection="notes"))
    collection_remove(app, CollectionRemoveInput(collection="old"))
    after = config.read_text()
    for kept in ("# gno config, edited by hand", '"1.0"   # do not touch', "# work stuff"):
        assert kept in after
    assert after.endswith(
        "    exclude: [.git]\n\n# contexts come last\ncontexts: []\n# end of file\n"
    )
    assert "# the archive" not in after and "# my notes" not in after
    assert _names(config) == ["work"]


def test_a_context_added_under_a_commented_file(tmp_path: Path) -> None:
    app, config = _app(tmp_path)
    before = config.read_text()
    context_add(app, ContextAddInput(scope="notes:", text="Personal notes, in English."))
    after = config.read_text()
    assert after.startswith(before.split("contexts: []")[0])
    assert after.endswith("# end of file\n")
    contexts = yaml.safe_load(after)["contexts"]
    assert contexts == [
        {"scopeType": "collection", "scopeKey": "notes:", "text": "Personal notes, in English."}
    ]


def test_an_anchored_list_shared_by_two_entries_changes_in_one(tmp_path: Path) -> None:
    """An anchored list shared by two entries, one of them changed: the other keeps its
    list (the result is checked to read as the saved config, else the plain dump)."""
    path = tmp_path / "index.yml"
    path.write_text(
        "version: '1.0'  # c\ncollections:\n"
        f"  - {{name: a, path: {tmp_path}, exclude: &ex [x]}}\n"
        f"  - {{name: b, path: {tmp_path}, exclude: *ex}}\n"
    )
    config = load_config(path)
    config.collections[1].exclude.append("y")
    save_config(path, config)
    assert dump_config(load_config(path)) == dump_config(config)
    assert load_config(path).collections[0].exclude == ["x"]


def test_every_rewrite_reads_back_as_the_saved_config(tmp_path: Path) -> None:
    path = tmp_path / "index.yml"
    path.write_text(HAND_WRITTEN.format(root=tmp_path))
    config = load_config(path)
    config.collections.insert(1, Collection(name="on", path=str(tmp_path)))  # YAML 1.1 bool
    config.collections[0].extra["readOnly"] = True
    config.raw["models"] = {"activePreset": "yes"}
    save_config(path, config)
    assert yaml.safe_load(path.read_text()) == dump_config(config)
    assert load_config(path).find("on") is not None


def test_an_alias_bomb_written_after_the_load_is_replaced_plainly(tmp_path: Path) -> None:
    """The rewrite reads the file again: a 500-byte alias bomb put there since the load is
    refused by the same bound as the loader's, and the plain dump replaces it."""
    path = tmp_path / "index.yml"
    path.write_text(f"version: '1.0'\ncollections:\n  - name: a\n    path: {tmp_path}\n")
    config = load_config(path)
    lines = ["version: '1.0'", "a0: &a0 [x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, 40)]
    path.write_text("\n".join(lines) + "\n")
    save_config(path, config)
    assert yaml.safe_load(path.read_text()) == dump_config(config)


SPELLED = """\
---
# edited by hand, in YAML 1.1 spellings PyYAML reads
version: "1.0"
ftsTokenizer:   porter
retrieval:
  rerank: yes        # yes, not true
  expansion: off
note: a long plain value
  written over two lines
flags: {{a: ~, b: 0755, c: 1e3, d: 1:20, e: 2024-01-02}}
empty:
models:
  activePreset:  slim-tuned   # the one I use
collections:
  - name: notes
    path: {root}/notes
    readOnly: no
contexts: []
...
"""


def test_models_use_changes_only_its_line(tmp_path: Path) -> None:
    """Before: `models use` wrote ``yes`` as ``true``, ``off`` as ``false``, ``~`` as
    nothing, ``0755`` as ``493``, quoted ``1e3``, dropped ``---``/``...`` and joined the
    two-line value."""
    from gno_contracts.models.models_use_input import ModelsUseInput

    from gno.services.models import models_use

    (tmp_path / "notes").mkdir()
    app = App(resolve_paths())
    config = app.paths.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    for newline in ("\n", "\r\n"):
        before = SPELLED.format(root=tmp_path).replace("\n", newline)
        config.write_bytes(before.encode())
        models_use(app, ModelsUseInput(preset="balanced"))
        after = config.read_bytes().decode()
        line = "  activePreset:  slim-tuned   # the one I use"
        kept = "  activePreset: balanced      # the one I use"  # the comment keeps its column
        assert after == before.replace(line, kept)
        assert load_config(config).raw["models"]["activePreset"] == "balanced"
        app.forget_config()


def test_renaming_keeps_every_other_byte(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    app = App(resolve_paths())
    config = app.paths.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    before = SPELLED.format(root=tmp_path)
    config.write_text(before, encoding="utf-8")
    app.store(create=True)
    collection_rename(app, CollectionRenameInput(oldName="notes", newName="journal"))
    assert config.read_text() == before.replace("  - name: notes\n", "  - name: journal\n")
