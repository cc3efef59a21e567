"""The resident runtime's file watcher: changed files in, queued syncs out.

One ``watchfiles`` watcher (inotify/FSEvents/ReadDirectoryChangesW through the
Rust ``notify`` crate) per collection root, each on its own thread, so adding,
removing or losing one root never interrupts the others. Batches are debounced by
watchfiles itself: a batch is handed over once 50 ms pass without a new event
(an editor's save — temp file, rename, chmod — becomes one batch), or after 1.6 s
of continuous events (a checkout or a large copy still syncs while it goes on).
Each batch goes through ``change_plan`` (the walker's rules, gno's own files
ignored) and becomes at most one ``submit`` per collection; the job queue joins
it with a sync of the same collection that is already waiting, so a burst costs
one more pass, not one per batch.

A supervisor thread re-reads ``index.yml`` when it changed (every 2 s, or at once
when ``poke``d after a job or a collection write) and reconciles: new collections
are watched, removed ones dropped, a root that is missing or unreadable is
reported in ``state()["failedCollections"]`` (a reason, never the path) and tried
again. A root watched after the server started (a new collection, a folder that
came back, a watcher restarted after an error) gets one whole-collection pass,
stat-first, for whatever changed while nobody was looking.

The OS watch limit (Linux: ``fs.inotify.max_user_watches``, one watch per folder) is
not reported by watchfiles: past it the notify crate silently leaves the remaining
folders unwatched, so their changes would never be seen while the root counts as
active. Roots are therefore set up one at a time, and once a root's watch is in place
one more watch is tried: when none is left the root is reported failed with the limit
as its reason (its watches released, so it does not starve other programs) and tried
again after ``LIMIT_RETRY_SECONDS``.

The kernel's event queue is bounded too (``fs.inotify.max_queued_events``): a process
stopped (Ctrl-Z) or starved while files change loses what overflowed, and watchfiles
drops the overflow notice. A root whose watcher was not scheduled for
``STALL_SECONDS`` therefore gets a whole-collection pass, as after a restart. A queue can
also overflow while the watcher runs (a burst faster than its thread reads), and some
folders report no events at all (network mounts): so every watched root gets a
whole-collection pass every ``RESCAN_SECONDS`` too, stat-first, which costs a no-op sync
when nothing was missed. What any event loss leaves stale is found within that bound.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gno.config import Collection, load_config
from gno.errors import GnoError
from gno.ingest.roots import root_problem
from gno.paths import Paths, expand_home
from gno.resident.change_plan import WatchScope, plan_changes

DEBOUNCE_MS = 1600  # longest a burst of events is held before it is handed over
STEP_MS = 50  # quiet time that closes a batch
RECHECK_SECONDS = 2.0  # config and missing roots are re-checked at least this often
RETRY_SECONDS = 10.0  # a root whose watcher failed is tried again after this long
# …and after this long when it hit the watch limit: each try walks the whole tree
LIMIT_RETRY_SECONDS = 60.0
IDLE_TICK_MS = 250  # an idle watcher reports in this often (first time: it is watching)
# A watcher that did not report in for this long was stopped or starved: events may be lost.
STALL_SECONDS = 10.0
STOP_SECONDS = 5.0
# A whole pass this often bounds how long a lost event leaves the index stale (Syncthing's
# full rescan beside its watcher defaults to an hour, for the same reason).
RESCAN_SECONDS = 3600.0

LIMIT_REASON = (
    "The system's file watch limits are reached "
    "(Linux: fs.inotify.max_user_watches, fs.inotify.max_user_instances)."
)

# (collection, relative paths or None for the whole collection) -> accepted?
Submit = Callable[[str, list[str] | None], bool]


def _now_iso() -> str:
    from gno.rows import now_iso

    return now_iso()


@dataclass
class _Root:
    scope: WatchScope
    key: tuple[Any, ...]  # what a restart is needed for: real root, its inode, the rules
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    ready: bool = False  # the OS watch is in place: changes from now on are seen
    passed_at: float = 0.0  # monotonic time of its last whole-collection pass (or of ready)
    error: str | None = None
    retry_seconds: float = RETRY_SECONDS  # after an error


class Watcher:
    """Watches every configured collection root while the server runs."""

    def __init__(
        self,
        paths: Paths,
        submit: Submit,
        *,
        debounce_ms: int = DEBOUNCE_MS,
        step_ms: int = STEP_MS,
        recheck_seconds: float = RECHECK_SECONDS,
        limit_retry_seconds: float = LIMIT_RETRY_SECONDS,
        stall_seconds: float = STALL_SECONDS,
        rescan_seconds: float = RESCAN_SECONDS,
    ) -> None:
        self._paths, self._submit = paths, submit
        self._debounce, self._step, self._recheck = debounce_ms, step_ms, recheck_seconds
        self._limit_retry, self._stall = limit_retry_seconds, stall_seconds
        self._rescan = rescan_seconds
        # gno's own files: the index and its WAL, the model cache, the config file.
        self._ignored = (
            os.path.realpath(paths.data_dir),
            os.path.realpath(paths.cache_dir),
            os.path.realpath(paths.config_file),
        )
        self._lock = threading.Lock()
        self._roots: dict[str, _Root] = {}
        self._failed: dict[str, str] = {}
        self._retry_at: dict[str, float] = {}
        self._expected: list[str] = []
        self._known: set[str] = set()
        self._catch_up: set[str] = set()  # collections owed a whole-collection pass
        self._collections: list[Collection] = []
        self._config_stamp: str | None = None
        self._poke = threading.Event()
        self._stopping = threading.Event()
        # Held by a root from the start of its watch until it was checked against the watch
        # limit: a root set up beside another could not tell whose folders went unwatched.
        self._setup = threading.Lock()
        self._supervisor: threading.Thread | None = None
        self.last_event_at: str | None = None
        self.last_sync_at: str | None = None

    # ---- lifecycle

    def start(self) -> None:
        self._reconcile(initial=True)
        self._supervisor = threading.Thread(target=self._supervise, name="gno-watch", daemon=True)
        self._supervisor.start()

    def poke(self) -> None:
        """Re-read the config and the roots now (after a job or a collection write)."""
        self._poke.set()

    def stop(self, wait: bool = True) -> None:
        self._stopping.set()
        self._poke.set()
        with self._lock:
            roots = list(self._roots.values())
        for root in roots:
            root.stop.set()
        if not wait:
            return
        deadline = time.monotonic() + STOP_SECONDS
        threads = [self._supervisor, *(r.thread for r in roots)]
        for thread in threads:
            if thread is not None and thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))

    def state(self) -> dict[str, Any]:
        """The watcher part of status@1.0 ``background.watcher`` (queue fields excluded)."""
        with self._lock:
            active = [
                name
                for name in self._expected
                if (root := self._roots.get(name)) is not None and root.ready and root.error is None
            ]
            failed = [
                {"collection": name, "reason": self._failed[name]}
                for name in self._expected
                if name in self._failed
            ]
            return {
                "expectedCollections": list(self._expected),
                "activeCollections": active,
                "failedCollections": failed,
                "lastEventAt": self.last_event_at,
                "lastSyncAt": self.last_sync_at,
            }

    # ---- supervisor

    def _supervise(self) -> None:
        while not self._stopping.is_set():
            self._poke.wait(self._recheck)
            self._poke.clear()
            if self._stopping.is_set():
                return
            try:
                self._reconcile()
            except Exception:  # never let one bad pass end the watching
                traceback.print_exc(file=sys.stderr)

    def _read_collections(self) -> list[Collection]:
        config_file = self._paths.config_file
        try:
            st = config_file.stat()
        except FileNotFoundError:
            self._config_stamp, self._collections = None, []
            return []
        stamp = f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"
        if stamp != self._config_stamp:
            try:
                self._collections = load_config(config_file).collections
            except (GnoError, FileNotFoundError):
                return self._collections  # mid-edit or broken: keep watching what we had
            self._config_stamp = stamp
        return self._collections

    def _reconcile(self, initial: bool = False) -> None:
        wanted = {c.name: c for c in self._read_collections()}
        with self._lock:
            self._expected = list(wanted)
            for name in [n for n in self._roots if n not in wanted]:
                self._stop_root(name)
            for table in (self._failed, self._retry_at):
                for name in [n for n in table if n not in wanted]:
                    del table[name]
            self._catch_up &= set(wanted)
            # A removed name is forgotten: a collection added under it later is a new one,
            # owed its whole pass like any other.
            self._known &= set(wanted)
            for name, collection in wanted.items():
                if name not in self._known:
                    self._known.add(name)
                    if not initial:
                        self._catch_up.add(name)
                self._ensure(collection)
            now = time.monotonic()
            for name, root in self._roots.items():
                if root.ready and now - root.passed_at >= self._rescan:
                    self._catch_up.add(name)
            # Only once its watch is in place, so nothing falls between the pass and the watch.
            owed = sorted(n for n in self._catch_up if n in self._roots and self._roots[n].ready)
        for name in owed:  # outside the lock: submitting waits for the server's write lock
            if self._submit(name, None):
                with self._lock:
                    self._catch_up.discard(name)
                    if (watched := self._roots.get(name)) is not None:
                        watched.passed_at = time.monotonic()

    def _ensure(self, collection: Collection) -> None:
        """Watch this collection's root if it can be watched (under the lock)."""
        from gno.core.globs import FileRules
        from gno.core.mime import SUPPORTED_EXTENSIONS

        name = collection.name
        current = self._roots.get(name)
        if current is not None and current.error is not None:
            self._failed[name] = current.error  # its thread ended: report, retry later
            self._retry_at[name] = time.monotonic() + current.retry_seconds
            self._stop_root(name)
            self._catch_up.add(name)
            current = None
        root = os.path.abspath(expand_home(collection.path))
        if problem := root_problem(root):
            if current is not None:
                self._stop_root(name)
            self._failed[name] = problem[1]
            self._catch_up.add(name)
            return
        try:
            real = os.path.realpath(root)
            st = os.stat(real)
            rules = FileRules.build(
                collection.pattern, collection.include, collection.exclude, SUPPORTED_EXTENSIONS
            )
        except OSError:
            self._failed[name] = "The collection folder cannot be read."
            return
        except GnoError:
            self._failed[name] = "The collection's file selection rules are not valid."
            return
        key = (
            real,
            st.st_dev,
            st.st_ino,
            collection.pattern,
            tuple(collection.include),
            tuple(collection.exclude),
        )
        if current is not None:
            if current.key == key:
                return
            self._stop_root(name)  # moved, replaced or new rules: watch it afresh
            self._catch_up.add(name)
        if time.monotonic() < self._retry_at.get(name, 0.0):
            return
        self._retry_at.pop(name, None)
        self._failed.pop(name, None)
        watched = _Root(WatchScope(name, real, rules), key)
        watched.thread = threading.Thread(
            target=self._watch_root, args=(watched,), name=f"gno-watch-{name}", daemon=True
        )
        self._roots[name] = watched
        watched.thread.start()

    def _stop_root(self, name: str) -> None:
        root = self._roots.pop(name, None)
        if root is not None:
            root.stop.set()  # its thread ends within one watchfiles step

    # ---- one root

    def _watch_root(self, root: _Root) -> None:
        import watchfiles

        setup = self._setup
        setup.acquire()
        try:
            if root.stop.is_set():
                return  # dropped while it waited for its turn
            batches = watchfiles.watch(
                root.scope.root,
                watch_filter=None,  # change_plan applies the collection's own rules
                debounce=self._debounce,
                step=self._step,
                stop_event=root.stop,
                rust_timeout=IDLE_TICK_MS,
                yield_on_timeout=True,  # an empty batch: the watch is set up and idle
                raise_interrupt=False,
                recursive=True,
                ignore_permission_denied=True,
            )
            with contextlib.closing(batches):  # leaving it releases the OS watches at once
                resumed = time.monotonic()
                for batch in batches:
                    if root.ready and time.monotonic() - resumed > self._stall:
                        self._owe_pass(root.scope.collection)
                    if not root.ready:
                        if watches_exhausted(root.scope.root):
                            root.retry_seconds = self._limit_retry
                            raise OSError(errno.ENOSPC, "the inotify watch limit is reached")
                        setup.release()
                        root.ready, root.passed_at = True, time.monotonic()
                        self._poke.set()  # a catch-up pass may be waiting for this
                    if batch:
                        self._handle(root.scope, [(change.name, path) for change, path in batch])
                    resumed = time.monotonic()  # our own handling (a submit may wait) aside
        except Exception as exc:  # e.g. the OS watch limit, or the root vanished at start
            if not root.stop.is_set():
                root.error = _reason(exc)
                self._poke.set()
        finally:
            if not root.ready:
                setup.release()

    def _handle(self, scope: WatchScope, changes: list[tuple[str, str]]) -> None:
        if any(os.path.normpath(path) == scope.root for _, path in changes):
            self._poke.set()  # the root itself was deleted or moved: re-check it now
        plan = plan_changes(scope, changes, self._ignored)
        if not plan:
            return
        self.last_event_at = _now_iso()
        for name, paths in plan.items():
            if not self._submit(name, sorted(paths) if paths is not None else None):
                self._owe_pass(name)  # refused (queue full): a full pass later

    def _owe_pass(self, name: str) -> None:
        """A whole-collection pass, submitted by the supervisor (at once: it is poked)."""
        with self._lock:
            self._catch_up.add(name)
        self._poke.set()


def watches_exhausted(path: str) -> bool:
    """Linux: no inotify watch is left for this user (``inotify_add_watch`` fails with
    ENOSPC). Elsewhere, or when no inotify instance is left either (watchfiles then
    polls instead), False."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
    if fd < 0:
        return False
    try:
        in_attrib = 0x4  # any event: the watch is never read
        return libc.inotify_add_watch(fd, os.fsencode(path), in_attrib) < 0 and (
            ctypes.get_errno() == errno.ENOSPC
        )
    finally:
        os.close(fd)


def _reason(exc: BaseException) -> str:
    """A failure as a sentence without host paths (status may go to remote callers)."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return LIMIT_REASON
    if isinstance(exc, FileNotFoundError):
        return "The collection folder is missing or not a directory."
    if isinstance(exc, PermissionError):
        return "The collection folder cannot be read."
    text = str(exc).lower()
    if "limit" in text or "too many" in text:
        return LIMIT_REASON
    return f"The folder cannot be watched ({type(exc).__name__})."
