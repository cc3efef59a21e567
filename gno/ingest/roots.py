"""Whether a collection root can be used at all (status reports it; the watcher waits; a
sync touches nothing under it)."""

from __future__ import annotations

import os

from gno.errors import GnoError
from gno.paths import expand_home, home_dir


def _system_roots() -> set[str]:
    try:
        home = str(home_dir())
    except GnoError:  # no home anywhere: none to protect
        home = "/"
    roots = {
        "/",
        home,
        "/etc",
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/var",
        "/boot",
        "/dev",
        "/proc",
        "/sys",
        "/System",
        "/Library",
    }
    roots |= {os.path.join(home, d) for d in (".config", ".local", ".ssh", ".gnupg")}
    return {os.path.realpath(r) for r in roots} | roots


def is_system_root(path: str) -> bool:
    """The folder is, or leads through a link to, a system or home root: never a collection.
    Checked when a collection is added and again whenever one is used: a root replaced by a
    link to ``/`` (or an index.yml edited to say ``/``) would make a sync read every file
    of the machine."""
    system = _system_roots()
    absolute = os.path.abspath(expand_home(path))
    return absolute in system or os.path.realpath(absolute) in system


def root_problem(path: str) -> tuple[str, str] | None:
    """Why a collection root cannot be used, as (code, message) without the path."""
    if not os.path.isdir(path):
        return "PATH_NOT_FOUND", "The collection folder is missing or not a directory."
    if is_system_root(path):
        return "INVALID_PATH", "The collection folder is (or links to) a system or home root."
    if not os.access(path, os.R_OK | os.X_OK):
        return "PERMISSION_DENIED", "The collection folder cannot be read."
    return None
