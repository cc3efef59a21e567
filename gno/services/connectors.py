"""Connectors: gno's skill for skill-reading agents and gno's MCP entry in client configs,
installed and verified by id (``gno setup --connector``, ``/api/connectors``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gno_contracts.models.connector_install import ConnectorInstall
from gno_contracts.models.connector_install_input import ConnectorInstallInput
from gno_contracts.models.connector_verify import ConnectorVerify
from gno_contracts.models.connector_verify_input import ConnectorVerifyInput
from gno_contracts.models.connectors import ConnectorList
from gno_contracts.models.connectors_input import ConnectorsInput

from gno.app import App
from gno.errors import DuplicateError, GnoError, NotFoundError


def connector(connector_id: str) -> Any:
    from gno.connectors.catalog import CONNECTORS

    found = CONNECTORS.get(connector_id)
    if found is None:
        raise NotFoundError(f"Unknown connector {connector_id!r} (one of {', '.join(CONNECTORS)})")
    return found


def connector_path(app: App, connector_id: str) -> tuple[Path, bool]:
    """(the file the connector lives in, whether gno's entry is there)."""
    conn = connector(connector_id)
    if conn.kind == "skill":
        from gno.connectors import skills

        place = skills.places(conn.target, "user")[0]
        return place.path, skills.installed(place)
    from gno.services.mcp_install import _open

    path, _, config = _open(_mcp_target(conn.target), "user")
    return path, config.entry() is not None


def _mcp_target(target_id: str) -> Any:
    from gno.mcpinstall.targets import TARGETS

    return TARGETS[target_id]


def install_connector(app: App, connector_id: str, reinstall: bool = False) -> dict[str, Any]:
    """Install one connector (user scope). An entry already there is reused unless
    ``reinstall``; every replaced file keeps a ``.bak``."""
    conn = connector(connector_id)
    if conn.kind == "skill":
        from gno.connectors import skills

        place = skills.places(conn.target, "user")[0]
        if skills.installed(place) and not reinstall:
            return {"id": conn.id, "status": "already_installed", "path": str(place.path)}
        action, _backup = skills.install(place, force=True)
        status = "already_installed" if action == "unchanged" else "installed"
        return {"id": conn.id, "status": status, "path": str(place.path)}
    from gno_contracts.models.mcp_install_input import McpInstallInput

    from gno.services.mcp_install import mcp_install

    try:
        done = mcp_install(
            app,
            McpInstallInput.model_validate(
                {"target": conn.target, "scope": "user", "force": reinstall}
            ),
        ).installed
    except DuplicateError:
        path, _ = connector_path(app, connector_id)
        return {"id": conn.id, "status": "already_installed", "path": str(path)}
    status = "already_installed" if str(done.action) == "unchanged" else "installed"
    return {"id": conn.id, "status": status, "path": done.configPath}


# ---------------------------------------------------------------- REST operations

PROBE_DOCS = 8  # documents whose title words are probe words
PROBE_LIMIT = 20  # hits a probe search may return
MAX_PROBES = 64  # probe searches in all (GNO's bound: at most 64 corpus-derived probe terms)


def connectors_list(app: App, inp: ConnectorsInput) -> ConnectorList:
    from gno.connectors.catalog import CONNECTORS

    items: list[dict[str, Any]] = []
    for conn in CONNECTORS.values():
        item: dict[str, Any] = {
            "id": conn.id,
            "kind": conn.kind,
            "target": conn.target,
            "label": conn.label,
            "installed": False,
        }
        try:
            path, present = connector_path(app, conn.id)
            item |= {"installed": present, "path": str(path)}
        except GnoError as exc:  # a client config gno cannot parse: reported, not fatal
            item["error"] = exc.message
        items.append(item)
    names = sorted(c.name for c in app.config.collections) if app.paths.config_file.exists() else []
    return ConnectorList.model_validate({"connectors": items, "collections": names})


def connector_install(app: App, inp: ConnectorInstallInput) -> ConnectorInstall:
    done = install_connector(
        app, str(getattr(inp.connectorId, "value", inp.connectorId)), inp.reinstall
    )
    return ConnectorInstall.model_validate(done)


def probe(app: App, collection: str) -> tuple[str | None, str | None, str | None]:
    """(probe word, the document it must find, failure code): words of the first documents'
    titles (longest first), each searched in the collection until one finds its own
    document among the first hits — a common word (a title's "OpenTelemetry" in a corpus
    about it) is not the proof, a distinctive one is. At most MAX_PROBES searches; when
    none found its document, the first probe tried is reported with
    ``retrieval_mismatch``."""
    from gno_contracts.models.search_input import SearchInput

    from gno.core.probe_words import probe_words
    from gno.services.search import search

    docs = app.store().first_converted(collection, PROBE_DOCS)
    if not docs:
        return None, None, "no_documents"
    first: tuple[str, str] | None = None
    for word, doc in probe_words(docs, MAX_PROBES):
        hits = search(app, SearchInput(query=word, collection=collection, limit=PROBE_LIMIT))
        if doc.uri in [h.uri for h in hits.results]:
            return word, doc.uri, None
        first = first or (word, doc.uri)
    if first is not None:
        return first[0], first[1], "retrieval_mismatch"
    return None, None, "no_probe_term"


def connector_verify(app: App, inp: ConnectorVerifyInput) -> ConnectorVerify:
    from gno.core.identity import normalize_collection_name

    conn_id = str(getattr(inp.connectorId, "value", inp.connectorId))
    connector(conn_id)  # an unknown id is NOT_FOUND before the collection is looked at
    collection = normalize_collection_name(inp.collection)
    if app.config.find(collection) is None:
        raise NotFoundError(f"Collection not found: {inp.collection}")
    return ConnectorVerify.model_validate(verify_connector(app, conn_id, collection))


def verify_connector(app: App, conn_id: str, collection: str) -> dict[str, Any]:
    """connector-verify@1.0 as a dict: the lexical proof of ``collection``, then the
    connector's own (an MCP client's configured command started, tools listed, one
    search). Every failure is an answer with a code, never an exception. Used by
    ``POST /api/connectors/verify`` and by ``gno setup --connector``."""
    import time

    started = time.perf_counter()
    conn = connector(conn_id)
    base: dict[str, Any] = {"connectorId": conn_id, "collection": collection}
    term, uri, code = probe(app, collection)

    def answer(**fields: Any) -> dict[str, Any]:
        fields.setdefault("latencyMs", round((time.perf_counter() - started) * 1000))
        return base | fields

    if code is not None or term is None or uri is None:
        return answer(lexicalReady=False, connectorReady=False, stage="lexical", status="failed",
                      code=code, message="The lexical proof failed: run gno update")  # fmt: skip
    base |= {"lexicalReady": True, "probe": term}
    if conn.kind == "skill":
        return answer(connectorReady=False, stage="done", status="skipped",
                      code="target_runtime_unverifiable",
                      message="A skill file cannot be run from here; installed is not proof of use.")  # fmt: skip
    from gno.connectors.smoke import smoke_test
    from gno.services.mcp_install import _open

    path, _, config = _open(_mcp_target(conn.target), "user")
    entry = config.entry()
    if not isinstance(entry, dict):
        return answer(connectorReady=False, stage="config", status="failed",
                      code="connector_not_configured",
                      message=f"gno is not configured in {path}: install the connector first")  # fmt: skip
    outcome = smoke_test(entry, term, collection, uri)
    return answer(connectorReady=outcome.code is None, stage=outcome.stage,
                  status="passed" if outcome.code is None else "failed",
                  **({"code": outcome.code} if outcome.code else {}),
                  message=outcome.message, tools=outcome.tools,
                  **({"resultUri": uri} if outcome.code is None else {}))  # fmt: skip
