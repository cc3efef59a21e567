"""Cross-process locks in the model cache: one writer per model file, one per manifest.

Lock files live in ``<models>/.locks/`` and are named by the SHA-256 of what they guard,
so any key (a repo path with slashes) makes a valid file name. The operating system
drops a lock when its process dies, so a crashed pull never blocks the next one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from gno.paths import folder_error


def lock_path(models_dir: Path, key: str) -> Path:
    return models_dir / ".locks" / f"{hashlib.sha256(key.encode('utf-8')).hexdigest()[:32]}.lock"


@contextmanager
def cache_lock(
    models_dir: Path, key: str, on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold the lock of ``key``; ``on_wait`` runs once when another process holds it."""
    from filelock import FileLock, Timeout

    path = lock_path(models_dir, key)
    lock = FileLock(str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            lock.acquire(timeout=0)
        except Timeout:
            if on_wait is not None:
                on_wait()
            lock.acquire()  # the other holder finishes or dies; either way it lets go
    except OSError as exc:  # a file where the cache folder should be, a read-only one
        raise folder_error(path.parent, exc) from exc
    try:
        yield
    finally:
        lock.release()
