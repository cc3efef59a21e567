"""The blocks REST `/api/status` adds to status@1.0: onboarding, health, background
and bootstrap (surfaces.md §5.4; the CLI keeps the smaller shape).

Everything here is passive: file stats, the index, the job list and the resident
runtime's own counters. No model is loaded or downloaded and no remote endpoint is
called, so a status request stays cheap while a model or an HTTP server is down.
Host paths are added only where the schema has a place for them; the REST layer
removes them for callers that are not on this host (``rest/views.py``).
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gno_contracts.models.status import Status
from gno_contracts.models.status_input import StatusInput

from gno import __version__
from gno.app import App
from gno.errors import GnoError

if TYPE_CHECKING:
    from gno_contracts.models.embed_status import EmbedStatus
    from gno_contracts.models.embed_status_input import EmbedStatusInput

REQUIRED_PYTHON = ">=3.11"
ROLE_LABELS = {
    "embed": "Embedding",
    "rerank": "Reranking",
    "expand": "Query expansion",
    "gen": "Answers",
}


def full_status(app: App, inp: StatusInput) -> Status:
    """status@1.0 with all four blocks (REST)."""
    from gno.services.status import status

    base = status(app, inp).model_dump(mode="json", exclude_unset=True)
    models = bootstrap_models(app)
    embed_ready = any(e["role"] == "embed" and e["usable"] for e in models)
    background = background_block(app, embed_ready)
    payload = base | {
        "onboarding": onboarding(base, embed_ready, background),
        "health": health(base, embed_ready),
        "background": background,
        "bootstrap": bootstrap(app, models),
    }
    return Status.model_validate(payload)


# ---- onboarding


def onboarding(
    base: dict[str, Any], embed_ready: bool, background: dict[str, Any]
) -> dict[str, Any]:
    """Three steps in order; the first one not complete is the stage."""
    collections = base["collections"]
    documents, backlog = base["totalDocuments"], base["embeddingBacklog"]
    syncing = bool(
        background["watcher"]["syncingCollections"] or background["embedding"]["running"]
    )
    steps = [
        {
            "id": "add-collection",
            "title": "Add a folder",
            "done": bool(collections),
            "detail": f"{len(collections)} collection(s) configured"
            if collections
            else "Add a folder of notes or documents as a collection.",
            "action": "add-collection",
        },
        {
            "id": "models",
            "title": "Get the embedding model",
            "done": embed_ready,
            "detail": "The embedding model is ready."
            if embed_ready
            else "Download the embedding model for semantic search (gno models pull --embed).",
            "action": "download-models",
        },
        {
            "id": "indexing",
            "title": "Index your documents",
            "done": documents > 0 and backlog == 0 and not syncing,
            "detail": _indexing_detail(documents, backlog, syncing),
            "action": "sync" if documents == 0 else "embed",
        },
    ]
    current: str | None = next((str(s["id"]) for s in steps if not s["done"]), None)
    out_steps = []
    seen_current = False
    for step in steps:
        if step["done"]:
            status = "complete"
        elif not seen_current:
            status, seen_current = "current", True
        else:
            status = "upcoming"
        entry = {
            "id": step["id"],
            "title": step["title"],
            "status": status,
            "detail": step["detail"],
        }
        if status != "complete":
            entry["action"] = step["action"]
        out_steps.append(entry)
    headline, detail = {
        None: ("You're all set", f"{documents} documents indexed."),
        "add-collection": ("Add your first folder", "gno indexes folders you add as collections."),
        "models": (
            "Get the embedding model",
            "Keyword search works now; semantic search needs it.",
        ),
        "indexing": ("Indexing your documents", _indexing_detail(documents, backlog, syncing)),
    }[current]
    return {
        "ready": current is None,
        "stage": current or "ready",
        "headline": headline,
        "detail": detail,
        # Suggesting folders would mean looking through the user's home: not done passively.
        "suggestedCollections": [],
        "steps": out_steps,
    }


def _indexing_detail(documents: int, backlog: int, syncing: bool) -> str:
    if syncing:
        return "A sync or embedding run is in progress."
    if documents == 0:
        return "No documents are indexed yet: run a sync."
    if backlog:
        return f"{documents} documents indexed; {backlog} chunks wait for embeddings."
    return f"{documents} documents indexed and embedded."


# ---- health


def health(base: dict[str, Any], embed_ready: bool) -> dict[str, Any]:
    collections = base["collections"]
    checks: list[dict[str, Any]] = []

    def check(id_: str, title: str, status: str, summary: str, detail: str, kind: str | None = None,
              label: str | None = None) -> None:  # fmt: skip
        entry = {"id": id_, "title": title, "status": status, "summary": summary, "detail": detail}
        if status != "ok" and kind:
            entry["actionLabel"] = label or kind
            entry["actionKind"] = kind
        checks.append(entry)

    if not collections:
        check("collections", "Collections", "error", "No collections yet",
              "Add a folder so gno has something to index.", "add-collection", "Add a folder")  # fmt: skip
    else:
        check(
            "collections",
            "Collections",
            "ok",
            f"{len(collections)} configured",
            "Collections are configured.",
        )
    broken = [c["name"] for c in collections if "rootError" in c]
    if broken:
        check(
            "folder-access", "Folder access", "warn",
            f"{len(broken)} collection folder(s) cannot be read: {', '.join(broken)}",
            "The folder is missing, moved or unreadable. Its documents stay indexed; this clears "
            "on the next status request once the folder is back.",
            "open-collections", "Open collections",
        )  # fmt: skip
    else:
        check("folder-access", "Folder access", "ok", "Every collection folder is readable",
              "All collection folders exist and can be read.")  # fmt: skip
    if collections:
        documents = base["totalDocuments"]
        if documents:
            check(
                "index",
                "Index",
                "ok",
                f"{documents} documents indexed",
                "The index answers searches.",
            )
        else:
            check("index", "Index", "warn", "No documents indexed yet",
                  "Run a sync to index the collections.", "sync", "Sync now")  # fmt: skip
        if not embed_ready:
            check("models", "Embedding model", "warn", "Embedding model not downloaded",
                  "Keyword search works; semantic search needs the embedding model.",
                  "download-models", "Download models")  # fmt: skip
        elif base["embeddingBacklog"]:
            check("embeddings", "Embeddings", "warn", f"{base['embeddingBacklog']} chunks wait for embeddings",
                  "Semantic search covers only the embedded chunks until embedding runs.",
                  "embed", "Embed now")  # fmt: skip
        else:
            check(
                "embeddings",
                "Embeddings",
                "ok",
                "Every chunk is embedded",
                "Semantic search covers the index.",
            )
        errors = base.get("recentErrors", 0)
        if errors:
            check("ingest-errors", "Ingest errors", "warn", f"{errors} files failed in the last 24 h",
                  "Those files are not searchable; `gno update` lists why.", "sync", "Sync again")  # fmt: skip
    if not collections:
        state, summary = "setup-required", "Add a folder to get started"
    else:
        attention = [c for c in checks if c["status"] != "ok"]
        state = "needs-attention" if attention else "healthy"
        summary = (
            f"{len(attention)} check(s) need attention" if attention else "Everything looks good"
        )
    return {"state": state, "summary": summary, "checks": checks}


# ---- background


def embed_status(app: App, inp: EmbedStatusInput) -> EmbedStatus:
    """GET /api/embed/status: ``background.embedding`` of the full status, alone (what a
    GNO client polls after `POST /api/embed` answered ``running: true``)."""
    from gno_contracts.models.embed_status import EmbedStatus

    models = bootstrap_models(app)
    ready = any(e["role"] == "embed" and e["usable"] for e in models)
    return EmbedStatus.model_validate(background_block(app, ready)["embedding"])


def background_block(app: App, embed_ready: bool) -> dict[str, Any]:
    live = app.server.background_status() if app.server is not None else None
    jobs = app.jobs.all()
    embed_jobs = [j for j in jobs if j.type in ("embed", "index")]
    finished = [j for j in embed_jobs if j.completed_at is not None]
    last = max(finished, key=lambda j: j.completed_at or j.started_at) if finished else None
    last_result = None
    if last is not None and last.result is not None:
        value = last.result.value.model_dump(mode="json", exclude_none=True)
        embed = value.get("embed", value)
        last_result = {
            "embedded": int(embed.get("embedded", 0)),
            "errors": int(embed.get("errors", 0)),
        }
    watcher = (live or {}).get("watcher") or {
        "expectedCollections": [],
        "activeCollections": [],
        "failedCollections": [],
        "queuedCollections": [],
        "syncingCollections": [],
        "lastEventAt": None,
        "lastSyncAt": None,
    }
    events = (live or {}).get("events") or {"connectedClients": 0, "retryMs": 0}
    return {
        "watcher": watcher,
        "embedding": {
            "available": embed_ready,
            "pendingDocCount": pending_documents(app),
            "running": any(j.status == "running" for j in embed_jobs),
            "nextRunAt": (live or {}).get("nextEmbedAt"),
            "lastRunAt": int(last.completed_at.timestamp() * 1000)
            if last and last.completed_at
            else None,
            "lastResult": last_result,
        },
        "events": events,
    }


def pending_documents(app: App) -> int:
    from gno.services.embed_models import groups_for

    try:
        store = app.store()
        return sum(  # each collection against the model it embeds with
            store.pending_documents(store.latest_embed_model(group.uri), group.collections)
            for group in groups_for(app, None)
        )
    except GnoError:
        return 0


# ---- bootstrap


def bootstrap_models(app: App) -> list[dict[str, Any]]:
    """One entry per role of the active setup, from the disk only."""
    from gno.models.cache import hf_cache_path
    from gno.models.catalog import ROLES, parse_model_uri

    entries = []
    for role in ROLES:
        try:
            uri = app.model_uri(role)
            model = parse_model_uri(uri)
        except GnoError:
            continue  # an invalid setting: `gno models list` explains it
        path: Path | None = None
        if model.scheme == "file":
            path = Path(model.path or "")
        elif model.scheme == "hf":
            path = hf_cache_path(model, app.paths.models_dir)
        on_disk = path is not None and path.is_file()
        if model.scheme == "http":
            label = "Remote endpoint (not contacted by status)"
        elif on_disk:
            label = "Cached" if model.scheme == "hf" else "Local file"
        else:
            label = "Not downloaded" if model.scheme == "hf" else "Local file missing"
        entries.append(
            {
                "role": role,
                "uri": uri,
                "cached": on_disk,
                "path": str(path) if on_disk and path is not None else None,
                "sizeBytes": path.stat().st_size if on_disk and path is not None else None,
                "statusLabel": f"{ROLE_LABELS[role]}: {label}",
                "usable": on_disk or model.scheme == "http",  # internal, dropped below
            }
        )
    return entries


def bootstrap(app: App, models: list[dict[str, Any]]) -> dict[str, Any]:
    from gno.models.availability import download_policy
    from gno.models.catalog import preset_label

    policy = download_policy()
    preset_id, preset_name = preset_label(app.config.raw)
    cache_dir = app.paths.models_dir
    cached_bytes = _cache_bytes(cache_dir)
    cached = sum(e["cached"] for e in models)
    version = platform.python_version()
    return {
        "runtime": {
            "kind": "python",
            "strategy": "pip",
            "currentVersion": version,
            "requiredVersion": REQUIRED_PYTHON,
            "ready": sys.version_info >= (3, 11),
            "managedByApp": False,
            "summary": "Python ready",
            "detail": f"{platform.python_implementation()} {version}, gno {__version__}",
        },
        "policy": {
            "offline": policy.offline,
            "allowDownload": policy.allow_auto_download,
            "source": policy.source,
            "summary": {
                "default": "Models download on first use",
                "hf-hub-offline": "Offline (HF_HUB_OFFLINE): only cached models are used",
                "gno-offline": "Offline: only cached models are used",
                "no-auto-download": "No automatic downloads: gno models pull fetches models",
            }[policy.source],
        },
        "cache": {
            "path": str(cache_dir),
            "totalSizeBytes": cached_bytes,
            "totalSizeLabel": size_label(cached_bytes),
        },
        "models": {
            "activePresetId": preset_id,
            "activePresetName": preset_name,
            "estimatedFootprint": None,
            "downloading": _downloading(app),
            "cachedCount": cached,
            "totalCount": len(models),
            "summary": f"{cached} of {len(models)} models on disk",
            "entries": [{k: v for k, v in e.items() if k != "usable"} for e in models],
        },
    }


def _cache_bytes(models_dir: Path) -> int:
    if not models_dir.is_dir():
        return 0
    total = 0
    for path in models_dir.rglob("*.gguf"):
        if not any(part.startswith(".") for part in path.relative_to(models_dir).parts):
            try:
                total += path.stat().st_size
            except OSError:
                continue
    return total


def size_label(size: int) -> str:
    """Decimal units, one decimal place past bytes: 1288490188 -> "1.3 GB"."""
    if size < 1000:
        return f"{size} B"
    value = float(size)
    for unit in ("KB", "MB", "GB"):
        value /= 1000
        if value < 1000 or unit == "GB":
            break
    return f"{value:.1f} {unit}"


def _downloading(app: App) -> bool:
    """A POST /api/models/pull of this server is running (never, outside `gno serve`)."""
    from gno.services.downloads import downloading

    return downloading(app)
