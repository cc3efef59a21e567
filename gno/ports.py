"""Ports: the narrow interfaces the engine depends on.

Services receive adapters through these protocols and never import an adapter module:
converters, models, the index (one Protocol per concern: reads, writes, vectors, graph,
journal, caches, meta; ``Store`` is all of them) and what a resident server says about
itself. Invariants each adapter must keep are in the docstrings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from gno.rows import (
    BacklogRow,
    ContainerState,
    DocRow,
    DocState,
    JournalRow,
    JournalState,
    LinkRow,
    Neighbour,
    SourceFile,
)

if TYPE_CHECKING:
    from gno.core.document import Analysis
    from gno.core.typed_graph import Projection

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
INVALID_NAME = "INVALID_NAME"  # a file name that is not UTF-8: reported, never stored
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


class ServerState(Protocol):
    """What a resident server (`gno serve`, `gno daemon`) tells handlers about itself.

    ``snapshot`` is resident-status@1.0 (admission, transport, readers, jobs); ``background_status`` is
    status@1.0's ``background.watcher`` and ``background.events`` blocks plus
    ``nextEmbedAt``. Both are cheap and never block on a running job.
    """

    def snapshot(self) -> dict[str, Any]: ...

    def background_status(self) -> dict[str, Any]: ...


# ---- the index (``adapters/sqlite``): one Protocol per concern; ``Store`` is all of them.
# Row types live in ``gno/rows.py``. Methods that read return what is committed; methods
# that write join the open ``write()`` transaction when there is one.


class IndexReads(Protocol):
    """Documents, their content and counts."""

    def fts_candidates(self, match: str, limit: int) -> list[tuple[int, float]]: ...

    def documents_by_ids(
        self, ids: Sequence[int], where: str = "", params: Sequence[Any] = ()
    ) -> dict[int, DocRow]: ...

    def documents_with_mirrors(
        self, mirror_hashes: Sequence[str], where: str = "", params: Sequence[Any] = ()
    ) -> list[DocRow]: ...

    def documents_by_docid(self, docid: str) -> list[DocRow]: ...

    def document_by_path(self, collection: str, rel_path: str) -> DocRow | None: ...

    def ids_passing(
        self, ids: Sequence[int], where: str = "", params: Sequence[Any] = ()
    ) -> set[int]: ...

    def list_documents(
        self,
        collection: str | None,
        prefix: str | None,
        limit: int,
        offset: int,
        *,
        tags_all: Sequence[str] = (),
        tags_any: Sequence[str] = (),
        order: tuple[str | None, bool] = (None, False),
    ) -> tuple[list[DocRow], int]: ...

    def date_field_names(self, collection: str | None) -> list[str]: ...

    def active_paths(self, collection: str) -> list[DocRow]: ...

    def contents(self, mirror_hashes: Sequence[str]) -> dict[str, str]: ...

    def chunk_spans(
        self, mirror_hashes: Sequence[str]
    ) -> dict[str, list[tuple[int, int, int, str | None]]]: ...

    def content(self, mirror_hash: str) -> str | None: ...

    def chunks(self, mirror_hash: str) -> list[tuple[int, int, int, int, int, str | None]]: ...

    def tags_for(self, doc_ids: Sequence[int]) -> dict[int, list[str]]: ...

    def recent_documents(self, limit: int) -> list[DocRow]: ...

    def collection_counts(self) -> dict[str, tuple[int, int]]: ...

    def document_breakdown(self) -> dict[str, tuple[int, int, int]]: ...

    def totals(self) -> dict[str, Any]: ...

    def identity_rows(self) -> list[tuple[str, str, str]]: ...

    def generation(self) -> tuple[int, int, int]: ...


class IndexWrites(Protocol):
    """What a sync applies. Each call is one statement group; ``write()`` batches them."""

    def write(self) -> AbstractContextManager[None]: ...

    def doc_states(self, collection: str) -> dict[str, DocState]: ...

    def touch_document(self, doc_id: int, size: int, mtime_ns: int, inode: int | None) -> None: ...

    def save_document(
        self,
        src: SourceFile,
        analysis: Analysis,
        *,
        fts_title: str,
        fts_body: str,
        converter_id: str,
        converter_version: str,
        language_hint: str | None,
    ) -> int: ...

    def save_failure(self, src: SourceFile, code: str, message: str) -> None: ...

    def reactivate(self, doc_id: int) -> None: ...

    def inactivate(self, doc_ids: Sequence[int]) -> None: ...

    def inactivate_collections_except(self, names: Sequence[str]) -> int: ...

    def mark_synced(self, collection: str) -> None: ...

    def cleanup(self) -> dict[str, int]:
        """Delete inactive documents and what only they used; counts of what went."""
        ...

    def rename_collection_rows(
        self, old: str, new: str, uris: Sequence[tuple[int, str]]
    ) -> None: ...


class IndexVectors(Protocol):
    """Embedding models, vectors (packed by ``gno.rows.pack``) and KNN search."""

    def load_vec(self) -> bool: ...

    def embed_model(self, uri: str, fingerprint: str, dims: int) -> int: ...

    def vector_count(self, model_id: int | None) -> int: ...

    def latest_embed_model(self, uri: str) -> int | None: ...

    def find_embed_model(self, fingerprint: str) -> int | None: ...

    def embed_backlog(
        self, model_id: int, collection: str | None, after: tuple[str, int], limit: int
    ) -> list[BacklogRow]: ...

    def embed_backlog_count(self, model_id: int, collection: str | None) -> int: ...

    def pending_documents(self, model_id: int | None) -> int: ...

    def known_text_hashes(self, model_id: int, text_hashes: Sequence[str]) -> set[str]: ...

    def save_embeddings(
        self,
        model_id: int,
        new_vectors: dict[str, bytes],
        chunks: Sequence[tuple[str, int, str] | tuple[str, int, str, int]],
    ) -> None: ...

    def seed_text_vectors(self, model_id: int, source_id: int) -> int: ...

    def chunk_vector_blobs(
        self, model_id: int, chunks: Sequence[tuple[str, int]]
    ) -> list[bytes]: ...

    def clear_vectors(self, model_id: int, collection: str | None = None) -> int: ...

    def clear_collection_vectors(self, model_id: int, collection: str) -> tuple[int, int]: ...

    def embed_model_uris(self) -> dict[int, str]: ...

    def knn(
        self,
        model_id: int,
        queries: Sequence[bytes],
        k: int,
        where: str = "",
        params: Sequence[Any] = (),
    ) -> list[list[Neighbour]]: ...

    def embedded_chunks(self, model_id: int | None) -> dict[str, int]: ...

    def chunk_embeddings(
        self, model_id: int, mirror_hash: str, first_only: bool = False
    ) -> list[bytes]: ...


class IndexGraph(Protocol):
    """Links between documents, resolved at read time; the typed-edge projection."""

    def projection(self) -> Projection:
        """Documents and typed edges of the current index generation (kept until the
        index changes)."""
        ...

    def seed_projection(self, doc_ids: Sequence[int]) -> Projection:
        """A projection whose edges touching ``doc_ids`` equal the full projection's
        (only the links that can touch them are resolved)."""
        ...

    def link_rows(self, doc_ids: Sequence[int], norms: Sequence[str] = ()) -> list[LinkRow]: ...

    def tag_counts(self, collection: str | None, prefix: str | None) -> list[tuple[str, int]]: ...


class IndexJournal(Protocol):
    """The document change journal: what changed, in order, within its retention."""

    def journal_state(self) -> JournalState: ...

    def journal_page(
        self, after: int, since_time: str | None, collection: str | None, limit: int
    ) -> list[JournalRow]: ...

    def journal_entry(self, sequence: int) -> JournalRow | None: ...

    def journal_latest(self, collection: str, rel_path: str) -> JournalRow | None: ...


class IndexCaches(Protocol):
    """The expansion cache: best effort, never waits on a busy index."""

    def cached_expansion(self, key: str) -> str | None: ...

    def cache_expansion(self, key: str, model_uri: str, answer_json: str) -> bool: ...


class IndexMeta(Protocol):
    """The index's own state: metadata, the config mirror, integrity."""

    def get_meta(self, key: str) -> str | None: ...

    def collections(self) -> list[dict[str, Any]]: ...

    def contexts(self) -> list[tuple[str, str, str]]: ...

    def integrity_ok(self) -> bool: ...


