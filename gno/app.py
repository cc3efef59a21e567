"""The composition root: one ``App`` per process (CLI run, server, test).

It is the only place that reads the environment and the config file and wires
adapters; services get everything they need from it. The config is mirrored
into the index (collections, contexts) and re-read only when ``index.yml``
changed, so read commands such as ``gno search`` never parse YAML.
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from gno.adapters.sqlite.store import SqliteStore
from gno.config import Config, load_config, save_config
from gno.errors import GnoError, NotInitializedError, UnavailableError
from gno.paths import Paths
from gno.ports import Embedder, Generator, Reranker

GENERATOR_ROLES = ("expand", "gen")
EXPAND_CONTEXT = 2048  # models.expandContextSize default (engine.md §1.7)
INFERENCE_TIMEOUT_MS = 30_000  # models.inferenceTimeout default: one HTTP model request

if TYPE_CHECKING:
    from gno.services.jobs import JobManager


def _stamp(st: os.stat_result) -> str:
    return f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"


def _seconds_env(name: str, default: float) -> float:
    """A positive millisecond count from the environment, in seconds."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value / 1000 if value > 0 else default


class App:
    def __init__(self, paths: Paths) -> None:
        self.paths = paths
        self._store: SqliteStore | None = None
        self._embedder: Embedder | None = None
        self._reranker: Reranker | Literal[False] | None = None  # False: looked, none available
        self._generators: dict[str, Generator | None] = {}  # None: looked, none available
        self.embed_uri: str | None = None
        self.mode = "direct-cli"  # resident-status mode of this process ("stdio" under `gno mcp`)
        self.unavailable: dict[str, str] = {}  # optional role -> why it has no model
        self.runtime: Any = None  # the resident runtime when `gno serve` owns this process
        # Set on a background job's App: each sync appends its per-collection tallies
        # (counts and changed documents), which become document-changed events.
        self.change_log: list[Any] | None = None

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
        return self.model_uri("embed")

    def embedder(self) -> Embedder:
        """The embedding model for this process, loaded once. A missing hf: model is downloaded
        first when the download policy allows it; otherwise this fails fast naming the fix."""
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

    def model_uri(self, role: str) -> str:
        """URI of a role's model (env override, else the active preset), without loading it."""
        from gno.models.catalog import role_uri

        return role_uri(role, self.config.raw)[0]

    def reranker(self) -> Reranker | None:
        """The reranker, or None when none is available (reranking is optional: never an error)."""
        if self._reranker is False:
            return None
        if self._reranker is None:
            from gno.ports import RerankError

            try:
                self._reranker = self._load_optional("rerank")
            except (RerankError, GnoError) as exc:  # not on disk, bad URI, not a RANK model
                self.unavailable["rerank"] = getattr(exc, "message", str(exc))
                self._reranker = False
        found = self._reranker
        return None if found is False else found

    def forget_missing_models(self) -> None:
        """Optional roles found without a model are looked up again on next use (after a
        pull); loaded models stay loaded."""
        if self._reranker is False:
            self._reranker = None
        self._generators = {r: g for r, g in self._generators.items() if g is not None}
        self.unavailable.clear()

    def generator(self, role: str) -> Generator | None:
        """The ``expand`` or ``gen`` model, or None when it is not available (both are
        optional: never an error; ``unavailable[role]`` says why)."""
        if role not in GENERATOR_ROLES:
            raise ValueError(f"not a generator role: {role}")
        if role not in self._generators:
            from gno.ports import GenerationError

            try:
                self._generators[role] = self._load_optional(role)
            except (GenerationError, GnoError) as exc:
                self.unavailable[role] = getattr(exc, "message", str(exc))
                self._generators[role] = None
        return self._generators[role]

    def _load_optional(self, role: str) -> Any:
        """Load an optional role's model: an OpenAI-compatible server or a local GGUF."""
        from gno.models.availability import download_policy, local_model_file
        from gno.models.catalog import parse_model_uri

        model = parse_model_uri(self.model_uri(role))
        if model.scheme == "http":
            timeout = self._models_int("inferenceTimeout", INFERENCE_TIMEOUT_MS, 1) / 1000
            if role == "rerank":
                from gno.adapters.openai_http.reranker import HttpReranker

                return HttpReranker(model.url or "", model.model, timeout=timeout)
            from gno.adapters.openai_http.generator import HttpGenerator

            return HttpGenerator(model.url or "", model.model, timeout=timeout)
        # Optional roles use what is on disk: a query never waits on a large download
        # (`gno models pull` fetches them); embedding downloads on demand, as it must.
        cached_only = replace(download_policy(), allow_auto_download=False)
        path = local_model_file(role, model, self.paths.models_dir, cached_only)
        if role == "rerank":
            from gno.adapters.llama.reranker import LlamaReranker

            return LlamaReranker(path)
        from gno.adapters.llama.generator import LlamaGenerator

        context = self._expand_context() if role == "expand" else None
        return LlamaGenerator(path, max_context=context)

    def _expand_context(self) -> int:
        return self._models_int("expandContextSize", EXPAND_CONTEXT, 256)

    def _models_int(self, key: str, default: int, minimum: int) -> int:
        """An integer setting of index.yml's ``models`` block (GNO's names), else ``default``."""
        models = self.config.raw.get("models")
        value = models.get(key) if isinstance(models, dict) else None
        if isinstance(value, bool) or not isinstance(value, int):
            return default
        return max(minimum, value)

    def expand_timeout(self) -> float:
        """Seconds one expansion call may take (``GNO_EXPAND_TIMEOUT_MS``, default 5 s)."""
        from gno.core.expansion import TIMEOUT_SECONDS

        return _seconds_env("GNO_EXPAND_TIMEOUT_MS", TIMEOUT_SECONDS)

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
