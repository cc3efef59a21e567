"""The models of one process: loaded on first use, shared by every ``App`` of it.

`gno serve` has an owner App, a pool of reader Apps and an App per background job; all
of them are given the same ``Models``, so a model file is loaded once per process and an
optional role that had no model is looked up again for all of them after a pull
(``forget_missing``). Embedding and reranking calls are serialized by one process-wide
lock (a llama.cpp context is not thread-safe, and one at a time keeps memory bounded),
waited for with ``services/cancel.holding`` (a cancelled request stops waiting);
a generator serializes its own calls (it checks its timeout while it waits).

Which model plays a role comes from the config at the time of the call
(``gno/models/catalog.py``); where its file comes from, from ``gno/models/availability``.
Reranking, expansion and generation are optional: an unavailable model is ``None``
(``unavailable[role]`` says why), never an error.
"""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gno.errors import GnoError, UnavailableError
from gno.ports import (
    Embedder,
    EmbeddingError,
    GenerationError,
    Generator,
    Reranker,
    RerankError,
)
from gno.services.cancel import holding

if TYPE_CHECKING:
    from gno.config import Config

GENERATOR_ROLES = ("expand", "gen")
EXPAND_CONTEXT = 2048  # models.expandContextSize default (engine.md §1.7)
INFERENCE_TIMEOUT_MS = 30_000  # models.inferenceTimeout default: one HTTP model request


def model_uri(config: Config, role: str) -> str:
    """URI of a role's model (env override, else the active preset), without loading it."""
    from gno.models.catalog import role_uri

    return role_uri(role, config.raw)[0]


def models_int(config: Config, key: str, default: int, minimum: int) -> int:
    """An integer setting of index.yml's ``models`` block (GNO's names), else ``default``."""
    models = config.raw.get("models")
    value = models.get(key) if isinstance(models, dict) else None
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return max(minimum, value)


class _LockedEmbedder:
    def __init__(self, inner: Embedder, lock: threading.Lock) -> None:
        self._inner, self._lock = inner, lock
        self.model_id, self.dimensions = inner.model_id, inner.dimensions
        self.max_tokens = inner.max_tokens
        # Token counting (llama.cpp embedders only) plans embedding windows: passed through
        # when the model has it, so `getattr(embedder, "token_count")` still tells.
        counter = getattr(inner, "token_count", None)
        if callable(counter):

            def token_count(text: str) -> int:
                with holding(lock):
                    return int(counter(text))

            self.token_count = token_count

    def embed_batch(self, texts: list[str]) -> list[list[float]]:
        with holding(self._lock):
            return self._inner.embed_batch(texts)


class _LockedReranker:
    def __init__(self, inner: Reranker, lock: threading.Lock) -> None:
        self._inner, self._lock = inner, lock
        self.model_id = inner.model_id

    def rerank(self, query: str, documents: list[str]) -> list[float]:
        with holding(self._lock):
            return self._inner.rerank(query, documents)


