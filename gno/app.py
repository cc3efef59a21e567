"""The composition root: it reads the environment and the config file and wires adapters.

An ``App`` is what a handler is called with: the paths, the config (mirrored into the
index and re-read only when ``index.yml`` changed, so read commands such as ``gno
search`` never parse YAML), one store connection, and the process-wide parts it is given:

- ``models`` (``gno/app_models.py``): the loaded models, shared by every App of the
  process (the owner of `gno serve`, its readers, its jobs);
- ``jobs`` (``services/job_runtime.py``): the background jobs, made on first use;
- ``server``: what a resident server tells handlers about itself (``ServerState``),
  None outside `gno serve`/`gno daemon`.

``derive()`` makes another App for the same process: same models, jobs and server, its
own connection (a reader of the pool, a job).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from gno.adapters.sqlite.store import SqliteStore
from gno.app_models import Models, model_uri
from gno.errors import NotInitializedError
from gno.paths import Paths
from gno.ports import Embedder, Generator, Reranker, ServerState, Store
from gno.trace_ports import IndexTraces

if TYPE_CHECKING:  # imported where used: `gno search` reads neither index.yml nor jobs
    from gno.adapters.sqlite.trace_db import TraceDb
    from gno.config import Config
    from gno.retrieval_config import RetrievalConfig
    from gno.services.job_runtime import JobManager


def _stamp(st: os.stat_result) -> str:
    return f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"


def _file_identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _seconds_env(name: str, default: float) -> float:
    """A positive millisecond count from the environment, in seconds."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value / 1000 if value > 0 else default


