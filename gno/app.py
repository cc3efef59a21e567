"""The composition root: one ``App`` per process (CLI run, server, test).

It is the only place that reads the environment and the config file and wires
adapters; services get everything they need from it. The config is mirrored
into the index (collections, contexts) and re-read only when ``index.yml``
changed, so read commands such as ``gno search`` never parse YAML.
"""

from __future__ import annotations

import os
from functools import cached_property
from typing import TYPE_CHECKING, Any

from gno.adapters.sqlite.store import SqliteStore
from gno.config import Config, load_config, save_config
from gno.errors import GnoError, NotInitializedError, UnavailableError
from gno.paths import Paths
from gno.ports import Embedder, Reranker

if TYPE_CHECKING:
    from gno.services.jobs import JobManager


def _stamp(st: os.stat_result) -> str:
    return f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"


class App:
    def __init__(self, paths: Paths) -> None:
        self.paths = paths
        self._store: SqliteStore | None = None
        self._embedder: Embedder | None = None
        self._reranker: Reranker | bool | None = None  # False: looked, none available
        self.embed_uri: str | None = None
        self.mode = "direct-cli"  # resident-status mode of this process ("stdio" under `gno mcp`)
        self.runtime: Any = None  # the resident runtime when `gno serve` owns this process

    @cached_property
    def config(self) -> Config:
        try:
            return load_config(self.paths.config_file)
        except FileNotFoundError:
            raise NotInitializedError(
                f"GNO not initialized (no config at {self.paths.config_file}). Run: gno init"
            ) from None

    def save_config(self, config: Config) -> None:
        """Write index.yml atomically and mirror it into the index when one is open."""
        save_config(self.paths.config_file, config)
        self.__dict__["config"] = config
        if self._store is not None:
            self.sync_config_mirror(force=True)

    def reload_config(self) -> Config:
        self.__dict__.pop("config", None)
        return self.config

    @cached_property
    def jobs(self) -> JobManager:
        """Background jobs of this process (server surfaces); each job gets its own App."""
        from gno.services.jobs import JobManager

        return JobManager(lambda: App(self.paths))

    def embed_model_uri(self) -> str:
        """URI of the active embedding model, without loading it."""
        from gno.models.catalog import role_uri

        return role_uri("embed", self.config.raw)[0]

    def embedder(self) -> Embedder:
        """The embedding model for this process, loaded once (fails fast when it is not available)."""
        if self._embedder is None:
            from gno.models.availability import download_policy, local_model_file
            from gno.models.catalog import parse_model_uri
            from gno.ports import EmbeddingError

            uri = self.embed_model_uri()
            model = parse_model_uri(uri)
            try:
                if model.scheme == "http":  # an OpenAI-compatible server
                    from gno.adapters.openai_http.embedder import HttpEmbedder

                    self._embedder = HttpEmbedder(model.url or "", model.model)
                else:
                    path = local_model_file(
                        "embed", model, self.paths.models_dir, download_policy()
                    )
                    from gno.adapters.llama.embedder import LlamaEmbedder

                    self._embedder = LlamaEmbedder(path)
            except EmbeddingError as exc:
                raise UnavailableError(
                    f"Cannot load the embedding model {uri}: {exc.message}"
                ) from exc
            self.embed_uri = uri
        return self._embedder

    def reranker(self) -> Reranker | None:
        """The reranker, or None when none is available (reranking is optional: never an error)."""
        if self._reranker is False:
            return None
        if self._reranker is None:
            from gno.models.availability import download_policy, local_model_file
            from gno.models.catalog import parse_model_uri, role_uri
            from gno.ports import RerankError

            try:
                model = parse_model_uri(role_uri("rerank", self.config.raw)[0])
                path = local_model_file("rerank", model, self.paths.models_dir, download_policy())
                from gno.adapters.llama.reranker import LlamaReranker

                self._reranker = LlamaReranker(path)
            except (RerankError, GnoError):  # not on disk, remote, or not a RANK model
                self._reranker = False
                return None
        return self._reranker

    def store(self, *, create: bool = False) -> SqliteStore:
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
            self._store = SqliteStore.open(self.paths.db_path, create=create, tokenizer=tokenizer)
            self.sync_config_mirror()
        return self._store

    def sync_config_mirror(self, *, force: bool = False) -> None:
        """Copy collections and contexts from index.yml into the index when the file changed."""
        store = self._store
        assert store is not None
        try:
            stamp = _stamp(self.paths.config_file.stat())
        except FileNotFoundError:
            return
        if not force and store.get_meta("config_stamp") == stamp:
            return
        config = self.config if force else self.reload_config()
        store.replace_config(
            [c.to_dict() for c in config.collections],
            [(c.scope_type, c.scope_key, c.text) for c in config.contexts],
            stamp,
        )
        store.inactivate_collections_except([c.name for c in config.collections])

    def refresh_config(self) -> None:
        """Long-running servers: pick up index.yml edits made since the index was opened."""
        if self._store is not None:
            self.sync_config_mirror()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
