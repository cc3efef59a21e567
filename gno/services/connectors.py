"""Connectors: gno's skill for skill-reading agents and gno's MCP entry in client configs,
installed and verified by id (``gno setup --connector``, ``/api/connectors``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gno.app import App
from gno.errors import DuplicateError, NotFoundError


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

    path, config = _open(_mcp_target(conn.target), "user")
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
