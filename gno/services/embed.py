"""Embedding (``gno embed``, ``gno index``) and vector search (``gno vsearch``).

Embed walks the backlog of chunks without a vector for the active model, in
pages; a chunk whose exact text (title + chunk, per model profile) was embedded
before reuses that vector, so moving a file or re-chunking re-embeds only text
that changed and identical chunks are embedded once. Each page is written in
one transaction: Ctrl-C keeps every finished vector; a chunk the model fails on
is counted and skipped, never losing the rest of its page.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.embed_result import EmbedResult
from gno_contracts.models.index_input import IndexInput
from gno_contracts.models.index_result import IndexResult
from gno_contracts.models.search_input import SearchInput
from gno_contracts.models.search_results import SearchResults
from gno_contracts.models.update_input import UpdateInput

from gno.app import App
from gno.core.embedding_text import (
    document_text,
    embed_fingerprint,
    plain_query_model,
    query_text,
    text_hash,
)
from gno.core.identity import normalize_collection_name
from gno.core.invisible import drop_invisible
from gno.core.windows import plan_windows
from gno.errors import Cancelled, NotFoundError, UnavailableError, ValidationError
from gno.ports import MODEL_LOAD_FAILED, Embedder, EmbeddingError, Store
from gno.rows import pack, unpack
from gno.services.cancel import checkpoint
from gno.services.embed_models import ModelGroup, groups_for, restricted, search_groups
from gno.services.filters import Filters, build_filters
from gno.services.job_runtime import Changes
from gno.services.results import ResultBuilder

Progress = Callable[[int, int], None]  # (chunks done, chunks known so far)
KNN_OVERFETCH = 4


def _vector_store(app: App) -> Store:
    store = app.store()
    if not store.load_vec():
        raise UnavailableError("Vector search needs sqlite-vec: pip install 'gno[models]'")
    return store


def _embed_texts(embedder: Embedder, texts: dict[str, str]) -> dict[str, bytes]:
    """Vectors for {text hash: text}: the whole page in one call, one by one if that fails,
    so one bad text never costs the rest. A model that is gone stops the run."""
    if not texts:
        return {}
    try:
        return {
            digest: pack(v)
            for digest, v in zip(texts, embedder.embed_batch(list(texts.values())), strict=True)
        }
    except EmbeddingError as exc:
        if exc.code == MODEL_LOAD_FAILED:
            raise UnavailableError(f"The embedding model stopped answering: {exc.message}") from exc
    fresh: dict[str, bytes] = {}
    for digest, text in texts.items():
        try:
            fresh[digest] = pack(embedder.embed_batch([text])[0])
        except EmbeddingError as exc:
            if exc.code == MODEL_LOAD_FAILED:
                raise UnavailableError(
                    f"The embedding model stopped answering: {exc.message}"
                ) from exc
    return fresh


def window_limit(app: App, embedder: Embedder) -> int:
    """Windows per chunk for this model: the configured count when windows are on and the
    embedder can count tokens (llama.cpp), else 1 (one vector per chunk, as before)."""
    settings = app.retrieval
    if not settings.embed_windows or not callable(getattr(embedder, "token_count", None)):
        return 1
    return settings.max_windows


def _model_id(app: App, store: Store, embedder: Embedder, uri: str, windows: int) -> int:
    """The vector set for this model and recipe, created on first use; a new windowed set
    starts with the one-vector set's text vectors (window 0 is the same text)."""
    fingerprint = embed_fingerprint(uri, embedder.dimensions, windows)
    fresh = store.find_embed_model(fingerprint) is None
    model_id = store.embed_model(uri, fingerprint, embedder.dimensions)
    plain = store.find_embed_model(embed_fingerprint(uri, embedder.dimensions))
    if fresh and windows > 1 and plain is not None:
        with store.write():
            store.seed_text_vectors(model_id, plain)
    return model_id


def _chunk_texts(
    embedder: Embedder, uri: str, title: str | None, chunk: str, windows: int
) -> list[str]:
    """What each window of one chunk becomes before embedding (window 0 = today's text)."""
    whole = document_text(uri, title, chunk)
    if windows == 1:
        return [whole]
    plan = plan_windows(chunk, embedder.token_count(whole), embedder.max_tokens, windows)  # type: ignore[attr-defined]
    return [whole] + [document_text(uri, title, chunk[start:]) for start in plan.starts[1:]]


