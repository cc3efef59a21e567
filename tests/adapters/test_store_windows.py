"""Migration 5 (``chunk_vectors.win``) on an index written at version 4, and window vectors
in the store: several vectors per chunk, KNN over all of them, status counting chunks."""

from __future__ import annotations

import hashlib

import pytest

np = pytest.importorskip("numpy")

from gno.adapters.sqlite import store as store_module  # noqa: E402
from gno.adapters.sqlite.migrations import MIGRATIONS  # noqa: E402
from gno.adapters.sqlite.store import SqliteStore  # noqa: E402
from gno.adapters.sqlite.vectors import vec_extension_path  # noqa: E402
from tests.vector_seed import clustered, mirror_of, seed_documents, seeded_store  # noqa: E402

pytestmark = pytest.mark.skipif(vec_extension_path() is None, reason="sqlite-vec not installed")


def test_migration_5_keeps_ids_sequence_and_triggers(tmp_path, monkeypatch) -> None:
    path = tmp_path / "index.sqlite"
    vectors = clustered(30, 16)
    with monkeypatch.context() as patched:
        patched.setattr(store_module, "MIGRATIONS", [m for m in MIGRATIONS if m[0] <= 4])
        store, model_id = _v4_store(path, vectors)
        # Delete the newest chunk vector: its id must never be handed out again.
        store.conn.execute(
            "DELETE FROM chunk_vectors WHERE id = (SELECT max(id) FROM chunk_vectors)"
        )
        before = store.conn.execute("SELECT id, mirror_hash, seq, vector_id FROM chunk_vectors ORDER BY id").fetchall()  # fmt: skip
        high = store.conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'chunk_vectors'").fetchone()[0]  # fmt: skip
        store.close()
    store = SqliteStore.open(path)
    assert store.schema_version() >= 5
    rows = store.conn.execute("SELECT id, mirror_hash, seq, vector_id, win FROM chunk_vectors ORDER BY id").fetchall()  # fmt: skip
    assert [tuple(r[:4]) for r in rows] == [tuple(r) for r in before] and {r[4] for r in rows} == {
        0
    }
    assert store.load_vec()
    # A second window of a chunk is a new row with a fresh id above the old high-water mark;
    # the count trigger still runs and KNN returns the chunk for either vector.
    h = hashlib.sha256(b"window").hexdigest()
    with store.write():
        store.save_embeddings(model_id, {h: vectors[0].tobytes()}, [(mirror_of(3), 1, h, 1)])
    new_id = store.conn.execute("SELECT max(id) FROM chunk_vectors").fetchone()[0]
    assert new_id > high
    assert store.vector_count(model_id) == len(before) + 1
    hits = store.knn(model_id, [vectors[0].tobytes()], 2)[0]
    assert {(m, s) for m, s, _ in hits} == {(mirror_of(0), 0), (mirror_of(3), 1)}
    assert store.embedded_chunks(model_id) == {"a": len(before)}  # windows are not chunks
    store.close()


def _v4_store(path, vectors):
    store = SqliteStore.open(path, create=True)
    assert store.schema_version() == 4
    seed_documents(store, 10, ("a",))
    store.load_vec()
    model_id = store.embed_model("test:model", "fp", vectors.shape[1])
    texts = {hashlib.sha256(v.tobytes()).hexdigest(): v.tobytes() for v in vectors}
    with store.write():
        store.conn.executemany(
            "INSERT INTO text_vectors (model_id, text_hash, embedding) VALUES (?, ?, ?)",
            [(model_id, h, blob) for h, blob in texts.items()],
        )
        store.conn.executemany(
            "INSERT INTO chunk_vectors (model_id, mirror_hash, seq, vector_id, embedded_at) "
            "VALUES (?, ?, ?, (SELECT id FROM text_vectors WHERE text_hash = ?), '')",
            [
                (model_id, mirror_of(i // 3), i % 3, hashlib.sha256(v.tobytes()).hexdigest())
                for i, v in enumerate(vectors)
            ],
        )
    return store, model_id


def test_a_chunk_holds_one_vector_per_window(tmp_path) -> None:
    vectors = clustered(6, 16)
    store, model_id = seeded_store(tmp_path / "w.sqlite", vectors)
    extra = {hashlib.sha256(b"w%d" % w).hexdigest(): vectors[5 - w].tobytes() for w in (1, 2)}
    with store.write():
        store.save_embeddings(model_id, extra, [(mirror_of(0), 0, h, w) for w, h in zip((1, 2), extra, strict=True)])  # fmt: skip
    with pytest.raises(Exception, match="UNIQUE"), store.write():  # one vector per window
        store.save_embeddings(model_id, {}, [(mirror_of(0), 0, next(iter(extra)), 1)])
    # The chunk (doc 0, seq 0) is found through its window 2, which holds vectors[3].
    hits = store.knn(model_id, [vectors[3].tobytes()], 3)[0]
    assert (mirror_of(0), 0) in {(m, s) for m, s, _ in hits[:2]}
    assert store.embedded_chunks(model_id) == {"a": 6}
    store.close()
