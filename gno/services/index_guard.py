"""Collection changes and sync commits take turns, across processes and threads.

A sync works from the collection list it read when it started; a `collection
rename` or `remove` made meanwhile (by another `gno` process, a server's REST
route, or a hand edit of index.yml) would otherwise let it keep writing
documents under a name the config no longer has: ghosts, active and searchable
twice. So:

- every collection change runs under ``config_change``: the guard held, index.yml
  re-read, changed, its index rows updated, index.yml written, the guard released;
- a sync takes the guard around each batch commit (``SyncGuard``), and before
  committing checks that its collection is still configured as it was when the
  sync started; if not, the batch is dropped and that collection's sync stops.

The guard itself is ``gno.index_lock.index_guard`` (one flock per index). It is
held for a config change or one batch commit, so a change waits at most for one
batch and a sync at most for one change.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from gno.app import App
from gno.config import Collection, load_config
from gno.index_lock import index_guard
from gno.paths import Paths


@contextmanager
def config_change(app: App) -> Iterator[None]:
    """A read-modify-write of index.yml (and the index rows it implies), serialized with
    other changes and with sync commits; ``app.config`` is re-read once the guard is held."""
    with index_guard(app.paths):
        if app.paths.config_file.exists():
            app.reload_config()
        try:
            yield
        except BaseException:
            # A change edits the cached config in place before it saves: one that failed
            # (index.yml unwritable, the index read-only) must not leave this App, a
            # server's, believing the edit while index.yml never got it.
            app.forget_config()
            raise


class CollectionChangedError(Exception):
    """The collection being synced was renamed, removed or edited meanwhile."""


class SyncGuard:
    """What a sync of one collection holds around each commit."""

    def __init__(self, paths: Paths, collection: Collection) -> None:
        self.paths, self.collection = paths, collection
        self._stamp: tuple[int, int, int] | None = None  # index.yml last seen unchanged

    @contextmanager
    def commit(self) -> Iterator[None]:
        with index_guard(self.paths):
            self._check()
            yield

    def _check(self) -> None:
        config_file = self.paths.config_file
        try:
            st = config_file.stat()
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
            if stamp == self._stamp:
                return
            current = load_config(config_file).find(self.collection.name)
        except FileNotFoundError:
            current = None
        if current is None or current.to_dict() != self.collection.to_dict():
            raise CollectionChangedError(
                f"Collection {self.collection.name} was renamed, removed or changed during the "
                "sync; its remaining changes were not applied. Run `gno update` again."
            )
        self._stamp = stamp
