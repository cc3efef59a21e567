"""Model settings over REST on a real server: GET/POST /api/presets and PATCH
/api/collections/:name for a collection's models, all kept in index.yml; and
`collection add --embed-model`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from gno.app import App
from gno.paths import resolve_paths
from tests.live_server import live_server


@pytest.fixture
def served(make_app: Any) -> Iterator[tuple[str, App]]:
    from gno.rest.app import ServeOptions, create_app

    app, _ = make_app({"a.md": "# Alpha\n\nwords\n"})
    owner = App(resolve_paths())
    api = create_app(owner, options=ServeOptions(mcp=None, watch=False, web_ui=False))
    with live_server(api) as (url, _server):
        yield url, app


def saved(app: App) -> dict[str, Any]:
    return yaml.safe_load(Path(app.paths.config_file).read_text())


def test_presets_list_and_select_persist(served: tuple[str, App]) -> None:
    url, app = served
    with httpx.Client(base_url=url, timeout=30) as http:
        listed = http.get("/api/presets").json()
        assert listed["activePreset"] == "slim-tuned"
        assert {p["id"] for p in listed["presets"]} >= {"slim-tuned", "slim", "balanced", "quality"}
        assert [p["id"] for p in listed["presets"] if p["active"]] == ["slim-tuned"]
        chosen = http.post("/api/presets", json={"presetId": "balanced"})
        assert chosen.status_code == 200, chosen.text
        body = chosen.json()
        assert body["success"] is True and body["activePreset"] == "balanced"
        assert set(body["capabilities"]) == {"bm25", "vector", "hybrid", "answer"}
        assert saved(app)["models"]["activePreset"] == "balanced"
        assert http.get("/api/presets").json()["activePreset"] == "balanced"
        unknown = http.post("/api/presets", json={"presetId": "nope"})
        assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "VALIDATION"
    assert saved(app)["models"]["activePreset"] == "balanced"


def test_patch_collection_models(served: tuple[str, App]) -> None:
    url, app = served
    with httpx.Client(base_url=url, timeout=30) as http:
        set_ = http.patch(
            "/api/collections/notes",
            json={"models": {"embed": "file:/models/e.gguf", "rerank": "http://127.0.0.1:9/v1#r"}},
        )
        assert set_.status_code == 200, set_.text
        assert set_.json()["collection"]["models"] == {
            "embed": "file:/models/e.gguf",
            "rerank": "http://127.0.0.1:9/v1#r",
        }
        cleared = http.patch("/api/collections/notes", json={"models": {"rerank": None}})
        assert cleared.json()["collection"]["models"] == {"embed": "file:/models/e.gguf"}
        stored = next(c for c in saved(app)["collections"] if c["name"] == "notes")
        assert stored["models"] == {"embed": "file:/models/e.gguf"}
        missing = http.patch("/api/collections/ghost", json={"models": {"embed": None}})
        assert missing.status_code == 404
        bad = http.patch("/api/collections/notes", json={"models": {"embed": "not-a-uri"}})
        assert bad.status_code == 400
        extra = http.patch("/api/collections/notes", json={"models": {"other": "x"}})
        assert extra.status_code == 400
    stored = next(c for c in saved(app)["collections"] if c["name"] == "notes")
    assert stored["models"] == {"embed": "file:/models/e.gguf"}


def test_collection_add_embed_model_is_kept(make_app: Any, tmp_path: Path) -> None:
    import subprocess
    import sys

    app, _ = make_app({"a.md": "# A\n"})
    other = tmp_path / "other"
    other.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "gno.cli.entry", "collection", "add", str(other), "--name",
         "other", "--embed-model", "file:/models/other.gguf"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    stored = next(c for c in saved(app)["collections"] if c["name"] == "other")
    assert stored["models"] == {"embed": "file:/models/other.gguf"}
