"""KNN in the store on real files: recall against brute force, filters before k, the
structures staying in step through clears, re-embeds and cascaded deletes, other widths."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gno.adapters.sqlite.store import SqliteStore  # noqa: E402
from gno.adapters.sqlite.vectors import vec_extension_path  # noqa: E402
from gno.core.knn_plan import CODE_MIN_DIMS, exact_limit  # noqa: E402
from gno.errors import ValidationError  # noqa: E402
from tests.vector_seed import (  # noqa: E402
    CHUNKS_PER_DOC,
    chunk_numbers,
    clustered,
    mirror_of,
    save_vectors,
    seeded_store,
)

pytestmark = pytest.mark.skipif(vec_extension_path() is None, reason="sqlite-vec not installed")

COLLECTIONS = ("a", "b", "c", "d", "e", "f")


def exact_top(vectors, query, k, allowed=None) -> list[int]:
    """Row numbers of the k nearest by cosine (ties by row number, as chunk keys sort here)."""
    norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(query)
    scores = np.divide(vectors @ query, norms, out=np.zeros(len(vectors)), where=norms > 0)
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    order = np.lexsort((np.arange(len(vectors)), -scores))
    return [int(i) for i in order[:k] if np.isfinite(scores[i])]


def recall(store, model_id, vectors, queries, k=10, where="", allowed=None) -> float:
    numbers, hits = chunk_numbers(len(vectors)), 0
    for query in queries:
        found = store.knn(model_id, [query.tobytes()], k, where)[0]
        hits += len(
            {numbers[m, s] for m, s, _ in found} & set(exact_top(vectors, query, k, allowed))
        )
    return hits / (k * len(queries))


def check_neighbours(found, vectors, query, numbers) -> None:
    """Ordered by (distance, chunk key); every distance is the exact cosine distance."""
    assert found == sorted(found, key=lambda n: (n[2], n[0], n[1]))
    for mirror_hash, seq, distance in found:
        v = vectors[numbers[mirror_hash, seq]]
        cosine = float(v @ query / (np.linalg.norm(v) * np.linalg.norm(query)))
        assert distance == pytest.approx(1 - cosine, abs=1e-5)


def assert_in_step(store: SqliteStore, model_id: int) -> None:
    """Codes exist for exactly the chunk vectors; the count kept by triggers is right."""
    ids = {
        r[0]
        for r in store.conn.execute("SELECT id FROM chunk_vectors WHERE model_id = ?", (model_id,))
    }
    codes = {r[0] for r in store.conn.execute(f"SELECT rowid FROM vec_{model_id}")}
    stale = {
        r[0]
        for r in store.conn.execute(
            "SELECT chunk_id FROM knn_stale WHERE model_id = ?", (model_id,)
        )
    }
    assert codes - stale == ids and not ids & stale
    assert store.vector_count(model_id) == len(ids)  # fmt: skip


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """3,999 384-d clustered vectors (1,333 documents) in 6 collections, 50 more as queries:
    far above the exact-scan size."""
    vectors = clustered(4049, 384, seed=1)
    store, model_id = seeded_store(
        tmp_path_factory.mktemp("knn") / "i.sqlite", vectors[:3999], COLLECTIONS
    )
    yield store, model_id, vectors[:3999], vectors[3999:]
    store.close()  # fmt: skip


def test_recall_at_10_against_brute_force(big):
    store, model_id, vectors, queries = big
    assert exact_limit(len(vectors), 10, 384) < len(vectors)  # the coarse path, not a scan
    assert recall(store, model_id, vectors, queries) >= 0.99
    numbers = chunk_numbers(len(vectors))
    for query in queries[:10]:
        check_neighbours(store.knn(model_id, [query.tobytes()], 30)[0], vectors, query, numbers)


def test_several_queries_in_one_call(big):
    store, model_id, _, queries = big
    batch = store.knn(model_id, [q.tobytes() for q in queries[:3]], 7)
    assert batch == [store.knn(model_id, [q.tobytes()], 7)[0] for q in queries[:3]]


def test_filtered_recall_on_both_paths(big):
    """Half the rows (coarse with a filter) and a sixth (exact scan of the allowed set)."""
    store, model_id, vectors, queries = big
    doc_collection = np.array([COLLECTIONS[i // CHUNKS_PER_DOC % 6] for i in range(len(vectors))])
    half = np.isin(doc_collection, ("a", "c", "e"))
    assert exact_limit(len(vectors), 10, 384) < half.sum()
    where = "AND collection IN ('a', 'c', 'e')"
    assert recall(store, model_id, vectors, queries, where=where, allowed=half) >= 0.99
    sixth = doc_collection == "b"
    assert exact_limit(len(vectors), 10, 384) >= sixth.sum()
    assert (
        recall(store, model_id, vectors, queries, where="AND collection = 'b'", allowed=sixth)
        == 1.0
    )


def test_a_filter_that_keeps_only_far_rows_widens_the_search(big):
    """The allowed documents are the half farthest from the query: the first round of codes
    holds almost none of them, so the shard budgets must grow."""
    store, model_id, vectors, queries = big
    query = queries[0]
    doc_scores = (vectors @ query).reshape(-1, CHUNKS_PER_DOC).max(axis=1)
    far_docs = np.argsort(doc_scores)[: len(doc_scores) // 2]
    allowed = np.isin(np.arange(len(vectors)) // CHUNKS_PER_DOC, far_docs)
    where = f"AND title IN ({','.join(repr(f'doc {i}') for i in far_docs)})"
    found = store.knn(model_id, [query.tobytes()], 10, where)[0]
    numbers = chunk_numbers(len(vectors))
    assert [numbers[m, s] for m, s, _ in found] == exact_top(vectors, query, 10, allowed)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    chosen=st.sets(st.sampled_from(COLLECTIONS)),
    k=st.integers(min_value=1, max_value=60),
    query_row=st.integers(min_value=0, max_value=49),
)
def test_no_disallowed_chunk_and_k_of_the_allowed(big, chosen, k, query_row):
    store, model_id, vectors, queries = big
    query = queries[query_row]
    marks = ",".join(f"'{c}'" for c in sorted(chosen))
    found = store.knn(model_id, [query.tobytes()], k, f"AND collection IN ({marks})")[0]
    numbers = chunk_numbers(len(vectors))
    allowed_chunks = sum(
        CHUNKS_PER_DOC
        for i in range(len(vectors) // CHUNKS_PER_DOC)
        if COLLECTIONS[i % 6] in chosen
    )
    assert len(found) == min(k, allowed_chunks)
    assert all(COLLECTIONS[numbers[m, s] // CHUNKS_PER_DOC % 6] in chosen for m, s, _ in found)
    check_neighbours(found, vectors, query, numbers)  # fmt: skip


def test_small_tables_are_exact(tmp_path):
    vectors = clustered(330, 384, seed=2)
    store, model_id = seeded_store(tmp_path / "i.sqlite", vectors[:300])
    numbers = chunk_numbers(300)
    for query in vectors[300:]:
        for k in (1, 10, 50):
            found = store.knn(model_id, [query.tobytes()], k)[0]
            assert [numbers[m, s] for m, s, _ in found] == exact_top(vectors[:300], query, k)
    store.close()


@pytest.mark.parametrize("dims", [30, 100, 768])
def test_other_widths(tmp_path, dims):
    """Codes pad to whole bytes and the threshold scales with the width; narrow models
    (the tiny BERT has 32 dimensions) are scanned exactly."""
    vectors = clustered(2040, dims, seed=dims)
    store, model_id = seeded_store(tmp_path / "i.sqlite", vectors[:2000])
    assert (exact_limit(2000, 10, dims) < 2000) == (dims >= CODE_MIN_DIMS)
    assert recall(store, model_id, vectors[:2000], vectors[2000:]) >= (
        0.99 if dims >= CODE_MIN_DIMS else 1.0
    )
    store.close()


def test_unnormalized_and_zero_vectors(tmp_path):
    vectors = clustered(1200, 64, seed=3) * np.linspace(0.5, 3, 1200, dtype=np.float32)[:, None]
    vectors[7] = 0
    store, model_id = seeded_store(tmp_path / "i.sqlite", vectors)
    numbers = chunk_numbers(len(vectors))
    assert recall(store, model_id, vectors, vectors[100:120] * 5, k=5) >= 0.99
    found = store.knn(model_id, [np.zeros(64, np.float32).tobytes()], 4)[0]
    assert [d for *_, d in found] == [1.0] * 4 and found == sorted(
        found
    )  # no direction: orthogonal
    everything = store.knn(model_id, [vectors[8].tobytes()], 1200)[0]
    assert (mirror_of(7 // CHUNKS_PER_DOC), 7 % CHUNKS_PER_DOC, 1.0) in everything
    assert numbers[everything[0][:2]] == 8
    store.close()


def test_clear_and_reembed_keep_the_structures_in_step(tmp_path):
    vectors = clustered(1500, 48, seed=4)
    store, model_id = seeded_store(tmp_path / "i.sqlite", vectors, ("a", "b"))
    assert_in_step(store, model_id)
    query = vectors[0].tobytes()
    assert store.clear_vectors(model_id, "a") == 750
    assert_in_step(store, model_id)
    assert all(int(store.conn.execute("SELECT collection FROM documents WHERE mirror_hash = ?", (m,)).fetchone()[0] == "b") for m, _, _ in store.knn(model_id, [query], 50)[0])  # fmt: skip
    texts_before = store.conn.execute("SELECT count(*) FROM text_vectors").fetchone()[0]
    save_vectors(store, model_id, vectors[:3], start=0)  # collection a's first document again
    assert store.conn.execute("SELECT count(*) FROM text_vectors").fetchone()[0] == texts_before
    assert_in_step(store, model_id)
    assert store.knn(model_id, [query], 1)[0][0][:2] == (mirror_of(0), 0)
    assert store.clear_vectors(model_id) == 753
    assert_in_step(store, model_id)
    assert store.knn(model_id, [query], 5) == [[]]
    save_vectors(store, model_id, vectors)
    assert_in_step(store, model_id)
    assert store.vector_count(model_id) == 1500
    store.close()


def test_cascaded_deletes_without_sqlite_vec_are_dropped_later(tmp_path):
    """Sync and cleanup delete chunks without loading sqlite-vec: codes go stale, searches
    skip them, and the next embed run deletes them."""
    vectors = clustered(1500, 48, seed=5)
    store, model_id = seeded_store(tmp_path / "i.sqlite", vectors, ("a", "b"))
    plain = SqliteStore.open(tmp_path / "i.sqlite")  # another process, no sqlite-vec
    with plain.write():
        plain.conn.execute("UPDATE documents SET active = 0 WHERE collection = 'b'")
    plain.cleanup()
    plain.close()
    assert store.vector_count(model_id) == 750
    assert store.conn.execute("SELECT count(*) FROM knn_stale").fetchone()[0] == 750
    numbers = chunk_numbers(1500)
    found = store.knn(model_id, [vectors[3].tobytes()], 40)[0]
    assert len(found) == 40 and all(numbers[m, s] // CHUNKS_PER_DOC % 2 == 0 for m, s, _ in found)
    assert store.embed_model("test:model", "test:48", 48) == model_id  # what embed runs first
    assert store.conn.execute("SELECT count(*) FROM knn_stale").fetchone()[0] == 0
    assert_in_step(store, model_id)
    store.close()


def test_vectors_of_another_width_are_refused_before_any_write(tmp_path):
    vectors = clustered(10, 48, seed=6)
    store, model_id = seeded_store(tmp_path / "i.sqlite", vectors)
    with pytest.raises(ValidationError, match="32 dimensions for a model of 48"):
        store.knn(model_id, [np.zeros(32, np.float32).tobytes()], 5)
    with pytest.raises(ValidationError), store.write():
        store.save_embeddings(
            model_id, {"h": np.zeros(32, np.float32).tobytes()}, [(mirror_of(0), 0, "h")]
        )
    assert store.conn.execute("SELECT count(*) FROM text_vectors").fetchone()[0] == 10
    assert_in_step(store, model_id)
    store.close()
