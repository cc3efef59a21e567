"""Ports of the index (``gno/adapters/sqlite``): one Protocol per concern; ``Store`` is all of
them, and ``gno.ports`` re-exports it. Row types live in ``gno/rows.py``,
``gno/sync_rows.py`` and ``gno/journal_rows.py``. Methods that read return what is committed;
methods that write join the open ``write()`` transaction when there is one.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from gno.rows import BacklogRow, DocRow, Neighbour

if TYPE_CHECKING:
    from gno.core.document import Analysis
    from gno.core.link_rows import LinkRow
    from gno.core.typed_graph import Projection
    from gno.journal_rows import JournalRow, JournalState
    from gno.sync_rows import ContainerState, DocState, SourceFile


class IndexReads(Protocol):
    """Documents, their content and counts."""

    def fts_candidates(self, match: str, limit: int) -> list[tuple[int, float]]: ...

    def outline_candidates(self, match: str, limit: int) -> list[tuple[int, float]]: ...

    def documents_by_ids(
        self, ids: Sequence[int], where: str = "", params: Sequence[Any] = ()
    ) -> dict[int, DocRow]: ...

    def documents_with_mirrors(
        self, mirror_hashes: Sequence[str], where: str = "", params: Sequence[Any] = ()
    ) -> list[DocRow]: ...

    def documents_by_docid(self, docid: str, *, inactive: bool = False) -> list[DocRow]: ...

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
        condition: tuple[str, Sequence[Any]] = ("", ()),
    ) -> tuple[list[DocRow], int]: ...

    def date_field_names(self, collection: str | None) -> list[str]: ...

    def active_paths(self, collection: str) -> list[DocRow]: ...

    def document_paths(self, collection: str) -> list[tuple[int, str]]:
        """(id, rel_path) of every row of the collection: inactive ones and records too."""
        ...

    def first_converted(self, collection: str, limit: int) -> list[DocRow]:
        """The first ``limit`` active documents with a mirror, in ``active_paths`` order."""
        ...

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

    def doc_states(self, collection: str) -> dict[str, DocState]:
        """The collection's documents by path; a sync of it starts here."""
        ...

    def sync_finished(self) -> None:
        """The sync ``doc_states`` started ended (done, stopped or failed)."""
        ...

    def active_ids(self, collection: str) -> set[int]:
        """Ids of the collection's active documents (a sync reads them before its walk)."""
        ...

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

    def pending_documents(
        self, model_id: int | None, collections: Sequence[str] | None = None
    ) -> int: ...

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

    def window_vector_blobs(
        self, model_id: int, mirror_hash: str, seq: int
    ) -> list[tuple[int, bytes]]: ...

    def clear_vectors(self, model_id: int, collection: str | None = None) -> int: ...

    def clear_collection_vectors(self, model_id: int, collection: str) -> tuple[int, int]: ...

    def repair_knn(self, rebuild: bool) -> list[tuple[str, int, int, int]]: ...

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

    def projection_kept(self) -> bool:
        """Whether this store holds the full projection of the index as it is now."""
        ...

    def graph_state(self) -> bytes | None:
        """A token drawn again on every change a graph read could see (None: no token
        kept, answer without the graph cache)."""
        ...

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

    def set_meta(self, key: str, value: str) -> None: ...

    def collections(self) -> list[dict[str, Any]]: ...

    def contexts(self) -> list[tuple[str, str, str]]: ...

    def integrity_ok(self) -> bool: ...


class IndexRecords(Protocol):
    """The record lane's rows (spec/records.md): export containers and record provenance."""

    def record_containers(self, collection: str) -> dict[str, ContainerState]: ...

    def record_container(self, collection: str, rel_path: str) -> ContainerState | None: ...

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

    def move_user_tags(self, from_id: int, to_id: int) -> None: ...

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