def embed(app: App, inp: EmbedInput, progress: Progress | None = None) -> EmbedResult:
    started = time.perf_counter()
    store = _vector_store(app)
    collection = normalize_collection_name(inp.collection) if inp.collection else None
    if collection and collection not in {c["name"] for c in store.collections()}:
        raise NotFoundError(f"Collection not found: {inp.collection}")
    runs = _embed_runs(app, collection)
    if inp.dryRun:
        return _dry_run(app, store, runs, started)
    runs, refused = _egress_runs(app, store, runs)
    tally = _EmbedTally(progress)
    tally.errors = refused  # chunks the egress policy keeps from an endpoint off the machine
    try:
        for uri, name in runs:
            _embed_one(app, store, inp, uri, name, tally)
    except (KeyboardInterrupt, Cancelled):  # Ctrl-C, or a server stopping its job
        tally.interrupted = True
    payload: dict[str, Any] = {
        "embedded": tally.embedded,
        "errors": tally.errors,
        "duration": round(time.perf_counter() - started, 3),
        "model": runs[0][0] if len({uri for uri, _ in runs}) == 1 else app.embed_model_uri(),
        "searchAvailable": tally.search_available,
    }
    if tally.interrupted:
        payload["interrupted"] = True
    return EmbedResult.model_validate(payload)


def _egress_runs(
    app: App, store: Store, runs: list[tuple[str, str | None]]
) -> tuple[list[tuple[str, str | None]], int]:
    """The runs whose chunks may go to their model (spec/egress.md, remote inference), and
    how many chunks stay unembedded because a collection's policy keeps them from an
    endpoint off this machine. Every run refused: ``EGRESS_DENIED``, nothing is sent."""
    from gno.models.catalog import is_endpoint

    if not any(is_endpoint(uri) for uri, _ in runs):
        return runs, 0  # model files run in this process: nothing leaves
    from gno.services import inference_egress

    kept: list[tuple[str, str | None]] = []
    refused: list[str] = []
    held = 0
    for uri, name in runs:
        names = [name] if name else [c["name"] for c in store.collections()]
        bad = inference_egress.denied(app, uri, names, "embedding")
        if not bad:
            kept.append((uri, name))
            continue
        kept += [(uri, n) for n in names if n not in bad]
        refused += bad
        model_id = store.latest_embed_model(uri)
        held += sum(store.embed_backlog_count(-1 if model_id is None else model_id, n) for n in bad)
    if refused and not kept:
        zone = inference_egress.endpoint_zone(runs[0][0])
        raise inference_egress.refusal("embed", list(dict.fromkeys(refused)), zone)
    return kept, held


def _embed_runs(app: App, collection: str | None) -> list[tuple[str, str | None]]:
    """(model URI, collection or None for all) to embed: one run over the whole index (or
    the one collection) when every collection uses one model, else one per collection
    with its own model (``embed_models``)."""
    groups = groups_for(app, [collection] if collection else None)
    if len(groups) == 1 and groups[0].collections is None:
        return [(groups[0].uri, collection)]
    return [(group.uri, name) for group in groups for name in group.collections or ()]


@dataclass
class _EmbedTally:
    progress: Progress | None
    embedded: int = 0
    errors: int = 0
    total: int = 0  # chunks known so far: each run adds its backlog when it starts
    interrupted: bool = False
    search_available: bool = False


def _embed_one(
    app: App, store: Store, inp: EmbedInput, uri: str, collection: str | None, tally: _EmbedTally
) -> None:
    """One model's backlog (of one collection, or of all), page by page."""
    embedder = app.embedder(uri)
    windows = window_limit(app, embedder)
    model_id = _model_id(app, store, embedder, uri, windows)
    if inp.force:
        store.clear_vectors(model_id, collection)
    tally.total += store.embed_backlog_count(model_id, collection)
    after: tuple[str, int] = ("", -1)
    try:
        while page := store.embed_backlog(model_id, collection, after, inp.batchSize):
            after = page[-1][0], page[-1][1]
            mirrors = store.contents(list({row[0] for row in page}))
            texts = {
                (h, seq, win): text
                for h, seq, pos, end, title in page
                for win, text in enumerate(
                    _chunk_texts(embedder, uri, title, mirrors[h][pos:end], windows)
                )
            }
            hashes = {key: text_hash(text) for key, text in texts.items()}
            known = store.known_text_hashes(model_id, list(set(hashes.values())))
            wanted = {hashes[key]: text for key, text in texts.items() if hashes[key] not in known}
            fresh = _embed_texts(embedder, wanted)
            saved = {key for key in texts if hashes[key] in known or hashes[key] in fresh}
            # A chunk counts as embedded when its whole-chunk vector (window 0) is there.
            done = [
                (h, seq, hashes[h, seq, win], win)
                for h, seq, win in texts
                if (h, seq, 0) in saved and (h, seq, win) in saved
            ]
            chunks_done = sum(1 for h, seq, win in saved if win == 0)
            tally.errors += len(page) - chunks_done
            with store.write():
                store.save_embeddings(model_id, fresh, done)
            tally.embedded += chunks_done
            if tally.progress:
                tally.progress(tally.embedded + tally.errors, tally.total)
    finally:
        tally.search_available |= store.embedded_chunks(model_id) != {}


