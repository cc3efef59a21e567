"""Exact KNN from memory (gno/adapters/sqlite/knn_memory.py): the same neighbours, distances
and order as the exact scan in SQL, ties, zero vectors and filters included; loaded by a
store on its second exact search in one index state, and dropped when the index changes."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gno.adapters.sqlite import knn_memory  # noqa: E402
from gno.adapters.sqlite.knn import KnnSearch  # noqa: E402
from gno.adapters.sqlite.knn_memory import VectorMatrix  # noqa: E402
from gno.adapters.sqlite.vectors import vec_extension_path  # noqa: E402
from tests.vector_seed import clustered, seeded_store  # noqa: E402

pytestmark = pytest.mark.skipif(vec_extension_path() is None, reason="sqlite-vec not installed")

DIMS = 64
COLLECTIONS = ("a", "b", "c")


def _vectors() -> np.ndarray:
    """Clustered unit vectors with exact duplicates (ties in distance) and two zero rows."""
    vectors = clustered(600, DIMS, seed=7)
    vectors[40:60] = vectors[5]  # twenty chunks tied with chunk 5 for every query
    vectors[300] = vectors[301] = 0
    return vectors


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    path = tmp_path_factory.mktemp("memory") / "index.sqlite"
    vectors = _vectors()
    store, model_id = seeded_store(path, vectors, COLLECTIONS)
    yield store, model_id, vectors, VectorMatrix.load(store.conn, model_id, DIMS)
    store.close()


def _search(store, model_id, where="", params=(), matrix=None) -> KnnSearch:
    total = store.vector_count(model_id)
    memory = None if matrix is None else (lambda: matrix)
    return KnnSearch(store.conn, model_id, DIMS, total, where, params, memory=memory)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    row=st.integers(min_value=0, max_value=599),
    random_query=st.booleans(),
    k=st.integers(min_value=1, max_value=700),
    collection=st.sampled_from([None, *COLLECTIONS]),
    seed=st.integers(min_value=0, max_value=2**16),
)
def test_memory_answers_what_the_sql_scan_answers(index, row, random_query, k, collection, seed):
    store, model_id, vectors, matrix = index
    if random_query:
        query = np.random.default_rng(seed).standard_normal(DIMS).astype(np.float32)
    else:
        query = vectors[row]  # a stored vector: a duplicate group or a zero row ties
    where, params = ("AND collection = ?", (collection,)) if collection else ("", ())
    sql = _search(store, model_id, where, params)._exact(query.tobytes(), k)
    memory = _search(store, model_id, where, params, matrix)._exact(query.tobytes(), k)
    assert memory == sql


def test_a_zero_query_ranks_everything_at_distance_one_by_chunk_key(index):
    store, model_id, _, matrix = index
    zero = np.zeros(DIMS, dtype=np.float32).tobytes()
    found = _search(store, model_id, matrix=matrix)._exact(zero, 25)
    assert found == _search(store, model_id)._exact(zero, 25)
    assert {d for _, _, d in found} == {1.0}


def test_a_store_keeps_the_vectors_from_its_second_exact_search_until_the_index_changes(
    tmp_path,
):
    vectors = clustered(90, DIMS, seed=3)  # small: every search is an exact scan
    store, model_id = seeded_store(tmp_path / "index.sqlite", vectors)
    query = vectors[7].tobytes()
    first = store.knn(model_id, [query], 10)[0]
    assert store._matrices[model_id][1] is None  # a one-shot command stops here: SQL only
    second = store.knn(model_id, [query], 10)[0]
    kept = store._matrices[model_id][1]
    assert kept is not None and second == first
    assert store.knn(model_id, [query], 10)[0] == first and store._matrices[model_id][1] is kept
    nearest = first[0][0]
    with store.write():  # the nearest document goes away: a new index state
        store.conn.execute("UPDATE documents SET active = 0 WHERE mirror_hash = ?", (nearest,))
    third = store.knn(model_id, [query], 10)[0]
    assert store._matrices[model_id][1] is None  # the old vectors are not used
    assert nearest not in {m for m, _, _ in third}
    assert store.knn(model_id, [query], 10)[0] == third
    assert store._matrices[model_id][1] is not None
    store.close()


def test_a_model_too_large_for_memory_is_always_scanned_in_sql(tmp_path, monkeypatch):
    monkeypatch.setattr(knn_memory, "MAX_BYTES", 90 * DIMS * 4 - 1)
    vectors = clustered(90, DIMS, seed=4)
    store, model_id = seeded_store(tmp_path / "index.sqlite", vectors)
    query = vectors[1].tobytes()
    answers = [store.knn(model_id, [query], 10)[0] for _ in range(3)]
    assert answers[0] == answers[1] == answers[2]
    assert not (store._matrices or {}).get(model_id)
    store.close()
