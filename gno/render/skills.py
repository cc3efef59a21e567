"""Terminal renderings of `gno skill …`."""

from __future__ import annotations

from gno_contracts.models.skill_install import SkillInstall
from gno_contracts.models.skill_paths import SkillPaths
from gno_contracts.models.skill_show import SkillShow
from gno_contracts.models.skill_uninstall import SkillUninstall

from gno.render import Shown, View


def _v(field: object) -> str:
    return str(getattr(field, "value", field))


def installed(result: SkillInstall, view: View) -> Shown:
    lines = []
    for item in result.installed:
        line = f"{_v(item.action)}: {item.target} ({_v(item.scope)}) {item.path}"
        if item.backupPath:
            line += f" (previous file kept as {item.backupPath})"
        lines.append(line)
    return Shown("\n".join(lines) + "\n")


def uninstalled(result: SkillUninstall, view: View) -> Shown:
    lines = []
    for item in result.uninstalled:
        line = f"{_v(item.action)}: {item.target} ({_v(item.scope)}) {item.path}"
        if item.backupPath:
            line += f" (your earlier file stays at {item.backupPath})"
        lines.append(line)
    return Shown("\n".join(lines) + "\n")


def shown(result: SkillShow, view: View) -> Shown:
    return Shown(result.content)


def paths(result: SkillPaths, view: View) -> Shown:
    lines = [
        f"{p.target:9} {_v(p.scope):8} {'installed' if p.installed else '-':9} {p.path}"
        for p in result.paths
    ]
    return Shown("\n".join(lines) + "\n")
