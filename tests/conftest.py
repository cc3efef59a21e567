"""Shared fixtures: every test gets its own XDG/GNO dirs; nothing touches $HOME."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from gno.app import App
from gno.paths import resolve_paths
from tests.hostile_http import RawServer, Script

# No wall-clock limits on property tests: on a loaded machine a first example can take a
# second (imports, a cold page cache) and Hypothesis would call it a flaky failure. What
# must stay linear is bounded by timeouts on hostile inputs instead.
settings.register_profile("gno", deadline=None)
settings.load_profile("gno")


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    for name, sub in (
        ("GNO_CONFIG_DIR", "config"),
        ("GNO_DATA_DIR", "data"),
        ("GNO_CACHE_DIR", "cache"),
    ):
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("GNO_BUSY_TIMEOUT_MS", "200")
    monkeypatch.delenv("NO_COLOR", raising=False)
    return home


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture
def make_app():
    """An initialized App over a folder of files: make_app({"a.md": "..."}) -> (app, root)."""
    apps: list[App] = []

    def build(
        files: dict[str, str | bytes],
        *,
        name: str = "notes",
        root: Path | None = None,
        **add: object,
    ):
        from gno_contracts.models.collection_add_input import CollectionAddInput
        from gno_contracts.models.init_input import InitInput

        from gno.services.collections import collection_add, init

        base = Path(os.environ["GNO_DATA_DIR"]).parent
        root = write_tree(root or base / f"src-{name}", files)
        app = App(resolve_paths())
        init(app, InitInput())
        collection_add(app, CollectionAddInput(path=str(root), name=name, **add))
        apps.append(app)
        return app, root

    yield build
    for app in apps:
        app.close()


def sync(app: App, **kwargs):
    from gno_contracts.models.update_input import UpdateInput

    from gno.services.sync import update

    return update(app, UpdateInput(**kwargs))


def search(app: App, query: str, **kwargs):
    from gno_contracts.models.search_input import SearchInput

    from gno.services.search import search as run

    return run(app, SearchInput(query=query, **kwargs))


@pytest.fixture
def raw() -> Iterator[Callable[[Script], RawServer]]:
    """Start hostile HTTP servers (tests/hostile_http.py) for a test; all closed after it."""
    servers: list[RawServer] = []

    def start(script: Script) -> RawServer:
        servers.append(RawServer(script))
        return servers[-1]

    yield start
    for server in servers:
        server.close()