class IndexRecords(Protocol):
    """The record lane's rows (spec/records.md): export containers and record provenance."""

    def record_containers(self, collection: str) -> dict[str, ContainerState]: ...

    def record_states(self, collection: str, prefix: str) -> dict[str, DocState]: ...

    def has_active_records(self, collection: str, prefix: str) -> bool: ...

    def save_container(
        self,
        collection: str,
        rel_path: str,
        state: ContainerState,
        error_message: str | None = None,
    ) -> None: ...

    def drop_container(self, collection: str, rel_path: str) -> None: ...

    def record_error(self, collection: str, rel_path: str, code: str, message: str) -> None: ...

    def save_record(self, doc_id: int, container_path: str, record: dict[str, Any]) -> None: ...

    def records_for(self, doc_ids: Sequence[int]) -> dict[int, tuple[str, dict[str, Any]]]: ...


class IndexMetadata(Protocol):
    """Content-type fingerprints and typed frontmatter metadata per document."""

    def set_doc_meta(
        self,
        doc_id: int,
        frontmatter_type: str | None,
        rules_fp: str | None,
        metadata_json: str | None,
    ) -> None: ...

    def metadata_registry(
        self, collection: str | None, values: int
    ) -> tuple[list[dict[str, Any]], int]: ...

    def mirror_content_types(self, mirror_hashes: list[str]) -> dict[str, tuple[str, str]]: ...

    def doc_meta(self, doc_id: int) -> tuple[str | None, str | None, str | None]: ...


