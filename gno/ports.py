"""Ports: the narrow interfaces the engine depends on.

Services receive adapters through these protocols and never import an adapter module:
the index (``gno/store_ports.py``: one Protocol per concern, ``Store`` is all of them), what
a resident server says about itself (here); converters (``gno/conversion_ports.py``) and models
(``gno/model_ports.py``), each in a module of its own and re-exported here so a service imports
every port from one place. Invariants each adapter must keep are in the docstrings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from gno.model_ports import (
    DEFAULT_GENERATE_TOKENS,
    EMBED_FAILED,
    GENERATE_FAILED,
    GENERATE_SEED,
    GENERATE_TEMPERATURE,
    GENERATE_TIMEOUT,
    INVALID_OUTPUT,
    MODEL_LOAD_FAILED,
    RERANK_FAILED,
    Embedder,
    EmbeddingError,
    GenerationError,
    Generator,
    Reranker,
    RerankError,
)
from gno.store_ports import Store

# Converters' and models' ports, re-exported: a service imports every port from here.
__all__ = [
    "CONVERSION_FAILED",
    "CORRUPT",
    "DEFAULT_GENERATE_TOKENS",
    "EMBED_FAILED",
    "GENERATE_FAILED",
    "GENERATE_SEED",
    "GENERATE_TEMPERATURE",
    "GENERATE_TIMEOUT",
    "INVALID_NAME",
    "INVALID_OUTPUT",
    "MODEL_LOAD_FAILED",
    "NOT_FOUND",
    "PERMANENT_CODES",
    "PERMISSION",
    "READ_ERROR",
    "RERANK_FAILED",
    "TIMEOUT",
    "TOO_LARGE",
    "UNSUPPORTED",
    "Conversion",
    "ConversionError",
    "ConversionWarning",
    "Converter",
    "Embedder",
    "EmbeddingError",
    "GenerationError",
    "Generator",
    "RerankError",
    "Reranker",
    "Store",
]

if TYPE_CHECKING:
    from gno.conversion_ports import (
        CONVERSION_FAILED,
        CORRUPT,
        INVALID_NAME,
        NOT_FOUND,
        PERMANENT_CODES,
        PERMISSION,
        READ_ERROR,
        TIMEOUT,
        TOO_LARGE,
        UNSUPPORTED,
        Conversion,
        ConversionError,
        ConversionWarning,
        Converter,
    )

# The converters' ports load on first use: a read converts nothing, and their types cost
# part of every command's start.
_CONVERSION_NAMES = frozenset(
    (
        "CONVERSION_FAILED",
        "CORRUPT",
        "INVALID_NAME",
        "NOT_FOUND",
        "PERMANENT_CODES",
        "PERMISSION",
        "READ_ERROR",
        "TIMEOUT",
        "TOO_LARGE",
        "UNSUPPORTED",
        "Conversion",
        "ConversionError",
        "ConversionWarning",
        "Converter",
    )
)


def __getattr__(name: str) -> Any:
    if name in _CONVERSION_NAMES:
        from gno import conversion_ports

        return getattr(conversion_ports, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ServerState(Protocol):
    """What a resident server (`gno serve`, `gno daemon`) tells handlers about itself.

    ``snapshot`` is resident-status@1.0 (admission, transport, readers, jobs); ``background_status`` is
    status@1.0's ``background.watcher`` and ``background.events`` blocks plus
    ``nextEmbedAt``. Both are cheap and never block on a running job.
    """

    def snapshot(self) -> dict[str, Any]: ...

    def background_status(self) -> dict[str, Any]: ...
