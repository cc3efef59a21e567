"""Where each agent keeps skills, and writing gno's skill file there.

A skill is ``<skills folder>/gno/SKILL.md``. User-scope folders come from the home folder
(``GNO_SKILLS_HOME_OVERRIDE`` replaces it, for tests and sandboxes) or the agent's own
variable (``CLAUDE_SKILLS_DIR``, ``CODEX_SKILLS_DIR``); project scope is relative to the
current folder. Install keeps a ``.bak`` of a file it replaces and writes atomically; an
existing different file is replaced only with ``force``; uninstall removes only gno's
own file (and its folder once empty): the ``.bak`` holds the user's earlier file, which
install said it kept, so it stays. A ``SKILL.md`` or ``gno`` folder that is a symlink is
refused (``CONFLICT``, nothing written): gno did not make the link, and following it would
write, and create folders, wherever it points, outside the skills folder. Locations:
spec/setup.md."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gno.connectors.skill_text import SKILL_MD
from gno.errors import ClientConfigError, DuplicateError, GnoError, ValidationError
from gno.paths import expand_home, home_dir, xdg_dir

SKILL_TARGETS = ("claude", "codex", "opencode", "openclaw", "hermes")
SCOPES = ("user", "project")
FILE = "SKILL.md"


@dataclass(frozen=True)
class SkillPlace:
    target: str
    scope: str
    folder: Path  # the agent's skills folder; gno's skill is folder/gno/SKILL.md

    @property
    def path(self) -> Path:
        return self.folder / "gno" / FILE


def _home() -> Path:
    override = os.environ.get("GNO_SKILLS_HOME_OVERRIDE", "").strip()
    return Path(override) if override else home_dir()


def _user_folder(target: str) -> Path:
    own = {"claude": "CLAUDE_SKILLS_DIR", "codex": "CODEX_SKILLS_DIR"}.get(target)
    if own and os.environ.get(own, "").strip():
        return Path(expand_home(os.environ[own].strip()))
    home = _home()
    if target == "opencode":
        xdg = xdg_dir("XDG_CONFIG_HOME")
        base = (
            Path(xdg) if xdg and "GNO_SKILLS_HOME_OVERRIDE" not in os.environ else home / ".config"
        )
        return base / "opencode" / "skill"
    return (
        home
        / {"claude": ".claude", "codex": ".codex", "openclaw": ".openclaw", "hermes": ".hermes"}[
            target
        ]
        / "skills"
    )


def _project_folder(target: str) -> Path:
    cwd = Path.cwd()
    if target == "opencode":
        return cwd / ".opencode" / "skill"
    return cwd / f".{target}" / "skills"


def places(target: str = "all", scope: str = "user") -> list[SkillPlace]:
    targets = SKILL_TARGETS if target == "all" else (target,)
    scopes = SCOPES if scope == "all" else (scope,)
    for t in targets:
        if t not in SKILL_TARGETS:
            raise ValidationError(
                f"Unknown skill target {t!r} (one of {', '.join(SKILL_TARGETS)}, all)"
            )
    for s in scopes:
        if s not in SCOPES:
            raise ValidationError(f"Unknown scope {s!r} (user or project)")
    return [
        SkillPlace(t, s, _user_folder(t) if s == "user" else _project_folder(t))
        for t in targets
        for s in scopes
    ]


def installed(place: SkillPlace) -> bool:
    return place.path.is_file()


def install(place: SkillPlace, force: bool) -> tuple[str, Path | None]:
    """("installed" | "unchanged" | "replaced", backup) for one place."""
    from gno.mcpinstall.files import read_text, write_atomic

    for link in (place.path.parent, place.path):
        if link.is_symlink():  # dangling or not: gno writes only its own plain file
            raise ClientConfigError(
                f"{link} is a symlink gno did not make; gno left it and what it points to "
                "untouched (remove the link to let gno install its skill)",
                details={"path": str(link)},
            )
    current = read_text(place.path)
    if current == SKILL_MD:
        return "unchanged", None
    if current is not None and not force:
        raise DuplicateError(
            f"{place.path} exists and differs from gno's skill; --force replaces it (keeping a .bak)",
            details={"path": str(place.path)},
        )
    backup = write_atomic(place.path, SKILL_MD, current)
    return ("replaced" if current is not None else "installed"), backup


def uninstall(place: SkillPlace) -> tuple[str, Path | None]:
    """("removed" | "absent", the backup left in place). Only gno's SKILL.md goes, and
    gno's folder once empty. The ``.bak`` an install kept is the user's earlier file (install
    promised to keep it), not gno's: it stays, and so does the folder holding it."""
    folder = place.path.parent
    backup = place.path.with_name(FILE + ".bak")
    kept = backup if backup.is_file() and not backup.is_symlink() else None
    if not place.path.exists():
        return "absent", kept
    try:
        place.path.unlink()
        if folder.exists() and not any(folder.iterdir()):
            folder.rmdir()
    except OSError as exc:
        raise GnoError(f"Cannot remove {place.path}: {exc.strerror or exc}") from None
    return "removed", kept
