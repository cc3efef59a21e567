"""FTS5 prefix indexes (migration 10, ``gno.adapters.sqlite.fts_schema``) change how a prefix
term is read, never what a search answers: on a fixed corpus whose words share prefixes of
every length, an index written before migration 10, the same index after it, and a new
index built with prefix indexes give the same hits in the same order, with the same raw
BM25 ranks, normalised scores and snippets."""

from __future__ import annotations

import random
from typing import Any

import apsw
import pytest
from gno_contracts.models.search_input import SearchInput

from gno.adapters.sqlite import store as store_module
from gno.adapters.sqlite.fts_schema import PREFIX_LENGTHS, fts_table_sql, rebuild_fts
from gno.adapters.sqlite.migrations import MIGRATIONS
from gno.app import App
from gno.core.fts import parse_query
from gno.paths import resolve_paths
from gno.services.filters import build_filters
from gno.services.search import ranked_window
from tests.conftest import search, sync

# Families of words sharing a stem prefix, from 2 to 15 characters after stemming.
FAMILIES = [
    "us use user users usage useful",
    "log logs logger logging logic login logo",
    "api apis apiserver",
    "span spans spanner spanning",
    "sample sampler sampling samples sampled",
    "process processor processing processes processed",
    "export exporter exporters exporting",
    "instrument instrumentation instrumented instruments",
    "configuration configure configured configurable",
    "exponential exponent exponentially",
    "kubernetes kube kubelet",
    "traceparent tracestate trace tracer tracing",
    "internationalization international internal",
    "w3c otlp grpc http https",
]
FILLER = ["the", "a", "of", "and", "to", "in", "for", "with", "data", "value", "signal", "metric"]
QUERIES = [
    "us", "use", "log", "logs", "logging", "api", "span", "spans links", "sampling",
    "tail sampling processor", "processor", "export", "exporter otlp", "instrumentation",
    "configuration", "configurable", "exponential", "kubernetes", "traceparent",
    "internationalization", "international", "w3c", "grpc http", '"span processor"',
    "sampling -tail", "logger api", "user usage", "nothing-matches-this zebra",
    "process processing exporter", "トレース", "sampling zebra",
]  # fmt: skip


def corpus() -> dict[str, str]:
    rng = random.Random(20261202)
    words = [w for family in FAMILIES for w in family.split()]
    notes = {}
    for i in range(60):
        title = " ".join(rng.sample(words, 2)).title()
        body = " ".join(rng.choice(words + FILLER * 2) for _ in range(rng.randint(20, 160)))
        if i % 7 == 0:
            body += "\n\ntail sampling processor, span processor and トレースの設定。"
        notes[f"{rng.choice(['en', 'ops', 'dev'])}/note-{i:02}.md"] = f"# {title}\n\n{body}\n"
    return notes


def answers(app: App) -> dict[str, Any]:
    """Every query's page (uri, score, snippet, relaxed) and raw ranked window (path, bm25)."""
    store = app.store()
    paths = {doc.id: doc.uri for doc in store.documents_by_ids(list(range(1, 200))).values()}
    out: dict[str, Any] = {}
    for query in QUERIES:
        page = search(app, query, limit=20)
        out[query] = (
            [(hit.uri, hit.score, hit.snippet) for hit in page.results],
            bool(page.meta.relaxed),
        )
        filters = build_filters(store, SearchInput(query=query))  # none: the plain window
        window, _ = ranked_window(store, parse_query(query).match_all(), filters)
        out[query + " (window)"] = [(paths[rowid], rank) for rowid, rank in window]
    return out


def fts_sql(app: App) -> str:
    row = app.store().conn.execute("SELECT sql FROM sqlite_master WHERE name = 'documents_fts'")
    return str(row.fetchone()[0])


def test_prefix_indexes_change_no_answer_old_migrated_or_new(make_app, monkeypatch) -> None:
    with monkeypatch.context() as patched:  # the index as gno wrote it before migration 10
        patched.setattr(store_module, "MIGRATIONS", [m for m in MIGRATIONS if m[0] < 10])
        app, _ = make_app(corpus())
        sync(app)
        assert app.store().schema_version() == 9 and "prefix" not in fts_sql(app)
        before = answers(app)
        app.close()
    hits = [q for q, v in before.items() if not q.endswith("(window)") and v[0]]
    assert len(hits) >= 25  # the corpus exercises the queries: most find something
    assert before["sampling zebra"][1] and not before["nothing-matches-this zebra"][0]

    migrated = App(resolve_paths())
    assert migrated.store().schema_version() == max(v for v, _ in MIGRATIONS)
    assert f"prefix = '{PREFIX_LENGTHS}'" in fts_sql(migrated)
    assert answers(migrated) == before
    migrated.close()

    migrated.paths.db_path.unlink()  # a new index: the writer fills the prefix indexes
    fresh = App(resolve_paths())
    fresh.store(create=True)
    sync(fresh)
    assert f"prefix = '{PREFIX_LENGTHS}'" in fts_sql(fresh)
    assert answers(fresh) == before
    fresh.close()


def test_the_migrated_table_follows_later_edits(make_app, monkeypatch) -> None:
    with monkeypatch.context() as patched:
        patched.setattr(store_module, "MIGRATIONS", [m for m in MIGRATIONS if m[0] < 10])
        app, root = make_app({"a.md": "# A\n\nsampling processor\n", "b.md": "# B\n\nlogging\n"})
        sync(app)
        app.close()
    app = App(resolve_paths())
    assert [r.uri for r in search(app, "sampl").results] == ["gno://notes/a.md"]
    (root / "a.md").write_text("# A\n\nnothing here any more\n")
    (root / "c.md").write_text("# C\n\nsampler settings\n")
    sync(app)
    assert [r.uri for r in search(app, "sampl").results] == ["gno://notes/c.md"]
    assert [r.uri for r in search(app, "logs").results] == ["gno://notes/b.md"]
    app.close()


@pytest.mark.parametrize(
    ("tokenize", "prefixed"),
    [("porter unicode61 remove_diacritics 2", True), ("unicode61 remove_diacritics 2", True),
     ("trigram", False)],
)  # fmt: skip
def test_only_word_tokenizers_get_prefix_indexes(tokenize: str, prefixed: bool) -> None:
    sql = fts_table_sql(tokenize)
    assert f"tokenize = '{tokenize}'" in sql
    assert ("prefix = " in sql) is prefixed


def test_a_trigram_table_is_left_as_it_is() -> None:
    conn = apsw.Connection(":memory:")
    conn.execute(fts_table_sql("trigram"))
    conn.execute(
        "INSERT INTO documents_fts (rowid, filepath, title, body) VALUES (7, 'a', '', 'sampling')"
    )
    rebuild_fts(conn, "trigram")  # no documents table: a rebuild would fail here
    assert conn.execute(
        "SELECT rowid FROM documents_fts WHERE documents_fts MATCH 'ampl'"
    ).fetchall() == [(7,)]
