"""Stores with thousands of known vectors, for KNN tests that need more chunks than a model
can embed in a test: documents, mirrors and chunks go in as rows of the real schema, the
vectors through the store's own ``save_embeddings``."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from gno.adapters.sqlite.store import SqliteStore

CHUNKS_PER_DOC = 3


def clustered(n: int, dims: int, seed: int = 0, topics: int = 40) -> np.ndarray:
    """Unit vectors around ``topics`` centroids with a shared lean, like sentence embeddings
    (uniform random vectors have no near neighbours, which no real corpus looks like)."""
    rng = np.random.default_rng(seed)
    common = rng.standard_normal(dims)
    centroids = rng.standard_normal((topics, dims))
    topic = rng.integers(0, topics, n)
    x = 0.5 * common + centroids[topic] + 1.1 * rng.standard_normal((n, dims))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def mirror_of(doc: int) -> str:
    return hashlib.sha256(b"mirror %d" % doc).hexdigest()


def seed_documents(store: SqliteStore, docs: int, collections: tuple[str, ...]) -> None:
    """``docs`` active documents of CHUNKS_PER_DOC chunks; document i is in collection
    collections[i % len(collections)] and has mirror ``mirror_of(i)``."""
    with store.write():
        store.conn.executemany(
            "INSERT INTO content (mirror_hash, markdown, line_count) VALUES (?, ?, ?)",
            [(mirror_of(i), "x\n" * CHUNKS_PER_DOC, CHUNKS_PER_DOC) for i in range(docs)],
        )
        store.conn.executemany(
            "INSERT INTO content_chunks (mirror_hash, seq, pos, end_pos, start_line, end_line) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (mirror_of(i), s, 2 * s, 2 * s + 1, s + 1, s + 1)
                for i in range(docs)
                for s in range(CHUNKS_PER_DOC)
            ],
        )
        store.conn.executemany(
            "INSERT INTO documents (collection, rel_path, source_mime, source_ext, source_size, "
            "source_mtime_ns, uri, title, mirror_hash, active, ingest_version, created_at, updated_at) "
            "VALUES (?, ?, 'text/markdown', '.md', 1, 0, ?, ?, ?, 1, 1, '', '')",
            [
                (c := collections[i % len(collections)], f"d{i}.md", f"gno://{c}/d{i}.md", f"doc {i}", mirror_of(i))
                for i in range(docs)
            ],
        )  # fmt: skip


def seeded_store(
    path: Path, vectors: np.ndarray, collections: tuple[str, ...] = ("a",)
) -> tuple[SqliteStore, int]:
    """A store whose chunk (mirror_of(i // CHUNKS_PER_DOC), i % CHUNKS_PER_DOC) has vectors[i]."""
    store = SqliteStore.open(path, create=True)
    assert store.load_vec(), "sqlite-vec is needed"
    seed_documents(store, -(-len(vectors) // CHUNKS_PER_DOC), collections)
    model_id = store.embed_model("test:model", f"test:{vectors.shape[1]}", vectors.shape[1])
    save_vectors(store, model_id, vectors)
    return store, model_id


def save_vectors(store: SqliteStore, model_id: int, vectors: np.ndarray, start: int = 0) -> None:
    """Embed chunks start… with these vectors, one text hash per distinct vector."""
    texts = {hashlib.sha256(v.tobytes()).hexdigest(): v.tobytes() for v in vectors}
    chunks = [
        (
            mirror_of((start + i) // CHUNKS_PER_DOC),
            (start + i) % CHUNKS_PER_DOC,
            hashlib.sha256(v.tobytes()).hexdigest(),
        )
        for i, v in enumerate(vectors)
    ]
    with store.write():
        store.save_embeddings(model_id, texts, chunks)


def chunk_numbers(chunks: int) -> dict[tuple[str, int], int]:
    """(mirror_hash, seq) -> row number in the seeded vectors (to compare with numpy)."""
    return {(mirror_of(i // CHUNKS_PER_DOC), i % CHUNKS_PER_DOC): i for i in range(chunks)}
