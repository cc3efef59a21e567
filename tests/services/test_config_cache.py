"""index.yml's parsed form kept as JSON (gno/config_cache.py): a hit gives the same config
without PyYAML, an edit is a miss, data JSON cannot carry is never kept, and a damaged or
unwritable cache only costs the YAML parse."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gno.config import load_config

YAML = """\
version: "1.0"
ftsTokenizer: porter
collections:
  - name: notes
    path: /tmp/notes
    pattern: "**/*.md"
contexts:
  - {scopeType: global, scopeKey: /, text: Be brief.}
retrieval: {expansion: false}
"""


def kept(cache: Path) -> list[Path]:
    return sorted((cache / "config").glob("*.json")) if (cache / "config").exists() else []


def test_a_second_load_reads_the_kept_form_and_gives_the_same_config(tmp_path: Path) -> None:
    config, cache = tmp_path / "index.yml", tmp_path / "cache"
    config.write_text(YAML)
    first = load_config(config, cache)
    [entry] = kept(cache)
    # Prove the second load reads the cache: change what the cache holds, not the file.
    stored = json.loads(entry.read_text())
    stored["data"]["retrieval"] = {"expansion": True}
    entry.write_text(json.dumps(stored))
    second = load_config(config, cache)
    assert second.raw["retrieval"] == {"expansion": True}
    assert [c.to_dict() for c in second.collections] == [c.to_dict() for c in first.collections]
    assert second.contexts == first.contexts and second.fts_tokenizer == first.fts_tokenizer


def test_an_edited_file_is_parsed_again(tmp_path: Path) -> None:
    config, cache = tmp_path / "index.yml", tmp_path / "cache"
    config.write_text(YAML)
    load_config(config, cache)
    config.write_text(YAML.replace("expansion: false", "expansion: true"))
    assert load_config(config, cache).raw["retrieval"] == {"expansion": True}
    assert load_config(config, cache).raw["retrieval"] == {"expansion": True}


@pytest.mark.parametrize(
    "extra",
    ["when: 2024-05-01\n", "odd: {1: one}\n", "n: .nan\n"],
    ids=["a date", "an int key", "NaN"],
)
def test_what_json_cannot_carry_is_never_kept(tmp_path: Path, extra: str) -> None:
    config, cache = tmp_path / "index.yml", tmp_path / "cache"
    config.write_text(YAML + extra)
    raw = load_config(config, cache).raw
    assert kept(cache) == []
    again = load_config(config, cache).raw
    assert type(again[extra.split(":")[0]]) is type(raw[extra.split(":")[0]])


def test_a_damaged_or_unwritable_cache_falls_back_to_the_yaml(tmp_path: Path) -> None:
    config, cache = tmp_path / "index.yml", tmp_path / "cache"
    config.write_text(YAML)
    load_config(config, cache)
    [entry] = kept(cache)
    entry.write_bytes(b"{not json")
    assert load_config(config, cache).raw["retrieval"] == {"expansion": False}
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    assert load_config(config, blocked).collections[0].name == "notes"
    bad = YAML.replace("version:", "version: [")
    config.write_text(bad)
    with pytest.raises(Exception, match="Malformed config"):
        load_config(config, cache)


def test_status_with_a_kept_config_imports_no_yaml(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# Alpha\n\nalpha words\n")
    env = os.environ.copy()

    def gno(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "gno.cli.entry", *args],
            capture_output=True, text=True, timeout=120, env=env,
        )  # fmt: skip

    assert gno("init", str(root), "--name", "notes").returncode == 0
    assert gno("update").returncode == 0
    probe = (
        "import sys\nsys.argv = ['gno', 'status', '--json']\nfrom gno.cli.entry import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('YAML' if 'yaml' in sys.modules else 'NO-YAML', file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env
    )
    assert json.loads(done.stdout)["collections"][0]["name"] == "notes"
    assert done.stderr.strip().endswith("NO-YAML")
    assert len(kept(Path(os.environ["GNO_CACHE_DIR"]))) == 1
