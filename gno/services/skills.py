"""gno skill install | uninstall | show | paths: gno's SKILL.md in agents' skills folders
(locations in gno/connectors/skills.py and spec/connectors.md)."""

from __future__ import annotations

from typing import Any

from gno_contracts.models.skill_install import SkillInstall
from gno_contracts.models.skill_install_input import SkillInstallInput
from gno_contracts.models.skill_paths import SkillPaths
from gno_contracts.models.skill_paths_input import SkillPathsInput
from gno_contracts.models.skill_show import SkillShow
from gno_contracts.models.skill_show_input import SkillShowInput
from gno_contracts.models.skill_uninstall import SkillUninstall
from gno_contracts.models.skill_uninstall_input import SkillUninstallInput

from gno.app import App
from gno.connectors import skills


def _value(field: object) -> str:
    return str(getattr(field, "value", field))


def skill_install(app: App, inp: SkillInstallInput) -> SkillInstall:
    done: list[dict[str, Any]] = []
    for place in skills.places(_value(inp.target), _value(inp.scope)):
        action, backup = skills.install(place, inp.force)
        entry = {"target": place.target, "scope": place.scope, "path": str(place.path)}
        entry["action"] = action
        if backup is not None:
            entry["backupPath"] = str(backup)
        done.append(entry)
    return SkillInstall.model_validate({"installed": done})


def skill_uninstall(app: App, inp: SkillUninstallInput) -> SkillUninstall:
    done: list[dict[str, Any]] = []
    for place in skills.places(_value(inp.target), _value(inp.scope)):
        action, backup = skills.uninstall(place)
        entry = {"target": place.target, "scope": place.scope, "path": str(place.path)}
        entry["action"] = action
        if backup is not None:
            entry["backupPath"] = str(backup)
        done.append(entry)
    return SkillUninstall.model_validate({"uninstalled": done})


def skill_show(app: App, inp: SkillShowInput) -> SkillShow:
    return SkillShow.model_validate({"name": "gno", "content": skills.SKILL_MD})


def skill_paths(app: App, inp: SkillPathsInput) -> SkillPaths:
    found = [
        {
            "target": place.target,
            "scope": place.scope,
            "path": str(place.path),
            "installed": skills.installed(place),
        }
        for place in skills.places(_value(inp.target), _value(inp.scope))
    ]
    return SkillPaths.model_validate({"paths": found})
