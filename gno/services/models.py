"""The model cache: what each role uses, what is on disk, pulling, clearing, the active preset."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gno_contracts.models.models_clear import ModelsClear
from gno_contracts.models.models_clear_input import ModelsClearInput
from gno_contracts.models.models_list import ModelsList
from gno_contracts.models.models_list_input import ModelsListInput
from gno_contracts.models.models_path import ModelsPath
from gno_contracts.models.models_path_input import ModelsPathInput
from gno_contracts.models.models_pull import ModelsPull
from gno_contracts.models.models_pull_input import ModelsPullInput
from gno_contracts.models.models_use import ModelsUse
from gno_contracts.models.models_use_input import ModelsUseInput

from gno.app import App
from gno.errors import ModelDownloadError, ModelUnavailableError, ValidationError
from gno.models.availability import (
    download_policy,
)
from gno.models.cache import hf_cache_path
from gno.models.catalog import (
    DEFAULT_PRESET,
    PRESETS,
    ROLES,
    Preset,
    active_preset,
    parse_model_uri,
    role_uri,
)


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
    """GGUF files of the cache; hidden folders (``.partial`` downloads, locks) are not models."""
    if not models_dir.is_dir():
        return []
    return sorted(
        p
        for p in models_dir.rglob("*.gguf")
        if not any(part.startswith(".") for part in p.relative_to(models_dir).parts)
    )


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
    if removed:
        from gno.models import manifest

        manifest.prune(app.paths.models_dir)
    return ModelsClear.model_validate({"removed": removed, "freedBytes": freed})


_OFFLINE_WHY = {
    "hf-hub-offline": "HF_HUB_OFFLINE is set",
    "gno-offline": "offline mode is on (--offline or GNO_OFFLINE)",
}


def check_pull_allowed() -> None:
    """Raise ModelUnavailableError when offline mode forbids any download."""
    policy = download_policy()
    if policy.offline:
        raise ModelUnavailableError(
            f"Cannot pull models: {_OFFLINE_WHY[policy.source]}. "
            "Downloads need the network; unset it (GNO_NO_AUTO_DOWNLOAD alone still allows gno models pull)"
        )


def models_pull(
    app: App,
    inp: ModelsPullInput,
    progress: Callable[[str, int, int | None], None] | None = None,
) -> ModelsPull:
    """Download the ``hf:`` models of the chosen roles (all by default) that are not cached.

    ``file:`` and ``http(s):`` models are skipped, never fetched. Every role is tried;
    when any download failed the pull raises ModelDownloadError after the others,
    with every role's result in ``details["results"]``."""
    check_pull_allowed()
    raw = _raw_config(app)
    roles = [r.value for r in inp.roles] if inp.roles else list(ROLES)
    uris = {role: role_uri(role, raw)[0] for role in roles}
    models = {role: parse_model_uri(uri) for role, uri in uris.items() if uri}  # bad URI: exit 1
    results: list[dict[str, Any]] = []
    pulled: set[str] = set()  # URIs this run fetched: a second role of one file finds it cached
    for role in roles:
        entry: dict[str, Any] = {"role": role, "uri": uris[role], "path": None}
        model = models.get(role)
        if model is None:
            entry |= {"status": "skipped", "reason": "no model is configured for this role"}
        elif model.scheme == "http":
            entry |= {"status": "skipped", "reason": "remote endpoint: nothing to download"}
        elif model.scheme == "file":
            local = Path(model.path or "")
            entry |= {
                "status": "skipped",
                "reason": "local file" + ("" if local.is_file() else " (not found)"),
            }
            if local.is_file():
                entry |= {"path": str(local), "size": local.stat().st_size}
        else:
            force = inp.force and model.raw not in pulled
            entry |= _pull_one(app, role, model, force, progress)
            pulled.add(model.raw)
        results.append(entry)
    if any(r["status"] == "downloaded" for r in results):
        app.models.forget_missing()  # an optional role found without a model may have one now
    failed = [r for r in results if r["status"] == "failed"]
    if failed:
        listed = "; ".join(f"{r['role']}: {r['reason']}" for r in failed)
        flags = " ".join(f"--{r['role']}" for r in failed)
        raise ModelDownloadError(
            f"{len(failed)} of {len(results)} model download(s) failed. {listed}. "
            f"Run again: gno models pull {flags}",
            details={"results": results},
        )
    count = {s: sum(r["status"] == s for r in results) for s in ("downloaded", "cached", "skipped")}
    return ModelsPull.model_validate(
        {"results": results, **count, "cacheDir": str(app.paths.models_dir)}
    )


