"""mcp install, status and uninstall (AI client configs) as terminal text."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from gno.render import Shown, View

if TYPE_CHECKING:  # renderers read attributes: no model module loads for them
    from gno_contracts.models.mcp_install import McpInstall
    from gno_contracts.models.mcp_status import McpStatus
    from gno_contracts.models.mcp_uninstall import McpUninstall


def _label(target_id: str) -> str:
    from gno.mcpinstall.targets import TARGETS

    return TARGETS[target_id].label


def installed(result: McpInstall, view: View) -> Shown:
    r = result.installed
    where = f"{_label(r.target)} ({r.scope}): {r.configPath}"
    entry = json.dumps(
        r.serverEntry.model_dump(mode="json", exclude_unset=True), indent=2, ensure_ascii=False
    )
    lines = {
        "created": [f"Installed gno in {where}"],
        "updated": [f"Replaced gno's entry in {where}"],
        "unchanged": [f"gno's entry in {where} is already this one; nothing written."],
        "would_create": [f"Dry run: would add gno to {where}", entry],
        "would_update": [f"Dry run: would replace gno's entry in {where}", entry],
    }[r.action]
    if r.backupPath:
        lines.append(f"Previous file kept as {r.backupPath}")
    if r.action in ("created", "updated"):
        lines.append(f"Restart {_label(r.target)} to load it.")
    return Shown("\n".join(lines))


def status(result: McpStatus, view: View) -> Shown:
    lines = []
    for row in result.targets:
        if row.error:
            state = "unreadable"
        elif row.configured:
            flags = [row.toolProfile or "?"] + (["write"] if row.enableWrite else [])
            state = f"configured ({', '.join(flags)})"
        else:
            state = "-"
        lines.append(f"{row.target:<15} {row.scope:<8} {state:<24} {row.configPath}")
        if row.error:
            lines.append(f"  {row.error}")
    lines.append(f"{result.summary.configured} of {result.summary.total} configured")
    return Shown("\n".join(lines))


def uninstalled(result: McpUninstall, view: View) -> Shown:
    r = result.uninstalled
    where = f"{_label(r.target)} ({r.scope}): {r.configPath}"
    if r.action == "removed":
        kept = f"\nPrevious file kept as {r.backupPath}" if r.backupPath else ""
        return Shown(f"Removed gno from {where}{kept}")
    return Shown(f"gno is not configured in {where}; nothing to remove.")
