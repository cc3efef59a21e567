"""Ports of the models: what an embedder, a reranker and a generator (``adapters/llama``,
``adapters/openai_http``) promise, with their error classes and codes.

Invariants each adapter must keep are in the docstrings; ``gno.ports`` re-exports these
names for the services.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

# Embedding error codes (``EmbeddingError.code``).
MODEL_LOAD_FAILED = "MODEL_LOAD_FAILED"
EMBED_FAILED = "EMBED_FAILED"


class EmbeddingError(Exception):
    """A model could not be loaded or a text could not be embedded.

    ``code`` is ``MODEL_LOAD_FAILED`` (missing, unreadable or invalid model file)
    or ``EMBED_FAILED`` (the runtime failed on an input).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors for KNN search.

    ``model_id`` names the model (it keys stored vectors), ``dimensions`` is the
    vector width and ``max_tokens`` the number of tokens (special tokens
    included) an input is cut to.

    Invariants: ``embed_batch`` returns exactly one vector per input, in input
    order, each ``dimensions`` floats long with unit L2 length; the same text
    gives the same vector. It never aborts the process on long input:
    truncating to ``max_tokens`` is the adapter's job. Any failure is raised as
    ``EmbeddingError``, nothing else.
    """

    model_id: str
    dimensions: int
    max_tokens: int

    def embed_batch(self, texts: list[str]) -> list[list[float]]: ...


# Rerank error codes (``RerankError.code``); ``MODEL_LOAD_FAILED`` is shared.
RERANK_FAILED = "RERANK_FAILED"


class RerankError(Exception):
    """A reranker could not be loaded or could not score a query/document pair.

    ``code`` is ``MODEL_LOAD_FAILED`` (missing, unreadable or invalid model file,
    or a model that is not a reranker) or ``RERANK_FAILED`` (the runtime failed
    on an input).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@runtime_checkable
class Reranker(Protocol):
    """Scores documents for relevance to a query (a cross-encoder).

    ``model_id`` names the model.

    Invariants: ``rerank`` returns exactly one finite score per document, in
    input order (``[]`` for no documents); higher means more relevant. Scores
    are raw model outputs, not normalized: normalization and blending with the
    fusion score are done by the core, never by an adapter. The same query and
    document give the same score, whatever else is in the list. It never
    aborts the process on long input: truncating to the model's context is the
    adapter's job. Any failure is raised as ``RerankError``, nothing else.
    """

    model_id: str

    def rerank(self, query: str, documents: list[str]) -> list[float]: ...


# Generation error codes (``GenerationError.code``); ``MODEL_LOAD_FAILED`` is shared.
GENERATE_FAILED = "GENERATE_FAILED"
GENERATE_TIMEOUT = "GENERATE_TIMEOUT"
INVALID_OUTPUT = "INVALID_OUTPUT"

# Sampling every generator uses: the same prompt gives the same text.
GENERATE_TEMPERATURE = 0.0
GENERATE_SEED = 42
DEFAULT_GENERATE_TOKENS = 256


class GenerationError(Exception):
    """A generator could not be loaded or could not answer a prompt.

    ``code`` is ``MODEL_LOAD_FAILED`` (missing, unreadable or invalid model file,
    unreachable server), ``GENERATE_TIMEOUT`` (no answer within the timeout),
    ``INVALID_OUTPUT`` (an answer that is not what was asked for: a reply of the
    wrong shape, or JSON output cut off at ``max_tokens``) or ``GENERATE_FAILED``
    (the runtime or server failed on the input).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@runtime_checkable
class Generator(Protocol):
    """Writes text for a prompt (query expansion, answers).

    ``model_id`` names the model (it keys cached answers).

    Invariants: sampling is greedy (temperature 0, seed 42), so the same prompt,
    schema and ``max_tokens`` give the same text from the same model. At most
    ``max_tokens`` tokens are generated. With ``schema`` (a JSON Schema) the answer
    is asked to be one JSON value matching it: a local model is constrained by a
    grammar and its text always parses as JSON (output cut off at ``max_tokens``
    is ``INVALID_OUTPUT``, never returned); a remote server is asked for that
    format, and its text is returned as it came, so callers still parse
    defensively. A call that takes longer than ``timeout`` seconds raises
    ``GENERATE_TIMEOUT``. ``on_text`` (free text only) receives the answer as it is
    generated, in pieces whose concatenation is the returned text; an adapter that cannot
    stream calls it once with the whole text. It never aborts the process on long input: fitting the
    prompt into the model's context is the adapter's job. Any failure is raised
    as ``GenerationError``, nothing else.
    """

    model_id: str

    def generate(
        self,
        prompt: str,
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = DEFAULT_GENERATE_TOKENS,
        timeout: float | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> str: ...
