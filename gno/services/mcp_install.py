"""mcp install / status / uninstall: gno's server entry in AI clients' config files.

Only gno's own entry is ever touched; a file gno cannot parse is reported and
left as it is. Writes keep a ``.bak`` copy and are atomic (``mcpinstall/files.py``).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from gno_contracts.models.mcp_install import McpInstall
from gno_contracts.models.mcp_install_input import McpInstallInput
from gno_contracts.models.mcp_status import McpServerEntry, McpStatus
from gno_contracts.models.mcp_status_input import McpStatusInput
from gno_contracts.models.mcp_uninstall import McpUninstall
from gno_contracts.models.mcp_uninstall_input import McpUninstallInput

from gno.app import App
from gno.errors import DuplicateError, GnoError
from gno.mcpinstall import entry as entries
from gno.mcpinstall.files import check_writable, read_text, write_atomic
from gno.mcpinstall.formats import ClientConfig, open_config
from gno.mcpinstall.targets import TARGETS, Places, Target, check_scope, config_path, pairs


def _open(target: Target, scope: str) -> tuple[Path, str | None, ClientConfig]:
    """The client's file: its path, its text as read (None: none yet), and its editor."""
    path = config_path(target, scope, Places.from_env())
    text = read_text(path)
    return path, text, open_config(target, path, text)


def _check_gno_config(app: App) -> None:
    """The index.yml the entry pins must be one the server can read: a folder, a named pipe,
    a device or malformed YAML there is refused now (the error any command gets for such a
    ``--config``), not registered as a server that fails at every start. A config that does
    not exist yet is fine: the server answers "not initialized" until `gno init` makes it."""
    from gno.config import load_config

    with contextlib.suppress(FileNotFoundError):
        load_config(app.paths.config_file)


def mcp_install(app: App, inp: McpInstallInput) -> McpInstall:
    target, scope = TARGETS[str(inp.target)], str(inp.scope)
    _check_gno_config(app)
    path, read, config = _open(target, scope)
    spec = entries.launch(
        app.paths,
        enable_write=inp.enableWrite,
        tool_profile=str(inp.toolProfile) if inp.toolProfile else None,
    )
    wanted = entries.client_entry(target, spec)
    current = config.entry()
    if current is not None and not inp.force:
        raise DuplicateError(
            f"gno is already configured in {target.label} ({path}); use --force to replace it",
            details={"target": target.id, "scope": scope, "configPath": str(path)},
        )
    new_text = config.with_entry(wanted)  # built even for --dry-run: it surfaces edit errors
    if current != wanted:
        check_writable(path)  # --dry-run too: no "would_update" of a file gno may not write
    if current == wanted:
        action = "unchanged"
    elif inp.dryRun:
        action = "would_create" if current is None else "would_update"
    else:
        action = "created" if current is None else "updated"
    outcome: dict[str, Any] = {
        "target": target.id,
        "scope": scope,
        "configPath": str(path),
        "action": action,
        "serverEntry": wanted,
    }
    if action in ("created", "updated") and (backup := write_atomic(path, new_text, read)):
        outcome["backupPath"] = str(backup)
    return McpInstall.model_validate({"installed": outcome})


def mcp_uninstall(app: App, inp: McpUninstallInput) -> McpUninstall:
    target, scope = TARGETS[str(inp.target)], str(inp.scope)
    path, read, config = _open(target, scope)
    outcome: dict[str, Any] = {"target": target.id, "scope": scope, "configPath": str(path)}
    if config.entry() is None:
        outcome["action"] = "not_found"
    else:
        outcome["action"] = "removed"
        if backup := write_atomic(path, config.without_entry(), read):
            outcome["backupPath"] = str(backup)
    return McpUninstall.model_validate({"uninstalled": outcome})


def _status_of(target: Target, scope: str) -> dict[str, Any]:
    path = config_path(target, scope, Places.from_env())
    row: dict[str, Any] = {"target": target.id, "scope": scope, "configPath": str(path)}
    try:
        found = open_config(target, path, read_text(path)).entry()
    except GnoError as exc:  # one unreadable client must not hide the others
        return row | {"configured": False, "error": exc.message}
    row["configured"] = found is not None
    if found is None:
        return row
    # A hand-edited entry may not look like ours: it is still reported as configured.
    with contextlib.suppress(ValueError):
        row["serverEntry"] = McpServerEntry.model_validate(found).model_dump(
            mode="json", exclude_unset=True
        )
    if profile := entries.tool_profile(found):
        row["toolProfile"] = profile
    row["enableWrite"] = entries.write_enabled(found)
    return row


def mcp_status(app: App, inp: McpStatusInput) -> McpStatus:
    wanted_target, wanted_scope = str(inp.target), str(inp.scope)
    if wanted_target != "all" and wanted_scope != "all":
        check_scope(TARGETS[wanted_target], wanted_scope)
    rows = [
        _status_of(target, scope)
        for target, scope in pairs()
        if wanted_target in ("all", target.id) and wanted_scope in ("all", scope)
    ]
    summary = {"configured": sum(r["configured"] for r in rows), "total": len(rows)}
    return McpStatus.model_validate({"targets": rows, "summary": summary})
