"""The REST result cache (``gno.rest.result_cache``) on a real index: what it answers,
and every change that must make it stop answering."""

from __future__ import annotations

import os
from pathlib import Path

from gno_contracts.models.search_input import SearchInput

from gno.app import App
from gno.paths import resolve_paths
from gno.rest.result_cache import ResultCache
from tests.conftest import sync, write_tree

CORPUS = {"a.md": "# Alpha\n\nalpha beta\n", "b.md": "# Beta\n\nbeta gamma\n"}


def _cache(app: App, **limits: int) -> ResultCache:
    return ResultCache(app.paths.db_path, app.paths.config_file, **limits)


def _inp(query: str = "beta", **fields: object) -> SearchInput:
    return SearchInput.model_validate({"query": query, "limit": 10, **fields})


def _fill(cache: ResultCache, body: bytes = b"answer", inp: SearchInput | None = None) -> None:
    slot = cache.slot("search", inp or _inp(), True)
    assert slot is not None and slot.body is None
    slot.keep(body)


def test_same_input_same_generation_is_a_hit_and_keys_differ_by_input_and_caller(make_app):
    app, _ = make_app(CORPUS)
    sync(app)
    cache = _cache(app)
    _fill(cache, b"first")
    slot = cache.slot("search", _inp(), True)
    assert slot is not None and slot.body == b"first"
    assert cache.slot("search", _inp(), False).body is None  # remote caller: own entry
    assert cache.slot("search", _inp(limit=5), True).body is None
    assert cache.slot("search", _inp(intent="x"), True).body is None
    assert (cache.hits, cache.misses) == (1, 4)
    cache.close()


def test_only_search_without_clock_relative_dates_is_cached(make_app):
    app, _ = make_app(CORPUS)
    sync(app)
    cache = _cache(app)
    assert cache.slot("query", _inp(), True) is None
    assert cache.slot("search", _inp(since="today"), True) is None
    assert cache.slot("search", _inp(until="2024-01-01"), True) is None
    assert _cache(app, max_entries=0).slot("search", _inp(), True) is None
    cache.close()


def test_a_commit_by_another_connection_or_process_invalidates(make_app):
    app, root = make_app(CORPUS)
    sync(app)
    cache = _cache(app)
    _fill(cache)
    write_tree(root, {"c.md": "beta delta\n"})
    sync(app)  # the owner App's own connection commits
    assert cache.slot("search", _inp(), True).body is None
    _fill(cache)
    assert cache.slot("search", _inp(), True).body == b"answer"
    (root / "c.md").unlink()
    other = App(resolve_paths())  # as `gno update` in another process: its own connection
    sync(other)
    other.close()
    assert cache.slot("search", _inp(), True).body is None
    cache.close()


def test_an_index_yml_edit_invalidates_before_any_reader_mirrors_it(make_app):
    app, _ = make_app(CORPUS)
    sync(app)
    cache = _cache(app)
    _fill(cache)
    config = app.paths.config_file
    config.write_text(config.read_text() + "\n# edited\n")
    assert cache.slot("search", _inp(), True).body is None
    cache.close()


def test_a_recreated_index_file_invalidates(make_app):
    app, _ = make_app(CORPUS)
    sync(app)
    cache = _cache(app)
    _fill(cache)
    app.close()
    db = app.paths.db_path
    for side in db.parent.glob(db.name + "*"):
        side.unlink()
    fresh = App(resolve_paths())
    sync(fresh)  # a new index file (new inode), data_version of a new connection
    fresh.close()
    assert cache.slot("search", _inp(), True).body is None
    cache.close()


def test_no_index_no_caching(tmp_path: Path):
    cache = ResultCache(tmp_path / "missing.sqlite", tmp_path / "index.yml")
    assert cache.slot("search", _inp(), True) is None
    assert not os.path.exists(tmp_path / "missing.sqlite")


def test_entries_are_bounded_least_recently_used_first(make_app):
    app, _ = make_app(CORPUS)
    sync(app)
    cache = _cache(app, max_entries=2)
    _fill(cache, b"1", _inp(limit=1))
    _fill(cache, b"2", _inp(limit=2))
    assert cache.slot("search", _inp(limit=1), True).body == b"1"  # now the most recent
    _fill(cache, b"3", _inp(limit=3))
    assert cache.slot("search", _inp(limit=2), True).body is None  # evicted
    assert cache.slot("search", _inp(limit=1), True).body == b"1"
    cache.close()


def test_bytes_are_bounded_and_huge_answers_not_kept(make_app):
    app, _ = make_app(CORPUS)
    sync(app)
    cache = _cache(app, max_bytes=8000)
    for limit in range(1, 10):  # nine answers of 1,000 bytes: the first one goes
        _fill(cache, b"x" * 1000, _inp(limit=limit))
    assert cache.slot("search", _inp(limit=1), True).body is None
    assert cache.slot("search", _inp(limit=9), True).body == b"x" * 1000
    _fill(cache, b"y" * 1001, _inp(limit=20))  # over an eighth of the budget
    assert cache.slot("search", _inp(limit=20), True).body is None
    cache.close()
