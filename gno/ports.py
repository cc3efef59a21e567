"""Ports: the narrow interfaces the engine depends on.

Services receive adapters through these protocols and never import an adapter
module. Invariants each adapter must keep are in the docstrings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

# Ingest error codes recorded per file (``ingest_errors.code``). The first four
# are permanent for unchanged bytes: a file failing with them is not retried
# until its bytes change.
CORRUPT = "CORRUPT"
PERMISSION = "PERMISSION"
TOO_LARGE = "TOO_LARGE"
UNSUPPORTED = "UNSUPPORTED"
CONVERSION_FAILED = "CONVERSION_FAILED"
NOT_FOUND = "NOT_FOUND"
READ_ERROR = "READ_ERROR"
PERMANENT_CODES = frozenset({CORRUPT, PERMISSION, TOO_LARGE, UNSUPPORTED})


@dataclass(frozen=True)
class ConversionWarning:
    code: str  # LOSSY | TRUNCATED | PARTIAL | UNSUPPORTED_FEATURE | LOW_CONFIDENCE
    message: str


@dataclass(frozen=True)
class Conversion:
    """What a converter produced. ``markdown`` is raw: the mirror canonicalizes it."""

    markdown: str
    title: str | None
    converter_id: str
    converter_version: str
    warnings: tuple[ConversionWarning, ...] = field(default=())


class ConversionError(Exception):
    """A file could not be converted. ``code`` is one of the ingest codes above."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@runtime_checkable
class Converter(Protocol):
    """Turns one source file into Markdown.

    Invariants: ``convert`` never raises anything but ``ConversionError`` for a
    bad file (corrupt, encrypted, unsupported); it does not write anywhere; it
    is deterministic for the same bytes.
    """

    id: str
    version: str

    def can_handle(self, ext: str, mime: str) -> bool: ...

    def convert(self, path: Path, data: bytes, ext: str, mime: str) -> Conversion: ...


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
    ``GENERATE_TIMEOUT``. It never aborts the process on long input: fitting the
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
    ) -> str: ...


class ServerState(Protocol):
    """What a resident server (`gno serve`, `gno daemon`) tells handlers about itself.

    ``snapshot`` is resident-status@1.0 (admission, transport, readers, jobs); ``background_status`` is
    status@1.0's ``background.watcher`` and ``background.events`` blocks plus
    ``nextEmbedAt``. Both are cheap and never block on a running job.
    """

    def snapshot(self) -> dict[str, Any]: ...

    def background_status(self) -> dict[str, Any]: ...
