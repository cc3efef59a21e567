"""`gno vec sync` and `gno vec rebuild` as real processes on a real index whose vectors are
seeded without a model (tests/vector_seed.py): enough of them (64 dims) that KNN searches
the sqlite-vec codes, so a missing or orphan code changes what a search finds."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from gno.adapters.sqlite import knn
from gno.adapters.sqlite.store import SqliteStore
from tests.surfaces.cli_schema import check_json_output
from tests.surfaces.test_cli_process import run
from tests.vector_seed import clustered, seeded_store

pytest.importorskip("sqlite_vec", reason="sqlite-vec is not installed")

N, DIMS, K = 3000, 64, 10


def _index(tmp_path: Path) -> tuple[Path, np.ndarray]:
    root = tmp_path / "notes"
    root.mkdir()
    run("init", str(root), "--name", "notes")  # the config and an empty index file
    db = Path(os.environ["GNO_DATA_DIR"]) / "index-default.sqlite"
    vectors = clustered(N, DIMS, seed=7)
    store, _ = seeded_store(db, vectors)
    store.close()
    return db, vectors


def _open(db: Path) -> tuple[SqliteStore, int]:
    store = SqliteStore.open(db)
    assert store.load_vec()
    model_id = store.find_embed_model(f"test:{DIMS}")
    assert model_id is not None
    return store, model_id


def _nearest(db: Path, queries: np.ndarray) -> list[list[tuple[str, int, float]]]:
    store, model_id = _open(db)
    try:
        found = store.knn(model_id, [q.tobytes() for q in queries], K)
        return [[(m, s, round(d, 6)) for m, s, d in hits] for hits in found]
    finally:
        store.close()


def _vec(*args: str) -> dict:
    done = run("vec", *args, "--json")
    return check_json_output(("vec", *args), done.stdout)


def test_sync_puts_back_a_deleted_code_and_drops_an_orphan(tmp_path: Path) -> None:
    db, vectors = _index(tmp_path)
    queries = vectors[[5, 900, 2999]]
    before = _nearest(db, queries)
    assert before[0][0][2] == 0.0  # a stored vector is its own nearest chunk

    store, model_id = _open(db)
    chunk_id = store.conn.execute(
        "SELECT id FROM chunk_vectors WHERE model_id = ? ORDER BY id LIMIT 1 OFFSET 5",
        (model_id,),
    ).fetchone()[0]
    orphan = chunk_id + 100_000
    with store.write():  # damage: one code gone, one code of no chunk vector
        store.conn.execute(f"DELETE FROM {knn.table(model_id)} WHERE rowid = ?", (chunk_id,))
        store.conn.execute(
            f"INSERT INTO {knn.table(model_id)} (rowid, shard, embedding) "
            f"VALUES (:id, :id % {knn.SHARDS}, {knn.code_sql(':v', DIMS)})",
            {"id": orphan, "v": vectors[0].tobytes(), **knn.code_params(DIMS)},
        )
    store.close()
    damaged = _nearest(db, queries)
    assert damaged[0] != before[0]  # the code search no longer finds chunk 5 itself

    synced = _vec("sync")
    assert (synced["added"], synced["removed"]) == (1, 1)
    assert synced["vectorSets"] == [{"model": "test:model", "added": 1, "removed": 1, "count": N}]
    assert _nearest(db, queries) == before
    again = _vec("sync")
    assert (again["added"], again["removed"]) == (0, 0)
    assert run("vec", "sync").stdout.strip() == "Vec index already in sync."


def test_rebuild_keeps_search_results_and_a_missing_table_comes_back(tmp_path: Path) -> None:
    db, vectors = _index(tmp_path)
    queries = np.vstack([vectors[[1, 1500]], clustered(3, DIMS, seed=99)])
    before = _nearest(db, queries)

    rebuilt = _vec("rebuild")
    assert rebuilt["count"] == N and rebuilt["vectorSets"] == [{"model": "test:model", "count": N}]
    assert _nearest(db, queries) == before

    store, model_id = _open(db)
    with store.write():
        store.conn.execute(f"DROP TABLE {knn.table(model_id)}")
    store.close()
    synced = _vec("sync")
    assert (synced["added"], synced["removed"]) == (N, 0)
    assert _nearest(db, queries) == before


def test_an_index_without_vectors_has_nothing_to_do(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nalpha\n")
    run("init", str(root), "--name", "notes")
    run("update")
    assert _vec("sync") | {"model": ""} == {
        "added": 0, "removed": 0, "model": "", "vectorSets": []
    }  # fmt: skip
    assert _vec("rebuild")["count"] == 0
    assert run("vec", "rebuild").returncode == 0


def test_vec_without_an_index_is_a_runtime_error(tmp_path: Path) -> None:
    done = run("vec", "sync", "--json", check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert json.loads(done.stderr)["error"]["code"] == "RUNTIME"


@pytest.mark.parametrize("damage", ["width", "vector"])
def test_a_damaged_vector_set_is_a_named_error_that_never_advises_the_failing_rebuild(
    tmp_path: Path, damage: str
) -> None:
    db, vectors = _index(tmp_path)
    before = _nearest(db, vectors[[5]])
    store, _ = _open(db)
    with store.write():  # what no rebuild can mend: the record or a stored vector is wrong
        if damage == "width":
            store.conn.execute("UPDATE embed_models SET dims = 'wide'")
        else:
            store.conn.execute("UPDATE text_vectors SET embedding = x'00112233' WHERE id = 7")
    store.close()
    for command in ("sync", "rebuild") if damage == "width" else ("rebuild",):
        done = run("vec", command, "--json", check=False)
        assert done.returncode == 2 and done.stdout == "", done
        message = json.loads(done.stderr)["error"]["message"]
        assert "Internal error" not in message and "test:model" in message, message
        assert "nothing was changed" in message and "`gno vec rebuild`" not in message, message
    if damage == "vector":  # the failed rebuild dropped no code: search answers as before
        assert _nearest(db, vectors[[5]]) == before