class App:
    def __init__(
        self,
        paths: Paths,
        *,
        models: Models | None = None,
        jobs: JobManager[App] | None = None,
        server: ServerState | None = None,
        mode: str = "direct-cli",
    ) -> None:
        self.paths = paths
        self.models = models if models is not None else Models(paths.models_dir)
        self._jobs = jobs
        self.server = server
        self.mode = mode  # resident-status mode of this process ("stdio" under `gno mcp`)
        self._store: SqliteStore | None = None
        self._store_file: tuple[int, int] | None = None  # the index file the store opened
        self._traces: TraceDb | None = None
        self._config: Config | None = None
        self._config_stamp: str | None = None  # index.yml as it was when _config was read
        self._retrieval: tuple[Config, RetrievalConfig] | None = None  # parsed for that config
        # False in a REST search process: it never writes the index, the owner mirrors.
        self.mirrors_config = True

    def derive(self) -> App:
        """Another App of this process: the same models, jobs and server, its own
        store connection and config."""
        return App(
            self.paths, models=self.models, jobs=self.jobs, server=self.server, mode=self.mode
        )

    # ---- config

    @property
    def config(self) -> Config:
        if self._config is None:
            from gno.config import load_config

            stamp = self._file_stamp()
            try:
                self._config = load_config(self.paths.config_file, self.paths.cache_dir)
            except FileNotFoundError:
                raise NotInitializedError(
                    f"GNO not initialized (no config at {self.paths.config_file}). Run: gno init"
                ) from None
            self._config_stamp = stamp
        return self._config

    @property
    def retrieval(self) -> RetrievalConfig:
        """The ``retrieval:`` switches of index.yml (every stage on when absent), parsed once
        per config object: a reload or save gives a new one."""
        config = self.config
        if self._retrieval is None or self._retrieval[0] is not config:
            from gno.retrieval_config import parse_retrieval

            parsed = parse_retrieval(config.raw.get("retrieval"), str(self.paths.config_file))
            self._retrieval = (config, parsed)
        return self._retrieval[1]

    def _file_stamp(self) -> str | None:
        try:
            return _stamp(self.paths.config_file.stat())
        except FileNotFoundError:
            return None

    def save_config(self, config: Config) -> None:
        """Write index.yml atomically and mirror it into the index when one is open.

        With an index open, both happen in one index transaction, the rows first: an index
        that cannot be written fails before index.yml changes, and an index.yml that cannot
        be saved rolls the rows back. Should the commit itself fail, the index keeps the old
        file's stamp and mirrors the new file when next opened."""
        from gno.config import save_config

        store = self._store
        if store is None:
            save_config(self.paths.config_file, config)
            self._config, self._config_stamp = config, self._file_stamp()
            return
        from gno.index_lock import index_guard

        with index_guard(self.paths), store.write():
            self._mirror(store, config, "")  # the stamp is known once the file is written
            save_config(self.paths.config_file, config)
            self._config, self._config_stamp = config, self._file_stamp()
            store.set_meta("config_stamp", self._config_stamp or "")

    def reload_config(self) -> Config:
        self._config = None
        return self.config

    def forget_config(self) -> None:
        """Drop the cached config: the next use reads index.yml again."""
        self._config = None

    def refresh_config(self) -> None:
        """Long-running servers: pick up index.yml edits made since this App read it. The
        file itself is compared: another App of the process may already have mirrored the
        edit into the index, which would hide it from this App's cached config."""
        if self._config is not None and self._file_stamp() != self._config_stamp:
            self._config = None
        self.follow_index_file()
        if self._store is not None:
            self.sync_config_mirror()

    def follow_index_file(self) -> None:
        """Long-running servers, before each request: an index file deleted or replaced
        since this App opened it (rebuilt by `gno update` after a delete, restored from a
        copy) is let go, so the next use opens the file the path names now. SQLite keeps
        reading and writing the old inode through an open connection: reads would answer
        from it, and writes go where nobody reads, until a restart."""
        if self._store is not None and _file_identity(self.paths.db_path) != self._store_file:
            self._store.close()
            self._store = None

    def mirror_is_current(self) -> bool:
        """Whether the index mirrors index.yml as it is now, checked without writing (a
        search process beside the owner answers only then; the owner mirrors edits). A
        stale cached config is dropped, as ``refresh_config`` does."""
        stamp = self._file_stamp()
        if self._config is not None and stamp != self._config_stamp:
            self._config = None
        self.follow_index_file()
        return stamp is None or self.store().get_meta("config_stamp") == stamp

    # ---- jobs

    @property
    def jobs(self) -> JobManager[App]:
        """Background jobs of this process (server surfaces); each job gets its own App."""
        if self._jobs is None:
            from gno.services.job_runtime import JobManager

            self._jobs = JobManager(self.derive, App.close)
        return self._jobs

    # ---- models

    def model_uri(self, role: str) -> str:
        """URI of a role's model (env override, else the active preset), without loading it."""
        return model_uri(self.config, role)

    def embed_model_uri(self) -> str:
        """URI of the active embedding model, without loading it."""
        return self.model_uri("embed")

    @property
    def embed_uri(self) -> str | None:
        """The URI the loaded embedding model came from (None before it is loaded)."""
        return self.models.embed_uri

    @property
    def unavailable(self) -> dict[str, str]:
        """Optional role -> why it has no model (once it was looked up)."""
        return self.models.unavailable

    def embedder(self, uri: str | None = None) -> Embedder:
        """The embedding model of ``uri`` (a collection's own), else the active one."""
        return self.models.embedder(self.config, uri)

    def reranker(self) -> Reranker | None:
        return self.models.reranker(self.config)

    def generator(self, role: str) -> Generator | None:
        return self.models.generator(self.config, role)

    def expand_timeout(self) -> float:
        """Seconds one expansion call may take (``GNO_EXPAND_TIMEOUT_MS``, default 5 s)."""
        from gno.core.expansion import TIMEOUT_SECONDS

        return _seconds_env("GNO_EXPAND_TIMEOUT_MS", TIMEOUT_SECONDS)

    # ---- store

    def store(self, *, create: bool = False) -> Store:
        """The open index; ``create`` makes a missing index file (init and sync do)."""
        if self._store is None:
            if not create and not self.paths.config_file.exists():
                raise NotInitializedError("GNO not initialized. Run: gno init")
            if not create and not self.paths.db_path.exists():
                flag = (
                    ""
                    if self.paths.index_identity == "default"
                    else f" --index {self.paths.index_name}"
                )
                raise NotInitializedError(
                    f"Index {self.paths.index_name!r} does not exist yet. Run: gno update{flag}"
                )
            tokenizer = self.config.fts_tokenizer if create else "porter"
            before = _file_identity(self.paths.db_path)  # a file swapped meanwhile: one reopen
            self._store = SqliteStore.open(self.paths.db_path, create=create, tokenizer=tokenizer)
            self._store_file = before or _file_identity(self.paths.db_path)
            if self.mirrors_config:
                self.sync_config_mirror()
        return self._store

    def sync_config_mirror(self) -> None:
        """Copy collections and contexts from index.yml into the index when the file changed."""
        store = self._store
        assert store is not None
        stamp = self._file_stamp()
        if stamp is None:
            return
        if store.get_meta("config_stamp") == stamp:
            return
        from gno.index_lock import index_guard

        with index_guard(self.paths):  # not while a sync commits a batch of a removed name
            config = self.reload_config()
            self._mirror(store, config, stamp)

    @staticmethod
    def _mirror(store: SqliteStore, config: Config, stamp: str) -> None:
        with store.write():
            store.replace_config(
                [c.to_dict() for c in config.collections],
                [(c.scope_type, c.scope_key, c.text) for c in config.contexts],
                stamp,
            )
            store.inactivate_collections_except([c.name for c in config.collections])
            # Retrieval tracing is read on every search: mirrored here so reading it costs
            # one index row, never a YAML parse (spec/traces.md).
            from gno.core.traces import parse_policy

            policy = parse_policy(config.raw.get("retrievalTraces"))
            store.set_meta("retrieval_traces", policy.to_json())

    def traces(self) -> IndexTraces:
        """The retrieval trace database of this index (a file of its own beside it, so
        trace writes leave the index's caches alone: spec/traces.md), opened on first use."""
        if self._traces is None:
            from gno.adapters.sqlite.trace_db import TraceDb, trace_db_path

            self.store()  # no index, no traces: the same NotInitializedError
            self._traces = TraceDb.open(trace_db_path(self.paths.db_path))
        return self._traces

    def close(self) -> None:
        if self._traces is not None:
            self._traces.close()
            self._traces = None
        if self._store is not None:
            self._store.close()
            self._store = None
