"""Status (health, counts, activation) and peek (the cheap snapshot)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gno import __version__
from gno.app import App
from gno.core.content_types import parse_content_types
from gno.core.fts import parse_query
from gno.core.identity import make_uri
from gno.errors import GnoError, NotInitializedError
from gno.ingest.roots import root_problem
from gno.models.catalog import preset_label
from gno.paths import expand_home
from gno.ports import Store
from gno.rows import iso_from_ns, now_iso

if TYPE_CHECKING:  # each handler imports its own models; `gno status` none (services/wire.py)
    from gno_contracts.models.capabilities import Capabilities
    from gno_contracts.models.capabilities_input import CapabilitiesInput
    from gno_contracts.models.health import Health
    from gno_contracts.models.health_input import HealthInput
    from gno_contracts.models.index_status import IndexStatus
    from gno_contracts.models.peek import Peek
    from gno_contracts.models.peek_input import PeekInput
    from gno_contracts.models.resident_status import ResidentStatus
    from gno_contracts.models.resident_status_input import ResidentStatusInput
    from gno_contracts.models.status import Status
    from gno_contracts.models.status_input import StatusInput

PROBE_DOCS = 8  # documents whose title words are probe words (as setup and connectors)
PROBE_DEPTH = 20
MAX_PROBES = 64  # probe searches in all (GNO: at most 64 corpus-derived probe terms)


def zeros(*keys: str) -> dict[str, int]:
    return dict.fromkeys(keys, 0)


def direct_resident(mode: str = "direct-cli") -> dict[str, Any]:
    """resident-status for a process that is not a resident server (CLI, stdio MCP)."""
    return {
        "schemaVersion": "1.0",
        "mode": mode,
        "resident": False,
        "uptimeSeconds": None,
        "listenerPort": None,
        "admission": {"state": "accepting", "activeRequests": 0},
        "shutdown": {"state": "none"},
        "transport": zeros(
            "activeRequests",
            "activeSessions",
            "queuedRequests",
            "maxConcurrentRequests",
            "maxQueuedRequests",
            "maxSessions",
        ),
        "readers": zeros("active", "queued", "limit", "maxQueued"),
        "models": zeros(
            "activeLeases",
            "leaseAcquisitions",
            "leaseReleases",
            "loadedModels",
            "loadAttempts",
            "loadSuccesses",
            "loadFailures",
            "inflightLoads",
        ),
        "jobs": zeros("active", "recent", "failed"),
        "generations": zeros("content", "index"),
    }


def resident_of(app: App) -> dict[str, Any]:
    """The serving process's lifecycle snapshot: the resident runtime's under `gno serve`."""
    if app.server is not None:
        return app.server.snapshot()
    return direct_resident(app.mode)


def _stage(status: str, started: float, code: str | None = None) -> dict[str, Any]:
    stage: dict[str, Any] = {
        "status": status,
        "startedAt": now_iso(),
        "completedAt": now_iso(),
        "latencyMs": round((time.perf_counter() - started) * 1000),
    }
    if code:
        stage["code"] = code
    return stage


def _lexical_proof(store: Store, collection: str) -> tuple[bool, str | None]:
    """Search words taken from the first documents' titles (``probe_words``) until one
    finds its own document; ``retrieval_mismatch`` when none did."""
    from gno.core.probe_words import probe_words

    docs = store.first_converted(collection, PROBE_DOCS)  # not all of active_paths
    if not docs:
        return False, "no_documents"
    tried = False
    for word, doc in probe_words(docs, MAX_PROBES):
        tried = True
        hits = store.fts_candidates(parse_query(word).match_all(), PROBE_DEPTH * 50)
        # ids only: loading up to 1,000 whole rows to test one id was half of status's time
        found = store.ids_passing([rowid for rowid, _ in hits], "AND collection = ?", (collection,))
        if doc.id in found:
            return True, None
    return False, "retrieval_mismatch" if tried else "no_probe_term"


def activation(store: Store, counts: dict[str, tuple[int, int]]) -> dict[str, Any]:
    collections = []
    for coll in store.collections():
        started = time.perf_counter()
        documents = counts.get(coll["name"], (0, 0))[0]
        index = _stage(
            "passed" if documents else "failed", started, None if documents else "no_documents"
        )
        if documents:
            ok, code = _lexical_proof(store, coll["name"])
            lexical = _stage("passed" if ok else "failed", started, code)
        else:
            ok, lexical = False, _stage("skipped", started, "no_documents")
        remediation = None
        if not documents:
            remediation = {
                "stage": "index",
                "code": "no_documents",
                "command": "gno update",
                "message": f"Collection {coll['name']} has no indexed documents yet.",
            }
        elif not ok:
            remediation = {
                "stage": "lexical",
                "code": lexical.get("code", "index_query_failed"),
                "command": "gno update",
                "message": "A probe search did not find its document.",
            }
        collections.append(
            {
                "collection": coll["name"],
                "ready": ok,
                "generatedAt": now_iso(),
                "stages": {
                    "index": index,
                    "lexical": lexical,
                    "semantic": _stage("pending", started, "semantic_not_checked"),
                    "connector": _stage("skipped", started, "connector_not_requested"),
                },
                "semanticAvailability": {
                    "status": "pending",
                    "code": "models_missing",
                    "command": "gno models pull",
                },
                "remediation": remediation,
            }
        )
    return {
        "schemaVersion": "1.0",
        "usable": any(c["ready"] for c in collections),
        "healthy": bool(collections) and all(c["ready"] for c in collections),
        "collections": collections,
        "connectors": [],
        "connectorProjection": {"total": 0, "projected": 0, "truncated": False},
    }


def embedded_counts(app: App, store: Store) -> dict[str, int]:
    """Per collection: chunks with a vector from the model it embeds with (its own, else
    the active one)."""
    from gno.services.embed_models import groups_for

    try:
        counts: dict[str, int] = {}
        for group in groups_for(app, None):
            found = store.embedded_chunks(store.latest_embed_model(group.uri))
            keep = group.collections
            counts |= {c: n for c, n in found.items() if keep is None or c in keep}
        return counts
    except GnoError:  # an unknown preset in index.yml: status still answers
        return {}


def status(app: App, inp: StatusInput) -> Status:
    from gno_contracts.models.status import Status

    return Status.model_validate(status_payload(app, inp))


def status_payload(app: App, inp: StatusInput) -> dict[str, Any]:
    """status@1.0 in its wire form."""
    store = app.store()
    counts = store.collection_counts()
    totals = store.totals()
    embedded = embedded_counts(app, store)
    collections = []
    for coll in store.collections():
        documents, chunks = counts.get(coll["name"], (0, 0))
        entry: dict[str, Any] = {
            "name": coll["name"],
            "path": coll["path"],
            "documentCount": documents,
            "chunkCount": chunks,
            "embeddedCount": embedded.get(coll["name"], 0),
        }
        # Checked on every request: a folder that comes back clears the error at once.
        problem = root_problem(str(Path(expand_home(coll["path"]))))
        entry["healthy"] = problem is None
        if problem is not None:  # never the folder path: status may go to remote callers
            entry["rootError"] = {"code": problem[0], "message": problem[1]}
        collections.append(entry)
    activation_state = activation(store, counts)
    preset_id, preset_name = preset_label(app.config.raw)
    return {
        "resident": resident_of(app),
        "indexName": app.paths.index_name,
        "configPath": str(app.paths.config_file),
        "dbPath": str(app.paths.db_path),
        "collections": collections,
        "totalDocuments": totals["documents"],
        "totalChunks": totals["chunks"],
        "embeddingBacklog": max(0, totals["chunks"] - sum(embedded.values())),
        "recentErrors": totals["errors_24h"],
        "lastUpdated": totals["last_updated"],
        "healthy": all(c["healthy"] for c in collections) and store.integrity_ok(),
        "activePreset": {"id": preset_id, "name": preset_name},
        "capabilities": _capabilities(embedded, app),
        "contentTypeBoost": content_type_boost(app),
        "activation": activation_state,
    }


def content_type_boost(app: App) -> dict[str, Any]:
    """``contentTypeBoost``: the configured rules' fingerprint and boosts (never prefixes)."""
    rules = parse_content_types(app.config.raw.get("contentTypes"))
    return {
        "rulesFingerprint": rules.fingerprint,
        "rules": [{"id": r.id, "searchBoost": r.search_boost} for r in rules.rules],
    }


