"""gno doctor: every check that applies to this install, each with a status, a one-line
summary and the command that fixes it. A check that cannot run (a corrupt index, a config
that does not parse) is itself the finding: doctor reports it and goes on, never raises.
Checks and bounds: spec/setup.md."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gno_contracts.models.doctor import DoctorResult
from gno_contracts.models.doctor_input import DoctorInput

from gno.app import App
from gno.errors import GnoError, NewerIndexError
from gno.paths import expand_home
from gno.ports import Store

DISK_ERROR_BYTES = 100 * 1024 * 1024  # below this the next sync may fail: error
DISK_WARN_BYTES = 1024 * 1024 * 1024  # below this a model download may not fit: warn
MAX_DETAILS = 64

Check = dict[str, Any]


def check(name: str, status: str, message: str, command: str | None = None, **more: Any) -> Check:
    found: Check = {"name": name, "status": status, "message": message, "command": command}
    if more.get("details"):
        found["details"] = [str(d) for d in more["details"]][:MAX_DETAILS]
    return found


def _problem(exc: BaseException) -> str:
    text = exc.message if isinstance(exc, GnoError) else f"{type(exc).__name__}: {exc}"
    return " ".join(str(text).split())[:300]


def config_check(app: App) -> Check:
    path = app.paths.config_file
    if not path.exists():
        return check("config", "error", f"No config at {path}", "gno setup <folder>")
    try:
        config = app.config
    except Exception as exc:  # any parse failure is the finding
        return check(
            "config", "error", f"index.yml cannot be used: {_problem(exc)}", f"edit {path}"
        )
    count = len(config.collections)
    if not count:
        return check("config", "warn", "No collection configured", "gno setup <folder>")
    return check("config", "ok", f"index.yml is valid ({count} collection(s))")


def open_store(app: App) -> tuple[Store | None, Check]:
    db = app.paths.db_path
    fix = f"mv {db} {db}.broken && gno update"
    if not db.exists():
        return None, check("database", "error", f"No index at {db}", "gno update")
    try:
        store = app.store()
        healthy = store.integrity_ok()
    except Exception as exc:  # a corrupt or foreign file: report, never crash
        if isinstance(exc, NewerIndexError):  # intact: moving it aside would lose its data
            fix = "upgrade gno"
        return None, check("database", "error", f"The index cannot be read: {_problem(exc)}", fix)
    if not healthy:
        return store, check("database", "error", "The index fails SQLite's integrity check", fix)
    return store, check("database", "ok", "Index opens and passes the integrity check")


def fts_check(store: Store) -> Check:
    from gno.core.fts import parse_query

    try:
        store.fts_candidates(parse_query("gno").match_all(), 1)
        tokenizer = store.get_meta("fts_tokenizer") or "porter"
    except Exception as exc:
        return check("fts", "error", f"Full-text table unusable: {_problem(exc)}", "gno update")
    return check("fts", "ok", f"Full-text table answers (tokenizer {tokenizer})")


def vec_check(store: Store) -> Check:
    try:
        loaded = store.load_vec()
    except Exception as exc:
        return check("sqlite-vec", "error", f"sqlite-vec failed: {_problem(exc)}", "gno embed")
    if not loaded:
        return check(
            "sqlite-vec",
            "warn",
            "sqlite-vec cannot be loaded: vector search is off (keyword search works)",
            "pip install 'gno[models]'",
        )
    return check("sqlite-vec", "ok", "sqlite-vec loads")


VECTOR_PROBE_DOCS = 8  # documents of each collection tried for a stored vector


def vectors_check(store: Store) -> Check:
    """The vector tables answer: for each embedding model with vectors, one stored chunk
    vector is searched for and must come back as its own nearest neighbour."""
    if not store.load_vec():
        return check(
            "vectors",
            "warn",
            "Vector tables not checked: sqlite-vec cannot be loaded",
            "pip install 'gno[models]'",
        )
    models = {m: uri for m, uri in store.embed_model_uris().items() if store.vector_count(m)}
    if not models:
        return check("vectors", "ok", "No vectors yet: keyword search only", "gno embed")
    broken: list[str] = []
    for model_id, uri in sorted(models.items()):
        try:
            probe = _stored_vector(store, model_id)
            if probe is None:
                continue  # vectors only of documents no longer active: nothing to search for
            mirror, vector = probe
            nearest = store.knn(model_id, [vector], 1)[0]
        except Exception as exc:  # a damaged vector table: the finding
            broken.append(f"{uri}: {_problem(exc)}")
            continue
        if not nearest or nearest[0][0] != mirror:
            broken.append(f"{uri}: a stored vector does not find its own chunk")
    if broken:
        return check(
            "vectors",
            "error",
            "A vector table does not answer",
            "gno collection clear-embeddings <name> --all && gno embed",
            details=broken,
        )
    return check("vectors", "ok", f"Vector tables answer ({len(models)} embedding model(s))")


def _stored_vector(store: Store, model_id: int) -> tuple[str, bytes] | None:
    for coll in store.collections():
        for doc in store.first_converted(coll["name"], VECTOR_PROBE_DOCS):
            found = store.chunk_embeddings(model_id, doc.mirror_hash or "", first_only=True)
            if found:
                return doc.mirror_hash or "", found[0]
    return None


def model_checks(app: App) -> list[Check]:
    from gno.models.gguf_check import gguf_problem
    from gno.services.models import _entry

    found = []
    runtime = importlib.util.find_spec("llama_cpp") is not None
    found.append(
        check("llama-cpp", "ok", "llama-cpp-python is installed")
        if runtime
        else check(
            "llama-cpp",
            "warn",
            "llama-cpp-python is not installed: local models cannot run",
            "pip install 'gno[models]'",
        )
    )
    for role in ("embed", "rerank", "expand", "gen"):
        name = f"{role}-model"
        try:
            entry = _entry(app, role)
        except Exception as exc:
            found.append(
                check(
                    name,
                    "error",
                    f"Model setting invalid: {_problem(exc)}",
                    "gno models use slim-tuned",
                )
            )
            continue
        uri = entry["uri"]
        if uri.startswith(("http://", "https://")):
            found.append(check(name, "ok", f"HTTP endpoint {uri} (not probed)"))
        elif not entry["cached"]:
            level = "warn"
            found.append(check(name, level, f"Not on disk: {uri}", f"gno models pull --{role}"))
        elif problem := gguf_problem(Path(entry["path"])):
            found.append(
                check(
                    name,
                    "error",
                    f"Not a loadable GGUF model: {entry['path']} ({problem})",
                    f"gno models pull --{role} --force",
                )
            )
        else:
            found.append(check(name, "ok", f"On disk, GGUF header loadable: {uri}"))
    return found


def offline_check() -> Check:
    from gno.models.availability import download_policy

    policy = download_policy()
    if policy.offline:
        text = f"offline ({policy.source}): only cached models are used"
        return check("offline-policy", "ok", text, "gno models pull (without --offline)")
    if not policy.allow_auto_download:
        return check("offline-policy", "ok", f"automatic downloads off ({policy.source})")
    return check("offline-policy", "ok", "models missing from the cache may be downloaded")


def disk_check(app: App) -> Check:
    where = app.paths.data_dir
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free
    label = f"{free / 1024**3:.1f} GiB free where the index lives"
    if free < DISK_ERROR_BYTES:
        return check("disk-space", "error", label, "free disk space, then gno update")
    if free < DISK_WARN_BYTES:
        return check("disk-space", "warn", label, "free disk space before pulling models")
    return check("disk-space", "ok", label)


def watcher_check(app: App) -> Check:
    from gno.services.status import serve_state

    state = serve_state(app.paths.data_dir)
    if state["running"]:
        return check("watcher", "ok", f"gno serve runs at {state['url']} and watches the folders")
    return check(
        "watcher",
        "ok",
        "No gno serve running: changes are indexed by gno update",
        "gno serve --detach",
    )


def roots_check(app: App) -> Check:
    from gno.ingest.roots import root_problem

    missing = []
    for coll in app.config.collections:
        problem = root_problem(str(Path(expand_home(coll.path))))
        if problem is not None:
            missing.append(f"{coll.name}: {coll.path} ({problem[1]})")
    if missing:
        return check(
            "collection-roots",
            "error",
            f"{len(missing)} collection folder(s) missing or unreadable",
            "gno collection remove <name> (or restore the folder)",
            details=missing,
        )
    return check("collection-roots", "ok", "Every collection folder is present")


def embeddings_check(app: App, store: Store) -> Check:
    from gno.services.status import embedded_counts

    totals = store.totals()
    embedded = sum(embedded_counts(app, store).values())
    backlog = max(0, totals["chunks"] - embedded)
    if backlog:
        return check(
            "embedding-fingerprint",
            "warn",
            f"{backlog} of {totals['chunks']} chunks have no vector from the active model",
            "gno embed",
        )
    return check("embedding-fingerprint", "ok", "Every chunk has a vector from the active model")


def activation_check(store: Store) -> tuple[Check, dict[str, Any]]:
    from gno.services.status import activation

    state = activation(store, store.collection_counts())
    failed = [
        f"{c['collection']}: {c['stages']['lexical'].get('code', 'failed')}"
        for c in state["collections"]
        if not c["ready"]
    ]
    if not state["collections"]:
        return check(
            "retrieval-activation", "warn", "No collection to prove", "gno setup <folder>"
        ), state
    if failed:
        return (
            check(
                "retrieval-activation",
                "error",
                "The lexical proof failed for some collections",
                "gno update",
                details=failed,
            ),
            state,
        )
    return check("retrieval-activation", "ok", "Probe searches find their documents"), state


def _guarded(name: str, run: Callable[[], Check]) -> Check:
    try:
        return run()
    except Exception as exc:  # one broken check never hides the others
        return check(name, "error", f"Check failed: {_problem(exc)}", "gno doctor --json")


def doctor(app: App, inp: DoctorInput) -> DoctorResult:
    checks = [config_check(app)]
    configured = checks[0]["status"] != "error"
    activation_state: dict[str, Any] | None = None
    store, database = open_store(app) if configured else (None, None)
    if database is not None:
        checks.append(database)
    if store is not None:
        checks.append(_guarded("fts", lambda: fts_check(store)))
        checks.append(_guarded("sqlite-vec", lambda: vec_check(store)))
        checks.append(_guarded("vectors", lambda: vectors_check(store)))
    if configured:
        checks += model_checks(app)
    checks.append(_guarded("offline-policy", offline_check))
    checks.append(_guarded("disk-space", lambda: disk_check(app)))
    checks.append(_guarded("watcher", lambda: watcher_check(app)))
    if configured:
        checks.append(_guarded("collection-roots", lambda: roots_check(app)))
    if store is not None:
        checks.append(_guarded("embedding-fingerprint", lambda: embeddings_check(app, store)))
        try:
            proof, activation_state = activation_check(store)
        except Exception as exc:
            proof = check(
                "retrieval-activation", "error", f"Check failed: {_problem(exc)}", "gno update"
            )
        checks.append(proof)
    healthy = all(c["status"] != "error" for c in checks)
    return DoctorResult.model_validate(
        {"healthy": healthy, "checks": checks, "activation": activation_state}
    )
