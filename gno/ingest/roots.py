"""Whether a collection root can be used at all (status reports it; the watcher waits)."""

from __future__ import annotations

import os


def root_problem(path: str) -> tuple[str, str] | None:
    """Why a collection root cannot be used, as (code, message) without the path."""
    if not os.path.isdir(path):
        return "PATH_NOT_FOUND", "The collection folder is missing or not a directory."
    if not os.access(path, os.R_OK | os.X_OK):
        return "PERMISSION_DENIED", "The collection folder cannot be read."
    return None