def index_status(app: App, inp: StatusInput) -> IndexStatus:
    """gno_status: GNO's raw status shape (counts, backlog, health), cheaper than status@1.0."""
    from gno_contracts.models.index_status import IndexStatus

    store = app.store()
    counts = store.collection_counts()
    breakdown = store.document_breakdown()
    embedded = embedded_counts(app, store)
    totals = store.totals()
    collections = []
    policies = store.egress_policies()
    for coll in store.collections():
        chunked, chunks = counts.get(coll["name"], (0, 0))
        total, active, errors = breakdown.get(coll["name"], (0, 0, 0))
        policy, _, source, _ = policies.get(coll["name"], ("local_only", 0, "legacy_default", ""))
        collections.append(
            {
                "name": coll["name"],
                "path": coll["path"],
                "egressPolicy": policy,
                "egressPolicySource": source,
                "totalDocuments": total,
                "activeDocuments": active,
                "errorDocuments": errors,
                "chunkedDocuments": chunked,
                "totalChunks": chunks,
                "embeddedChunks": embedded.get(coll["name"], 0),
            }
        )
    roots_ok = all(Path(expand_home(c["path"])).is_dir() for c in collections)
    return IndexStatus.model_validate(
        {
            "version": __version__,
            "indexName": app.paths.index_name,
            "configPath": str(app.paths.config_file),
            "dbPath": str(app.paths.db_path),
            "ftsTokenizer": store.get_meta("fts_tokenizer") or "",
            "collections": collections,
            "totalDocuments": sum(c["totalDocuments"] for c in collections),
            "activeDocuments": sum(c["activeDocuments"] for c in collections),
            "totalChunks": totals["chunks"],
            "embeddingBacklog": max(0, totals["chunks"] - sum(embedded.values())),
            "recentErrors": totals["errors_24h"],
            "lastUpdatedAt": totals["last_updated"],
            "healthy": roots_ok and store.integrity_ok(),
            "contentTypeBoost": content_type_boost(app),
            "resident": resident_of(app),
        }
    )


