"""`models use`: the active preset round-trips through index.yml; unknown presets are exit 1."""

from __future__ import annotations

import os

import pytest
import yaml
from gno_contracts.models.models_list_input import ModelsListInput
from gno_contracts.models.models_use_input import ModelsUseInput

from gno.app import App
from gno.errors import NotInitializedError, ValidationError
from gno.models.catalog import PRESETS
from gno.paths import resolve_paths
from gno.services.models import models_list, models_use
from tests.models.gno_process import gno

CUSTOM = {"id": "mini", "name": "Mini", "embed": "hf:test-org/mini-embed-GGUF:Q8_0"}


def test_use_writes_the_preset_and_keeps_the_rest_of_index_yml(make_app):
    app, _ = make_app({"a.md": "# A\n"})
    used = models_use(app, ModelsUseInput(preset="balanced"))
    assert (used.activePreset, used.previousPreset, used.embedModelChanged) == (
        "balanced",
        "slim-tuned",
        False,
    )
    assert used.note is None and used.embedModel == PRESETS["balanced"].embed
    saved = yaml.safe_load(app.paths.config_file.read_text())
    assert saved["models"]["activePreset"] == "balanced"
    assert [c["name"] for c in saved["collections"]] == ["notes"]  # nothing else lost
    fresh = App(resolve_paths())  # another process reads it back
    try:
        assert models_list(fresh, ModelsListInput()).activePreset == "balanced"
    finally:
        fresh.close()


def test_a_preset_with_another_embed_model_says_to_re_embed(make_app):
    app, _ = make_app({"a.md": "# A\n"})
    raw = yaml.safe_load(app.paths.config_file.read_text())
    raw["models"] = {"activePreset": "slim", "presets": [CUSTOM], "loadTimeout": 60000}
    app.paths.config_file.write_text(yaml.safe_dump(raw))
    app.reload_config()
    used = models_use(app, ModelsUseInput(preset="mini"))
    assert used.embedModelChanged is True and used.embedModel == CUSTOM["embed"]
    assert used.note and "run `gno embed`" in used.note and CUSTOM["embed"] in used.note
    saved = yaml.safe_load(app.paths.config_file.read_text())["models"]
    assert saved == {"activePreset": "mini", "presets": [CUSTOM], "loadTimeout": 60000}
    back = models_use(app, ModelsUseInput(preset="quality"))
    assert back.previousPreset == "mini" and back.embedModelChanged is True


def test_unknown_preset_is_a_validation_error_and_changes_nothing(make_app):
    app, _ = make_app({"a.md": "# A\n"})
    before = app.paths.config_file.read_bytes()
    with pytest.raises(ValidationError, match=r"Unknown model preset 'turbo'.*slim-tuned"):
        models_use(app, ModelsUseInput(preset="turbo"))
    assert app.paths.config_file.read_bytes() == before


def test_an_unknown_active_preset_can_be_replaced(make_app):
    app, _ = make_app({"a.md": "# A\n"})
    raw = yaml.safe_load(app.paths.config_file.read_text())
    raw["models"] = {"activePreset": "gone"}
    app.paths.config_file.write_text(yaml.safe_dump(raw))
    app.reload_config()
    used = models_use(app, ModelsUseInput(preset="slim"))
    assert used.previousPreset is None and used.embedModelChanged is True


def test_use_needs_an_initialized_config():
    app = App(resolve_paths())
    with pytest.raises(NotInitializedError):
        models_use(app, ModelsUseInput(preset="slim"))


def test_cli_warns_on_stderr_and_exits_1_for_an_unknown_preset(tmp_path):
    env = dict(os.environ)  # the isolated dirs of this test (conftest)
    (tmp_path / "home").mkdir()
    assert gno(env, "init", "--yes").returncode == 0
    config = tmp_path / "home" / "config" / "index.yml"
    raw = yaml.safe_load(config.read_text())
    raw["models"] = {"presets": [CUSTOM]}
    config.write_text(yaml.safe_dump(raw))
    done = gno(env, "models", "use", "mini")
    assert done.returncode == 0
    assert done.stdout == "Active preset: mini (was slim-tuned)\n"
    assert done.stderr.startswith("Warning: The embedding model changed")
    bad = gno(env, "models", "use", "turbo")
    assert bad.returncode == 1 and "Unknown model preset 'turbo'" in bad.stderr