def _dry_run(
    app: App, store: Store, runs: list[tuple[str, str | None]], started: float
) -> EmbedResult:
    """What `embed` would do, without loading a model: the chunks that lack a vector of
    each model's newest vector set (every chunk when the model has none yet). A model URI
    that a real run would refuse (`--model x`) is refused here too."""
    from gno.models.catalog import parse_model_uri

    pending = available = 0
    for uri, collection in runs:
        parse_model_uri(uri)
        model_id = store.latest_embed_model(uri)
        pending += store.embed_backlog_count(model_id if model_id is not None else -1, collection)
        available += model_id is not None and store.embedded_chunks(model_id) != {}
    return EmbedResult.model_validate(
        {
            "embedded": 0,
            "errors": 0,
            "duration": round(time.perf_counter() - started, 3),
            "model": runs[0][0] if len({uri for uri, _ in runs}) == 1 else app.embed_model_uri(),
            "searchAvailable": available > 0,
            "pending": pending,
        }
    )


@dataclass
class VectorSearch:
    """A finished vector search: its vector set and the query vectors (for vector feedback).
    With collections of several models it is the first model's search (the active model's
    when it took part), and ``collections`` the collections that model answers for."""

    model_id: int
    vectors: list[list[float]]
    windows: int  # windows per chunk of the vector set searched (1: one vector per chunk)
    collections: tuple[str, ...] | None = None  # None: every collection the filters allow
    plain_query: bool = False  # the bare query was embedded (no task prompt; plainQueryText)
    wanted: int = 1  # windows per chunk asked for (retrieval: block; 1 when windows are off)


NO_VECTORS = "No embeddings for the active model yet. Run: gno embed (or gno index)"


def vector_search(
    app: App, store: Store, texts: list[str], k: int, filters: Filters | None = None
) -> tuple[list[list[tuple[str, int, float]]], VectorSearch]:
    """Nearest chunks (mirror_hash, seq, distance) of active documents for each query text,
    with each searched collection's embedding model (``embed_models``: one model, one KNN,
    in the usual case; else each model's nearest chunks of its own collections, merged by
    distance). A chunk with several windows may come back once per window. Owner
    ``filters`` apply inside the search, before ``k``. Raises UnavailableError when there
    are no vectors for it (checked before loading a model)."""
    if not store.load_vec():
        raise UnavailableError("Vector search needs sqlite-vec: pip install 'gno[models]'")
    searches = [
        _group_search(app, store, group, texts, k, restricted(filters, group))
        for group in search_groups(app, filters)
        if store.vector_count(store.latest_embed_model(group.uri))
    ]
    if not searches:
        raise UnavailableError(NO_VECTORS)
    if len(searches) == 1:
        return searches[0]
    merged = [
        sorted((n for found, _ in searches for n in found[i]), key=lambda n: (n[2], n[0], n[1]))[:k]
        for i in range(len(texts))
    ]
    return merged, searches[0][1]


def _group_search(
    app: App,
    store: Store,
    group: ModelGroup,
    texts: list[str],
    k: int,
    filters: Filters | None,
) -> tuple[list[list[tuple[str, int, float]]], VectorSearch]:
    """One model's KNN over the collections that use it."""
    uri = group.uri
    embedder = app.embedder(uri)
    windows = wanted = window_limit(app, embedder)
    model_id = store.find_embed_model(embed_fingerprint(uri, embedder.dimensions, windows))
    if windows > 1 and model_id is None:  # windows on, but only a one-vector set exists
        windows = 1
        model_id = store.find_embed_model(embed_fingerprint(uri, embedder.dimensions))
    if model_id is None:
        raise UnavailableError(NO_VECTORS)
    plain = app.retrieval.plain_query_text and plain_query_model(uri)
    vectors = embedder.embed_batch([query_text(uri, text, plain) for text in texts])
    where, params = filters.sql() if filters else ("", [])
    found = store.knn(model_id, [pack(vector) for vector in vectors], k, where, params)
    return found, VectorSearch(model_id, vectors, windows, group.collections, plain, wanted)


def vector_neighbours(
    app: App, store: Store, texts: list[str], k: int, filters: Filters | None = None
) -> list[list[tuple[str, int, float]]]:
    """``vector_search`` without its receipt."""
    return vector_search(app, store, texts, k, filters)[0]