def _capabilities(embedded: dict[str, int], app: App | None = None) -> dict[str, bool]:
    from gno.services.answer_model import answer_available

    vector = any(embedded.values())
    answer = app is not None and answer_available(app)
    return {"bm25": True, "vector": vector, "hybrid": vector, "answer": answer}


def capabilities(app: App, inp: CapabilitiesInput) -> Capabilities:
    """From the index alone: no model is loaded (vector = vectors exist for the active model)."""
    from gno_contracts.models.capabilities import Capabilities

    try:
        embedded = embedded_counts(app, app.store())
    except NotInitializedError:
        embedded = {}
    return Capabilities.model_validate(_capabilities(embedded, app))


def health(app: App, inp: HealthInput) -> Health:
    from gno_contracts.models.health import Health

    return Health(ok=True)


def resident_status(app: App, inp: ResidentStatusInput) -> ResidentStatus:
    from gno_contracts.models.resident_status import ResidentStatus

    return ResidentStatus.model_validate(resident_of(app))


def serve_state(data_dir: Path) -> dict[str, Any]:
    """Liveness of a detached `gno serve`, from its pid file only (no HTTP probe)."""
    from gno.resident.process import served_url

    running, port = served_url(data_dir)
    return {"running": running, "url": f"http://localhost:{port}" if running else None}


def peek(app: App, inp: PeekInput) -> Peek:
    from gno_contracts.models.peek import Peek

    base: dict[str, Any] = {
        "schemaVersion": "peek@1.0",
        "gnoVersion": __version__,
        "generatedAt": now_iso(),
        "indexName": app.paths.index_name,
        "serve": serve_state(app.paths.data_dir),
    }
    if not app.paths.config_file.exists() or not app.paths.db_path.exists():
        return Peek.model_validate(
            base
            | {
                "initialized": False,
                "counts": None,
                "backlog": None,
                "lastIndexedAt": None,
                "recent": [],
            }
        )
    try:
        store = app.store()
        totals = store.totals()
        roots = {c["name"]: c["path"] for c in store.collections()}
        recent = []
        for doc in store.recent_documents(10):
            item: dict[str, Any] = {
                "docid": doc.docid,
                "uri": make_uri(doc.collection, doc.rel_path, app.paths.index_name),
                "title": doc.title,
                "collection": doc.collection,
            }
            if doc.collection in roots:
                item["absPath"] = f"{roots[doc.collection].rstrip('/')}/{doc.rel_path}"
            item["modifiedAt"] = iso_from_ns(doc.mtime_ns)
            recent.append(item)
    except NotInitializedError:
        raise
    except GnoError as exc:
        raise GnoError(f"Peek failed: {exc.message}") from exc
    return Peek.model_validate(
        base
        | {
            "initialized": True,
            "counts": {"documents": totals["documents"], "collections": totals["collections"]},
            "backlog": {
                "pending": max(0, totals["chunks"] - sum(embedded_counts(app, store).values())),
                "failed": totals["errors_24h"],
            },
            "lastIndexedAt": totals["last_updated"],
            "recent": recent,
        }
    )
