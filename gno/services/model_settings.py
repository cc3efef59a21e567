"""Model settings kept in index.yml: the preset list and choice (``/api/presets``) and a
collection's per-role models (``PATCH /api/collections/:name``). Whatever reads that
config — the CLI, `gno mcp` started from a client's entry, `gno serve` — finds them, with
no environment variable."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from gno_contracts.models.capabilities_input import CapabilitiesInput
from gno_contracts.models.collection_models import CollectionModels
from gno_contracts.models.collection_models_input import CollectionModelsInput
from gno_contracts.models.models_use_input import ModelsUseInput
from gno_contracts.models.preset_select import PresetSelect
from gno_contracts.models.preset_select_input import PresetSelectInput
from gno_contracts.models.presets import PresetList
from gno_contracts.models.presets_input import PresetsInput

from gno.app import App
from gno.core.identity import normalize_collection_name
from gno.errors import NotFoundError, ValidationError
from gno.models.catalog import ROLES, active_preset, parse_model_uri
from gno.services.index_guard import config_change

ROLE_KEYS = tuple(ROLES)


def presets_list(app: App, inp: PresetsInput) -> PresetList:
    from gno.services.models import _preset_ids

    raw = app.config.raw if app.paths.config_file.exists() else {}
    active = active_preset(raw)
    entries = []
    for preset_id in _preset_ids(raw):
        preset = active_preset(
            {"models": dict(raw.get("models") or {}) | {"activePreset": preset_id}}
        )
        entry: dict[str, Any] = {
            "id": preset.id,
            "name": preset.name,
            "active": preset.id == active.id,
        }
        entry |= {role: preset.uri(role) for role in ROLE_KEYS if preset.uri(role)}
        entries.append(entry)
    return PresetList.model_validate({"presets": entries, "activePreset": active.id})


def preset_select(app: App, inp: PresetSelectInput) -> PresetSelect:
    from gno.services.models import models_use
    from gno.services.status import capabilities

    used = models_use(app, ModelsUseInput(preset=inp.presetId))
    payload: dict[str, Any] = {
        "success": True,
        "activePreset": used.activePreset,
        "embedModelChanged": used.embedModelChanged,
        "capabilities": capabilities(app, CapabilitiesInput()).model_dump(mode="json"),
    }
    if used.note:
        payload["note"] = used.note
    return PresetSelect.model_validate(payload)


def collection_models(app: App, inp: CollectionModelsInput) -> CollectionModels:
    changes = inp.models.model_dump(exclude_unset=True)
    for value in changes.values():
        if value is not None:
            parse_model_uri(value)  # a bad URI changes nothing
    name = normalize_collection_name(inp.collection)
    with config_change(app):
        config = app.reload_config()
        found = config.find(name)
        if found is None:
            raise NotFoundError(f"Collection not found: {inp.collection}")
        current = dict(found.extra.get("models") or {})
        for role, value in changes.items():
            if value is None:
                current.pop(role, None)
            else:
                current[role] = value
        extra = copy.deepcopy(found.extra)
        if current:
            extra["models"] = current
        else:
            extra.pop("models", None)
        updated = dataclasses.replace(found, extra=extra)
        config.collections = [updated if c is found else c for c in config.collections]
        app.save_config(config)
    collection: dict[str, Any] = {"name": updated.name, "path": updated.path}
    if current:
        collection["models"] = current
    return CollectionModels.model_validate({"success": True, "collection": collection})


def collection_embed_model(uri: str | None) -> dict[str, Any]:
    """``collection add --embed-model``: the collection's ``models`` block, URI checked."""
    if uri is None:
        return {}
    if not uri.strip():
        raise ValidationError("Invalid embedModel: empty")
    parse_model_uri(uri)
    return {"models": {"embed": uri}}
