"""Migration 3 on an index written by migration 2's layout (float vec0 table per model,
text vectors in a WITHOUT ROWID table): every vector stays searchable, shared text
vectors stay shared, and without sqlite-vec the KNN table is rebuilt on its first load."""

from __future__ import annotations

import hashlib

import apsw
import pytest

np = pytest.importorskip("numpy")

from gno.adapters.sqlite import store as store_module  # noqa: E402
from gno.adapters.sqlite import vectors as vectors_module  # noqa: E402
from gno.adapters.sqlite.knn import KNN_LAYOUT  # noqa: E402
from gno.adapters.sqlite.migrations import MIGRATIONS  # noqa: E402
from gno.adapters.sqlite.store import SqliteStore  # noqa: E402
from gno.adapters.sqlite.vectors import vec_extension_path  # noqa: E402
from tests.vector_seed import CHUNKS_PER_DOC, chunk_numbers, clustered, seed_documents  # noqa: E402

pytestmark = pytest.mark.skipif(vec_extension_path() is None, reason="sqlite-vec not installed")

DIMS = 96


def write_m002_index(path, vectors, monkeypatch) -> None:
    """What gno wrote before migration 3: the schema of steps 1-2 (run by the store itself)
    and vectors as migration 2's code stored them. Chunks 2k and 2k+1 share one text."""
    with monkeypatch.context() as patched:
        patched.setattr(store_module, "MIGRATIONS", [m for m in MIGRATIONS if m[0] <= 2])
        store = SqliteStore.open(path, create=True)
        assert store.schema_version() == 2
        seed_documents(store, -(-len(vectors) // CHUNKS_PER_DOC), ("a",))
        store.close()
    conn = apsw.Connection(str(path))
    conn.enable_load_extension(True)
    conn.load_extension(vec_extension_path())
    conn.execute("PRAGMA foreign_keys = ON")
    with conn:
        conn.execute(
            "INSERT INTO embed_models (id, model_uri, fingerprint, dims, created_at) "
            f"VALUES (1, 'test:model', 'fp', {DIMS}, '')"
        )
        conn.execute(
            f"CREATE VIRTUAL TABLE vec_1 USING vec0(embedding float[{DIMS}] distance_metric=cosine)"
        )
        numbers = chunk_numbers(len(vectors))
        texts = {i: hashlib.sha256(vectors[i - i % 2].tobytes()).hexdigest() for i in numbers.values()}  # fmt: skip
        conn.executemany(
            "INSERT OR IGNORE INTO text_vectors VALUES (1, ?, ?)",
            [(texts[i], vectors[i - i % 2].tobytes()) for i in numbers.values()],
        )
        for (mirror_hash, seq), i in numbers.items():
            conn.execute(
                "INSERT INTO chunk_vectors (id, model_id, mirror_hash, seq, text_hash, embedded_at) "
                "VALUES (?, 1, ?, ?, ?, '')",
                (i + 1, mirror_hash, seq, texts[i]),
            )
            conn.execute(
                "INSERT INTO vec_1 (rowid, embedding) VALUES (?, ?)",
                (i + 1, vectors[i - i % 2].tobytes()),
            )
    conn.close()


def assert_every_vector_searchable(store: SqliteStore, vectors) -> None:
    numbers = chunk_numbers(len(vectors))
    for (mirror_hash, seq), i in numbers.items():
        if i % 7:
            continue  # a sample keeps the test short; the shared-vector pairs are all covered
        found = store.knn(1, [vectors[i - i % 2].tobytes()], 2)[0]
        assert (mirror_hash, seq) in {(m, s) for m, s, _ in found}
        assert all(d == pytest.approx(0, abs=1e-5) for *_, d in found)


@pytest.fixture
def vectors():
    return clustered(1800, DIMS, seed=9)


def test_m002_index_migrates_with_every_vector_searchable(tmp_path, vectors, monkeypatch):
    write_m002_index(tmp_path / "i.sqlite", vectors, monkeypatch)
    store = SqliteStore.open(tmp_path / "i.sqlite")
    assert store.schema_version() == max(v for v, _ in MIGRATIONS)
    conn = store.conn
    assert conn.execute("SELECT knn_layout, vectors FROM embed_models").fetchone() == (KNN_LAYOUT, 1800)  # fmt: skip
    assert conn.execute("SELECT count(*) FROM text_vectors").fetchone()[0] == 900  # still shared
    assert conn.execute(
        "SELECT count(DISTINCT vector_id), count(*) FROM chunk_vectors"
    ).fetchone() == (900, 1800)
    assert (
        "WITHOUT ROWID"
        not in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'text_vectors'").fetchone()[
            0
        ]
    )
    assert store.load_vec()
    assert "bit[192]" in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_1'").fetchone()[0]  # fmt: skip
    assert_every_vector_searchable(store, vectors)
    store.close()
    assert SqliteStore.open(tmp_path / "i.sqlite").schema_version() == max(v for v, _ in MIGRATIONS)


def test_without_sqlite_vec_the_knn_table_is_rebuilt_on_first_load(tmp_path, vectors, monkeypatch):
    write_m002_index(tmp_path / "i.sqlite", vectors, monkeypatch)
    with monkeypatch.context() as patched:  # this process has no sqlite-vec installed
        patched.setattr(vectors_module, "vec_extension_path", lambda: None)
        store = SqliteStore.open(tmp_path / "i.sqlite")
        assert store.conn.execute("SELECT knn_layout FROM embed_models").fetchone()[0] == 0
        assert not store.load_vec()
        store.close()
    store = SqliteStore.open(tmp_path / "i.sqlite")
    assert store.load_vec()
    assert store.conn.execute("SELECT knn_layout FROM embed_models").fetchone()[0] == KNN_LAYOUT
    assert_every_vector_searchable(store, vectors)
    store.close()
