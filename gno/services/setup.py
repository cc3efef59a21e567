"""gno setup: one folder from nothing to a proven keyword search, safe to re-run.

Everything that can be refused is checked before anything is written: the folder
(exists, is a folder, not the home folder or a system root, holds at least one file gno
indexes), the collection name, the preset and the connector ids. Then: the config and
index (created when missing), the collection (added, or reused when one already indexes
that folder), the preset, a sync of that collection, embedding when the model is on disk,
the lexical proof (status@1.0 ``activation`` for this collection) and the connectors asked
for, each installed then smoke-tested once the proof passed (an MCP client's configured
command started, its tools listed, one search finding the probe's document; a skill is
``target_runtime_unverifiable``). A sync that fails removes a collection this run added, so a failed setup leaves the
config as it found it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.collection_remove_input import CollectionRemoveInput
from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.init_input import InitInput
from gno_contracts.models.models_use_input import ModelsUseInput
from gno_contracts.models.setup_command_result import SetupCommandResult
from gno_contracts.models.setup_input import SetupInput
from gno_contracts.models.update_input import UpdateInput

from gno.app import App
from gno.config import Collection
from gno.core.globs import DEFAULT_EXCLUDES, DEFAULT_PATTERN, FileRules
from gno.core.identity import normalize_collection_name
from gno.core.mime import SUPPORTED_EXTENSIONS
from gno.errors import DuplicateError, GnoError, ValidationError
from gno.services import collections


def _existing(app: App, root: str) -> Collection | None:
    """The collection already indexing this folder (same real path), if any."""
    if not app.paths.config_file.exists():
        return None
    real = os.path.realpath(root)
    return next((c for c in app.config.collections if os.path.realpath(c.path) == real), None)


def _indexable(root: str, excludes: list[str]) -> bool:
    from gno.ingest.walker import walk

    rules = FileRules.build(DEFAULT_PATTERN, [], excludes, SUPPORTED_EXTENSIONS)
    return next(iter(walk(Path(root), rules)), None) is not None


def _plan(app: App, inp: SetupInput) -> tuple[str, str, Collection | None, list[str]]:
    """(root, collection name, existing collection, excludes); raises before any write."""
    root = collections.check_root(inp.path)
    excludes = list(DEFAULT_EXCLUDES) + [e for e in inp.exclude or []]
    if any(not e.strip() for e in inp.exclude or []):
        raise ValidationError("Invalid exclude: an empty --exclude")
    existing = _existing(app, root)
    name = normalize_collection_name(
        inp.name or (existing.name if existing else collections.default_name(root))
    )
    if existing is not None and existing.name != name:
        raise DuplicateError(
            f"{root} is already collection {existing.name!r}; run setup with --name {existing.name}"
        )
    if existing is None and app.paths.config_file.exists() and app.config.find(name):
        raise DuplicateError(f"Collection {name!r} already indexes another folder; pick --name")
    if not _indexable(root, excludes):
        raise ValidationError(
            f"Nothing to index in {root}: no file gno reads "
            "(Markdown, text, code, or PDF/DOCX/PPTX/XLSX with gno[office])"
        )
    if inp.preset is not None:
        from gno.services.models import _preset_ids

        known = _preset_ids(app.config.raw if app.paths.config_file.exists() else {})
        if inp.preset not in known:
            raise ValidationError(
                f"Unknown model preset {inp.preset!r} (one of {', '.join(known)})"
            )
    return root, name, existing, excludes


def _semantic(app: App, name: str, skip: bool) -> dict[str, Any]:
    from gno.services.models import _entry

    fix = "gno models pull --embed && gno embed"
    if skip:
        return {"status": "skipped", "command": "gno embed", "message": "--no-semantic"}
    if not _entry(app, "embed")["cached"] or not app.store().load_vec():
        return {
            "status": "pending",
            "command": fix,
            "message": "No embedding model on disk yet; keyword search works now.",
        }
    from gno.services.embed import embed

    try:
        done = embed(app, EmbedInput(collection=name))
    except GnoError as exc:  # keyword search is proven either way
        return {"status": "pending", "command": fix, "message": exc.message}
    return {"status": "embedded", "embedded": done.embedded, "command": None}


def _proof(app: App, name: str) -> dict[str, Any]:
    from gno.services.status import activation

    store = app.store()
    state = activation(store, store.collection_counts())
    mine = next((c for c in state["collections"] if c["collection"] == name), None)
    proof = mine or {"collection": name, "ready": False}
    if proof["ready"]:  # the hit that proves it: a corpus word finding its document
        from gno.services.connectors import probe

        term, uri, code = probe(app, name)
        if code is None and uri:
            proof["evidence"] = {"probe": term, "resultUri": uri}
        else:
            proof["ready"] = False
    return proof


def setup(app: App, inp: SetupInput) -> SetupCommandResult:
    root, name, existing, excludes = _plan(app, inp)
    connectors = list(dict.fromkeys(str(getattr(c, "value", c)) for c in inp.connectors or []))
    collections.init(app, InitInput())
    if existing is None:
        add = CollectionAddInput(path=root, name=name, exclude=excludes)
        collections.collection_add(app, add)
    app.reload_config()
    preset = None
    if inp.preset is not None:
        from gno.services.models import models_use

        preset = models_use(app, ModelsUseInput(preset=inp.preset)).activePreset
    from gno.services.sync import update

    try:
        synced = update(app, UpdateInput(collection=name))
    except BaseException:
        if existing is None:  # nothing half-configured: the collection goes with the failure
            collections.collection_remove(app, CollectionRemoveInput(collection=name))
        raise
    tally = synced.collections[0] if synced.collections else None
    semantic = _semantic(app, name, inp.noSemantic)
    proof = _proof(app, name)
    installed = [_connector(app, cid) for cid in connectors]
    if proof.get("ready"):
        for item in installed:
            _smoke(app, item, name)
    if installed and "stages" in proof:
        proof["stages"]["connector"] = _connector_stage(installed, proof["stages"]["connector"])
    steps = [] if proof.get("ready") else ["gno update", "gno doctor"]
    if semantic["status"] == "pending":
        steps.append(semantic["command"])
    steps += [f"gno connectors: {c['message']}" for c in installed if c["status"] == "failed"]
    steps += [
        f"gno connectors: {c['id']} smoke test failed ({c['smoke'].get('code')}): "
        f"{c['smoke']['message']}"
        for c in installed
        if c.get("smoke", {}).get("status") == "failed"
    ]
    status = "completed"
    if not proof.get("ready"):
        status = "failed"
    elif any(_failed(c) for c in installed):
        status = "completed_with_actions"
    payload: dict[str, Any] = {
        "schemaVersion": "1.0",
        "status": status,
        "collection": {"name": name, "path": root},
        "created": existing is None,
        "sync": {
            "filesAdded": tally.filesAdded if tally else 0,
            "filesUpdated": tally.filesUpdated if tally else 0,
            "filesUnchanged": tally.filesUnchanged if tally else 0,
            "filesErrored": tally.filesErrored if tally else 0,
        },
        "semantic": semantic,
        "activation": proof,
        "connectors": installed,
        "nextSteps": steps or [f'gno search "<words from your notes>" -c {name}'],
    }
    if preset:
        payload["activePreset"] = preset
    return SetupCommandResult.model_validate(payload)


def _connector(app: App, connector_id: str) -> dict[str, Any]:
    from gno.services.connectors import install_connector

    try:
        return install_connector(app, connector_id)
    except GnoError as exc:  # a connector failure is an action to take, not a failed setup
        return {"id": connector_id, "status": "failed", "path": None, "message": exc.message}


SMOKE_FIELDS = ("status", "stage", "code", "message", "tools", "latencyMs")


def _smoke(app: App, item: dict[str, Any], collection: str) -> None:
    """Run the connector's smoke test (``verify_connector``, bounded by the smoke test's
    30 s) on an installed connector and keep its outcome as ``item["smoke"]``."""
    if item["status"] == "failed":
        return
    from gno.services.connectors import verify_connector

    found = verify_connector(app, item["id"], collection)
    item["smoke"] = {k: found[k] for k in SMOKE_FIELDS if found.get(k) is not None}


def _failed(item: dict[str, Any]) -> bool:
    return bool(item["status"] == "failed" or item.get("smoke", {}).get("status") == "failed")


def _connector_stage(installed: list[dict[str, Any]], stage: dict[str, Any]) -> dict[str, Any]:
    """The activation's connector stage from the connectors asked for: failed (the first
    failure's code) when one failed, passed when an MCP smoke test passed, else skipped
    (skills only: ``target_runtime_unverifiable``)."""
    spent = sum(c.get("smoke", {}).get("latencyMs", 0) for c in installed)
    stage = {k: v for k, v in stage.items() if k != "code"} | {"latencyMs": spent}
    failed = next((c for c in installed if _failed(c)), None)
    if failed is not None:
        code = failed.get("smoke", {}).get("code") or "connector_not_configured"
        return stage | {"status": "failed", "code": code}
    if any(c.get("smoke", {}).get("status") == "passed" for c in installed):
        return stage | {"status": "passed"}
    return stage | {"status": "skipped", "code": "target_runtime_unverifiable"}