class Models:
    """The loaded models of one process. Thread-safe."""

    def __init__(self, models_dir: Path) -> None:
        self.models_dir = models_dir
        self.lock = threading.Lock()  # loads, and every embedding or rerank call
        # Embedders by URI: the preset's, and a collection's own (index.yml
        # ``collections[].models.embed``) when one has it.
        self._embedders: dict[str, Embedder] = {}
        self.embed_uri: str | None = None  # the URI the last embedder asked for came from
        self._reranker: Reranker | Literal[False] | None = None  # False: looked, none
        self._generators: dict[str, Generator | None] = {}  # None: looked, none available
        self.unavailable: dict[str, str] = {}  # optional role -> why it has no model

    def embedder(self, config: Config, uri: str | None = None) -> Embedder:
        """The embedding model of ``uri`` (default: the active one), loaded once per URI. A
        missing hf: model is downloaded first when the download policy allows it;
        otherwise this fails fast naming the fix."""
        uri = uri or model_uri(config, "embed")
        with holding(self.lock):
            loaded = self._embedders.get(uri)
            if loaded is None:
                loaded = self._embedders[uri] = self._load_embedder(uri)
            self.embed_uri = uri
            return _LockedEmbedder(loaded, self.lock)

    def _load_embedder(self, uri: str) -> Embedder:
        from gno.models.availability import download_policy, local_model_file
        from gno.models.catalog import parse_model_uri

        model = parse_model_uri(uri)
        try:
            loaded: Embedder
            if model.scheme == "http":  # an OpenAI-compatible server
                from gno.adapters.openai_http.embedder import HttpEmbedder

                loaded = HttpEmbedder(model.url or "", model.model)
            else:
                path = local_model_file("embed", model, self.models_dir, download_policy())
                from gno.adapters.llama.embedder import LlamaEmbedder

                loaded = LlamaEmbedder(path, n_threads=_threads_env())
        except EmbeddingError as exc:
            raise UnavailableError(f"Cannot load the embedding model {uri}: {exc.message}") from exc
        return loaded

    def reranker(self, config: Config) -> Reranker | None:
        """The reranker, or None when none is available (reranking is optional)."""
        with holding(self.lock):
            if self._reranker is None:
                try:
                    self._reranker = self._load_reranker(config)
                except (RerankError, GnoError) as exc:  # not on disk, bad URI, not RANK
                    self.unavailable["rerank"] = getattr(exc, "message", str(exc))
                    self._reranker = False
            found = self._reranker
        return None if found is False else _LockedReranker(found, self.lock)

    def generator(self, config: Config, role: str) -> Generator | None:
        """The ``expand`` or ``gen`` model, or None when it is not available (both are
        optional: never an error; ``unavailable[role]`` says why)."""
        if role not in GENERATOR_ROLES:
            raise ValueError(f"not a generator role: {role}")
        with holding(self.lock):
            if role not in self._generators:
                try:
                    self._generators[role] = self._load_generator(config, role)
                except (GenerationError, GnoError) as exc:
                    self.unavailable[role] = getattr(exc, "message", str(exc))
                    self._generators[role] = None
            return self._generators[role]

    def loaded(self) -> int:
        """How many models this process holds (embedder, reranker, generators). Read
        without the lock, which a model call holds for its whole length: status answers
        while a model works."""
        generators = sum(g is not None for g in list(self._generators.values()))
        return len(self._embedders) + int(bool(self._reranker)) + generators

    def roles_used(self) -> dict[str, bool]:
        """The roles this process looked for, and whether each has a model (--verbose)."""
        used = {"embed": True} if self._embedders else {}
        if self._reranker is not None:
            used["rerank"] = self._reranker is not False
        return used | {role: g is not None for role, g in list(self._generators.items())}

    def forget_missing(self) -> None:
        """Optional roles found without a model are looked up again on next use (after a
        pull); loaded models stay loaded."""
        with self.lock:
            if self._reranker is False:
                self._reranker = None
            self._generators = {r: g for r, g in self._generators.items() if g is not None}
            self.unavailable.clear()

    def _load_reranker(self, config: Config) -> Reranker:
        from gno.models.catalog import parse_model_uri

        model = parse_model_uri(model_uri(config, "rerank"))
        if model.scheme == "http":
            from gno.adapters.openai_http.reranker import HttpReranker

            return HttpReranker(model.url or "", model.model, timeout=_timeout(config))
        from gno.adapters.llama.reranker import LlamaReranker

        return LlamaReranker(self._cached_file(config, "rerank"))

    def _load_generator(self, config: Config, role: str) -> Generator:
        from gno.models.catalog import parse_model_uri

        model = parse_model_uri(model_uri(config, role))
        if model.scheme == "http":
            from gno.adapters.openai_http.generator import HttpGenerator

            return HttpGenerator(model.url or "", model.model, timeout=_timeout(config))
        from gno.adapters.llama.generator import LlamaGenerator

        path = self._cached_file(config, role)
        context = models_int(config, "expandContextSize", EXPAND_CONTEXT, 256)
        return LlamaGenerator(path, max_context=context if role == "expand" else None)

    def _cached_file(self, config: Config, role: str) -> Path:
        """Optional roles use what is on disk: a query never waits on a large download
        (`gno models pull` fetches them); embedding downloads on demand, as it must."""
        from gno.models.availability import download_policy, local_model_file
        from gno.models.catalog import parse_model_uri

        cached_only = replace(download_policy(), allow_auto_download=False)
        model = parse_model_uri(model_uri(config, role))
        return local_model_file(role, model, self.models_dir, cached_only)


def _timeout(config: Config) -> float:
    return models_int(config, "inferenceTimeout", INFERENCE_TIMEOUT_MS, 1) / 1000


def _threads_env() -> int | None:
    """``GNO_EMBED_THREADS``: llama.cpp threads for the local embedding model (default
    min(2, cores)). On a machine other processes keep busy, 1 can be faster than 2: two
    threads wait for each other at every step (bench/README.md "Batched embedding")."""
    try:
        value = int(os.environ.get("GNO_EMBED_THREADS", ""))
    except ValueError:
        return None
    return value if 1 <= value <= 64 else None