class IndexWriteSupport(Protocol):
    """What the write operations need: requestId receipts, user tags, suggestions."""

    def request_receipt(self, request_id: str) -> tuple[str, str, str] | None: ...

    def save_request_receipt(self, request_id: str, operation: str, receipt_json: str) -> None: ...

    def set_user_tag(self, doc_id: int, tag: str, present: bool) -> bool: ...

    def suggest_documents(self, text: str, collection: str | None, limit: int) -> list[DocRow]: ...


class IndexEgress(Protocol):
    """Egress policies (with revisions and the index's policy epoch) and the content-free
    egress audit receipts (spec/egress.md)."""

    def egress_policies(self) -> dict[str, tuple[str, int, str, str]]: ...

    def egress_epoch(self) -> int: ...

    def swap_egress_policy(
        self, collection: str, expected_revision: int, policy: str, source: str
    ) -> bool: ...

    def append_egress_audit(self, audit_id: str, created_at: str, receipt: str) -> None: ...

    def egress_audit_page(self, before: int | None, limit: int) -> list[tuple[int, str]]: ...

    def egress_audit_receipt(self, audit_id: str) -> str | None: ...

    def egress_audit_counts(self) -> tuple[int, str | None, str | None]: ...

    def delete_egress_audit(self, audit_id: str) -> bool: ...

    def purge_egress_audits(self) -> int: ...


class Store(
    IndexReads,
    IndexRecords,
    IndexMetadata,
    IndexWrites,
    IndexVectors,
    IndexGraph,
    IndexJournal,
    IndexCaches,
    IndexMeta,
    IndexWriteSupport,
    IndexEgress,
    Protocol,
):
    """The whole index, as ``App.store()`` gives it to services."""
