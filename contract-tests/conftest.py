"""Fixtures of the contract tests: a small real corpus indexed by the real CLI."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import gno_env, gno_ok

# Collection "notes": 8 files (6 Markdown, one .txt, one .py, a subfolder).
NOTES: dict[str, str] = {
    "alpha.md": (
        "---\n"
        "title: Alpha Notes\n"
        "tags: [project, urgent]\n"
        "author: Ada Lovelace\n"
        "date: 2024-03-15\n"
        "---\n"
        "# Alpha\n"
        "\n"
        "The zephyrquartz protocol keeps the lighthouse running. #kanban\n"
        "See [[Beta Plan]] and [the gamma doc](sub/gamma.md).\n"
    ),
    "beta.md": (
        "---\n"
        "title: Beta Plan\n"
        "tags: [project]\n"
        "author: Bob Builder\n"
        "date: 2023-01-10\n"
        "---\n"
        "Beta plan for the tail sampling processor near the lighthouse.\n"
        "Line eight here.\n"
    ),
    "japanese.md": (
        "---\n"
        "title: 東京メモ\n"
        "tags: [japanese, travel]\n"
        "author: 山田\n"
        "date: 2024-05-01\n"
        "---\n"
        "東京の図書館で検索エンジンを作りました。\n"
        "lighthouse\n"
    ),
    "spanish.md": (
        "---\n"
        "title: Notas de viaje\n"
        "tags: [travel]\n"
        "author: María García\n"
        "date: 2024-06-02\n"
        "---\n"
        "La biblioteca municipal abre los domingos por la mañana. El faro es precioso.\n"
        "Un lighthouse en la costa.\n"
    ),
    "notes.txt": "plain text file about widgets and the lighthouse\nsecond line\n",
    "tool.py": 'def lighthouse_beacon():\n    """Return the beacon colour."""\n    return "amber"\n',
    "sub/gamma.md": "# Gamma\n\nSampling of the tail happens at the lighthouse.\n",
    "sub/delta.md": (
        "---\n"
        "title: Delta Archive\n"
        "tags: [archive]\n"
        "author: Dora\n"
        "date: 2022-07-01\n"
        "---\n"
        "Old archive entry about the lighthouse.\n"
    ),
}
# Collection "misc": 2 more files.
MISC: dict[str, str] = {
    "readme.md": "# Misc\n\nA lighthouse keeper's log.\n",
    "todo.txt": "buy candles\n",
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@dataclass
class Indexed:
    """An initialized gno home with collections notes + misc, synced twice."""

    root: Path
    env: dict[str, str]
    notes: Path
    misc: Path
    setup: dict[str, Any] = field(default_factory=dict)  # outputs of the setup commands
    cache: dict[tuple[str, ...], Any] = field(default_factory=dict)

    def ok(self, *args: str) -> Any:
        """Run a read command (exit 0, stdout valid against its output schema).
        Answers are cached per worker: the index does not change after setup."""
        if args not in self.cache:
            self.cache[args] = gno_ok(self.env, *args)
        return copy.deepcopy(self.cache[args])


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    root = tmp_path_factory.mktemp("gno-home")
    notes = write_tree(root / "corpus" / "notes", NOTES)
    misc = write_tree(root / "corpus" / "misc", MISC)
    env = gno_env(root)
    ix = Indexed(root, env, notes, misc)
    # Every output below is validated against its schema by gno_ok.
    ix.setup["init"] = gno_ok(env, "init", "--json")
    ix.setup["add_notes"] = gno_ok(env, "collection", "add", str(notes), "--name", "notes", "--json")
    ix.setup["add_misc"] = gno_ok(env, "collection", "add", str(misc), "--name", "misc", "--json")
    ix.setup["update"] = gno_ok(env, "update", "--json")
    ix.setup["update_again"] = gno_ok(env, "update", "--json")
    return ix


@pytest.fixture
def fresh_env(tmp_path: Path) -> dict[str, str]:
    """Environment of a gno home that was never initialized."""
    return gno_env(tmp_path / "home")
