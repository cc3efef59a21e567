"""Saved-Capsule registrations: ``gno context watch | watches | unwatch | reverify``.

A registration keeps one verified-at-registration Capsule (checked like ``context
verify``: well-formed, its own identity, this index) with an optional question, label
and ``notify`` flag. They live in ``{data}/capsule-watches-<index identity>.json``, rewritten
atomically (temporary file, then rename) under a ``flock``, so the CLI and a running
server never lose each other's changes. Under ``gno serve`` / ``gno daemon`` a finished
sync that changed a document one of the Capsules cites re-verifies that registration and
publishes a ``capsule-reverified`` event (``capsule_reverified_events``), which carries
no question, label, URI, hash or receipt. At most 256 registrations per index.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gno_contracts.models.context_reverify_input import ContextReverifyInput
from gno_contracts.models.context_unwatch_input import ContextUnwatchInput
from gno_contracts.models.context_watch_input import ContextWatchInput
from gno_contracts.models.context_watches_input import ContextWatchesInput
from gno_contracts.models.saved_capsule_list import SavedCapsuleList
from gno_contracts.models.saved_capsule_registration import SavedCapsuleRegistration
from gno_contracts.models.saved_capsule_reverification import SavedCapsuleReverification

from gno.app import App
from gno.errors import GnoError, NotFoundError, ValidationError
from gno.rows import now_iso
from gno.services.context_verify import check_capsule, verify_capsule

MAX_REGISTRATIONS = 256
PUBLIC = ("registrationId", "capsuleId", "label", "question", "notify", "createdAt",
          "lastReverifiedAt", "lastContentStatus", "lastFingerprintStatus")  # fmt: skip


def _file(app: App) -> Path:
    """Named by the index's identity, as the index file is: `--index Work` and `--index
    work` are one index, so either spelling (a server's, the CLI's) sees one list."""
    return app.paths.data_dir / f"capsule-watches-{app.paths.index_identity}.json"


def _path(app: App) -> Path:
    """The file to read: one named by the spelling (as gno wrote them before) until the
    first change writes the identity's."""
    path = _file(app)
    legacy = app.paths.data_dir / f"capsule-watches-{app.paths.index_name}.json"
    return legacy if not path.exists() and legacy.exists() else path


@contextmanager
def _locked(app: App) -> Iterator[list[dict[str, Any]]]:
    """The registrations, to read or change; written back atomically when changed."""
    target = _file(app)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.with_suffix(".lock"), "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        path = _path(app)
        try:
            items = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
        except (OSError, ValueError):
            items = []  # an unreadable file is replaced by the next change, never a crash
        before = json.dumps(items, sort_keys=True)
        yield items
        if json.dumps(items, sort_keys=True) != before:
            fd, tmp = tempfile.mkstemp(prefix=".capsule-watches.", dir=target.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(items, handle, ensure_ascii=False)
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise


def _public(item: dict[str, Any]) -> dict[str, Any]:
    return {k: item.get(k) for k in PUBLIC}


def watch(app: App, inp: ContextWatchInput) -> SavedCapsuleRegistration:
    capsule = dict(inp.capsule)
    check_capsule(app, capsule)
    item = {
        "registrationId": "reg-" + secrets.token_hex(8),
        "capsuleId": capsule["capsuleId"],
        "label": inp.label,
        "question": inp.question,
        "notify": bool(inp.notify),
        "createdAt": now_iso(),
        "lastReverifiedAt": None,
        "lastContentStatus": None,
        "lastFingerprintStatus": None,
        "capsule": capsule,
    }
    with _locked(app) as items:
        if len(items) >= MAX_REGISTRATIONS:
            raise ValidationError(f"At most {MAX_REGISTRATIONS} watched Capsules per index")
        items.append(item)
    return SavedCapsuleRegistration.model_validate(
        {"schemaVersion": "1.0", "action": "watched", "registration": _public(item)}
    )


def watches(app: App, inp: ContextWatchesInput) -> SavedCapsuleList:
    with _locked(app) as items:
        shown = [_public(i) for i in items]
    return SavedCapsuleList.model_validate({"schemaVersion": "1.0", "registrations": shown})


def unwatch(app: App, inp: ContextUnwatchInput) -> SavedCapsuleRegistration:
    with _locked(app) as items:
        found = next((i for i in items if i["registrationId"] == inp.registrationId), None)
        if found is None:
            raise NotFoundError(f"No watched Capsule {inp.registrationId}")
        items.remove(found)
    return SavedCapsuleRegistration.model_validate(
        {"schemaVersion": "1.0", "action": "unwatched", "registration": _public(found)}
    )


def _reverify(app: App, item: dict[str, Any]) -> dict[str, Any]:
    """Verify one registration now and note the outcome on it (the caller saves)."""
    base = {"schemaVersion": "1.0", "registrationId": item["registrationId"],
            "capsuleId": item["capsuleId"]}  # fmt: skip
    try:
        receipt = verify_capsule(app, item["capsule"])
    except GnoError as exc:
        return base | {"operationStatus": "failed", "error": {"code": exc.code, "message": exc.message}, "receipt": None}  # fmt: skip
    item |= {"lastReverifiedAt": now_iso(), "lastContentStatus": receipt["contentStatus"],
             "lastFingerprintStatus": receipt["fingerprintStatus"]}  # fmt: skip
    return base | {"operationStatus": "completed", "error": None, "receipt": receipt}


def reverify(app: App, inp: ContextReverifyInput) -> SavedCapsuleReverification:
    with _locked(app) as items:
        found = next((i for i in items if i["registrationId"] == inp.registrationId), None)
        if found is None:
            raise NotFoundError(f"No watched Capsule {inp.registrationId}")
        outcome = _reverify(app, found)
    return SavedCapsuleReverification.model_validate(outcome)


def capsule_reverified_events(
    app: App, changed_uris: set[str], job_id: str
) -> list[dict[str, Any]]:
    """Re-verify the registrations citing a changed document; one event each."""
    if not changed_uris or not _path(app).exists():
        return []
    events = []
    with _locked(app) as items:
        for item in items:
            cited = {e.get("uri") for e in item["capsule"].get("evidence", [])}
            if not cited & changed_uris:
                continue
            outcome = _reverify(app, item)
            receipt = outcome["receipt"] or {}
            events.append({
                "type": "capsule-reverified",
                "registrationId": item["registrationId"],
                "operationStatus": outcome["operationStatus"],
                "contentStatus": receipt.get("contentStatus"),
                "fingerprintStatus": receipt.get("fingerprintStatus"),
                "reverifiedAt": now_iso(),
                "jobId": job_id,
            })  # fmt: skip
    return events