def feedback_neighbours(
    store: Store,
    search: VectorSearch,
    chunks: list[tuple[str, int]],
    k: int,
    filters: Filters | None,
    beta: float,
) -> list[tuple[str, int, float]]:
    """Vector feedback (Rocchio): the first query vector moved toward the mean of these
    chunks' vectors by ``beta``, normalized, searched again."""
    blobs = store.chunk_vector_blobs(search.model_id, chunks)
    if not blobs or not search.vectors:
        return []
    if search.collections is not None:  # that model answers for its own collections only
        filters = restricted(filters, ModelGroup("", search.collections))
    rows = [unpack(blob) for blob in blobs]
    query = search.vectors[0]
    moved = [q + beta * sum(r[i] for r in rows) / len(rows) for i, q in enumerate(query)]
    norm = math.sqrt(math.fsum(x * x for x in moved)) or 1.0
    where, params = filters.sql() if filters else ("", [])
    return store.knn(search.model_id, [pack([x / norm for x in moved])], k, where, params)[0]


def nearest_per_mirror(neighbours: list[tuple[str, int, float]]) -> dict[str, tuple[float, int]]:
    """Each mirror's nearest chunk: mirror -> (distance, seq), in distance order."""
    best: dict[str, tuple[float, int]] = {}
    for mirror_hash, seq, distance in neighbours:
        best.setdefault(mirror_hash, (distance, seq))
    return best


def vsearch(app: App, inp: SearchInput) -> SearchResults:
    # The query as search and `gno query` read it: without invisible characters (core/invisible).
    if not (text := drop_invisible(inp.query).strip()):
        raise ValidationError("Query cannot be empty")
    store = app.store()
    filters = build_filters(store, inp)
    where, params = filters.sql()
    k = inp.limit * KNN_OVERFETCH
    while True:  # k counts chunks, the limit documents: widen k until enough documents
        checkpoint()  # the REST client went away: no further KNN round
        neighbours = vector_neighbours(app, store, [text], k, filters)[0]
        best = nearest_per_mirror(neighbours)
        docs = store.documents_with_mirrors(list(best), where, params)
        hits = sorted(
            ((best[d.mirror_hash][0], d.uri, d) for d in docs if d.mirror_hash), key=lambda t: t[:2]
        )
        if len(hits) >= inp.limit or len(neighbours) < k or k >= 10_000:
            break
        k *= 4
    scored = [
        (doc, round(max(0.0, min(1.0, 1 - distance / 2)), 6))
        for distance, _, doc in hits[: inp.limit]
    ]
    if inp.minScore is not None:
        scored = [(doc, score) for doc, score in scored if score >= inp.minScore]
    chunk_of = {doc.id: best[doc.mirror_hash or ""][1] for doc, _ in scored}
    builder = ResultBuilder(store, app.paths.index_name, inp.includeAbsPath)
    results = builder.search_results(scored, (), full=inp.full, chunk_seq=chunk_of)
    meta: dict[str, Any] = {
        "query": inp.query,
        "mode": "vector",
        "totalResults": len(results),
        "vectorsUsed": True,
    }
    if filters.collection:
        meta["collection"] = filters.collection
    if filters.collections:
        meta["collections"] = filters.collections
    return SearchResults.model_validate({"results": results, "meta": meta})


def index(
    app: App, inp: IndexInput, progress: Callable[[str, int, int], None] | None = None
) -> IndexResult:
    """`gno index`: sync, then embed (skipped with noEmbed or after an interrupted sync)."""
    return index_collections(app, inp, progress)[0]


def index_collections(
    app: App, inp: IndexInput, progress: Callable[[str, int, int], None] | None = None
) -> tuple[IndexResult, Sequence[Changes]]:
    """`index`, and what its sync changed per collection."""
    from gno.services.sync import sync_collections

    synced, changes = sync_collections(
        app,
        UpdateInput(collection=inp.collection, gitPull=inp.gitPull, runUpdateCmd=inp.runUpdateCmd),
        progress=progress,
    )
    payload: dict[str, Any] = {"syncResult": synced.model_dump(mode="json", exclude_unset=True)}
    if inp.noEmbed or synced.interrupted:
        return IndexResult.model_validate(payload | {"embedSkipped": True}), changes
    embed_progress = (lambda done, total: progress("embed", done, total)) if progress else None
    embedded = embed(app, EmbedInput(collection=inp.collection), progress=embed_progress)
    payload |= {
        "embedSkipped": False,
        "embedResult": embedded.model_dump(mode="json", exclude_unset=True),
    }
    return IndexResult.model_validate(payload), changes