def _pull_one(
    app: App,
    role: str,
    model: Any,
    force: bool,
    progress: Callable[[str, int, int | None], None] | None,
) -> dict[str, Any]:
    from gno.models.pull import fetch_model

    try:
        got = fetch_model(role, model, app.paths.models_dir, force=force, progress=progress)
    except ModelDownloadError as exc:
        return {"status": "failed", "reason": exc.message}
    entry: dict[str, Any] = {
        "status": "downloaded" if got.downloaded else "cached",
        "path": str(got.path),
        "size": got.size,
    }
    if got.sha256:
        entry["sha256"] = got.sha256
    return entry


def _preset_ids(raw: dict[str, Any]) -> list[str]:
    custom = [
        str(p["id"])
        for p in (raw.get("models") or {}).get("presets") or []
        if isinstance(p, dict) and p.get("id")
    ]
    return list(dict.fromkeys([*PRESETS, *custom]))


def models_use(app: App, inp: ModelsUseInput) -> ModelsUse:
    """Write ``models.activePreset`` to index.yml; say when the embedding model changes,
    since vectors of the old model do not serve the new one (``gno embed`` re-embeds)."""
    from gno.services.index_guard import config_change

    with config_change(app):  # no lost update against a concurrent collection change
        return _models_use(app, inp)


CUSTOM_PRESET = "custom"  # where `models use --embed …` keeps per-role URIs in index.yml


def _role_uris(inp: ModelsUseInput) -> dict[str, str]:
    """The role URIs asked for, each parsed first: a bad one changes nothing."""
    given = {role: getattr(inp, role) for role in ROLES if getattr(inp, role, None)}
    for uri in given.values():
        parse_model_uri(uri)
    return given


def _with_custom(raw: dict[str, Any], base: Preset, given: dict[str, str]) -> dict[str, Any]:
    """index.yml's ``models`` block with the ``custom`` preset: ``base``'s URIs with the
    given roles replaced, made active."""
    models = dict(raw.get("models") or {})
    entry: dict[str, Any] = {"id": CUSTOM_PRESET, "name": "Custom"}
    entry |= {
        role: given.get(role) or base.uri(role)
        for role in ROLES
        if given.get(role) or base.uri(role)
    }
    kept = [
        p
        for p in models.get("presets") or []
        if not (isinstance(p, dict) and p.get("id") == CUSTOM_PRESET)
    ]
    models["presets"] = [*kept, entry]
    models["activePreset"] = CUSTOM_PRESET
    return models


def _models_use(app: App, inp: ModelsUseInput) -> ModelsUse:
    config = app.config
    given = _role_uris(inp)
    if inp.preset is None and not given:
        raise ValidationError(
            "Name a preset or at least one model (--embed, --rerank, --expand, --gen)"
        )
    known = _preset_ids(config.raw)
    if inp.preset is not None and inp.preset not in known:
        raise ValidationError(f"Unknown model preset {inp.preset!r} (one of {', '.join(known)})")
    previous: Preset | None
    try:
        previous = active_preset(config.raw)
    except ValidationError:  # index.yml names a preset that does not exist: replace it
        previous = None
    raw = copy.deepcopy(config.raw)
    if given:
        base_raw = raw | {"models": dict(raw.get("models") or {}) | {"activePreset": inp.preset}}
        base = active_preset(base_raw) if inp.preset else (previous or PRESETS[DEFAULT_PRESET])
        raw["models"] = _with_custom(raw, base, given)
    else:
        raw["models"] = dict(raw.get("models") or {}) | {"activePreset": inp.preset}
    app.save_config(dataclasses.replace(config, raw=raw))
    chosen = active_preset(raw)
    changed = previous is None or previous.embed != chosen.embed
    payload: dict[str, Any] = {
        "success": True,
        "activePreset": chosen.id,
        "previousPreset": previous.id if previous else None,
        "embedModel": chosen.embed,
        "embedModelChanged": changed,
        "models": {role: chosen.uri(role) for role in ROLES if chosen.uri(role)},
    }
    if changed:
        was = previous.embed if previous else "unknown"
        payload["note"] = (
            f"The embedding model changed ({was} -> {chosen.embed}): "
            "run `gno embed` to re-embed the index."
        )
    return ModelsUse.model_validate(payload)
