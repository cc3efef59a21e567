"""The model cache as seen from the CLI: what each role uses, what is on disk, clearing it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gno_contracts.models.models_clear import ModelsClear
from gno_contracts.models.models_clear_input import ModelsClearInput
from gno_contracts.models.models_list import ModelsList
from gno_contracts.models.models_list_input import ModelsListInput
from gno_contracts.models.models_path import ModelsPath
from gno_contracts.models.models_path_input import ModelsPathInput

from gno.app import App
from gno.models.availability import hf_cache_path
from gno.models.catalog import PRESETS, ROLES, active_preset, parse_model_uri, role_uri


def _raw_config(app: App) -> dict[str, Any]:
    return app.config.raw if app.paths.config_file.exists() else {}


def _entry(app: App, role: str) -> dict[str, Any]:
    uri, source = role_uri(role, _raw_config(app))
    model = parse_model_uri(uri)
    if model.scheme == "file":
        path: Path | None = Path(model.path or "")
    else:
        path = hf_cache_path(model, app.paths.models_dir)
    on_disk = path is not None and path.is_file()
    entry: dict[str, Any] = {"uri": uri, "cached": on_disk, "path": str(path) if on_disk else None}
    if on_disk and path is not None:
        entry["size"] = path.stat().st_size
    return entry | {"source": source}


def _cached_files(models_dir: Path) -> list[Path]:
    return sorted(models_dir.rglob("*.gguf")) if models_dir.is_dir() else []


def models_list(app: App, inp: ModelsListInput) -> ModelsList:
    active = active_preset(_raw_config(app))
    payload: dict[str, Any] = {
        "activePreset": active.id,
        "presets": [
            {"id": p.id, "name": p.name, "active": p.id == active.id} for p in PRESETS.values()
        ],
        **{role: _entry(app, role) for role in ROLES},
        "cacheDir": str(app.paths.models_dir),
        "totalSize": sum(p.stat().st_size for p in _cached_files(app.paths.models_dir)),
    }
    return ModelsList.model_validate(payload)


def models_path(app: App, inp: ModelsPathInput) -> ModelsPath:
    return ModelsPath.model_validate({"cacheDir": str(app.paths.models_dir)})


def models_clear(app: App, inp: ModelsClearInput) -> ModelsClear:
    """Delete cached files of the named roles' current models (all cached GGUFs when none named).
    Files outside the cache (file: URIs) are never touched."""
    if inp.roles:
        targets = []
        for role in inp.roles:
            path = hf_cache_path(
                parse_model_uri(role_uri(role.value, _raw_config(app))[0]), app.paths.models_dir
            )
            if path is not None and path.is_file():
                targets.append(path)
    else:
        targets = _cached_files(app.paths.models_dir)
    removed, freed = [], 0
    for path in dict.fromkeys(targets):
        freed += path.stat().st_size
        path.unlink()
        removed.append(str(path))
    return ModelsClear.model_validate({"removed": removed, "freedBytes": freed})
