"""Owner filters apply before the candidate budgets, inside vector search: on a real index
embedded by real llama.cpp (the tiny BERT), random filters never let an excluded document
into ``vsearch`` or ``query`` results, and both return as many allowed documents as asked
whenever that many exist. The allowed set is computed here from the corpus itself."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import pytest

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
pytest.importorskip("gguf", reason="gguf is needed to write the tiny test model")

from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.query_input import QueryInput
from gno_contracts.models.search_input import SearchInput
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gno.adapters.sqlite.vectors import vec_extension_path
from gno.services.collections import collection_add
from gno.services.embed import embed, vector_neighbours, vsearch
from gno.services.filters import build_filters
from gno.services.query import query
from tests.conftest import sync, write_tree
from tests.tiny_gguf import write_tiny_bert

pytestmark = pytest.mark.skipif(vec_extension_path() is None, reason="sqlite-vec not installed")

TAGS = ("red", "green", "blue")
AUTHORS = ("Ann Lee", "Bob Stone", "Cy")
CATEGORIES = ("memo", "report")
MARKERS = ("alpha", "bravo", "charlie", "delta")  # body-only words, for `exclude`
FILLER = "The collector samples each trace, the index keeps a document model for export. "
FIRST_DAY = date(2024, 1, 1)


@dataclass(frozen=True)
class Doc:
    uri: str
    collection: str
    tags: frozenset[str]
    author: str
    day: date
    category: str
    markers: frozenset[str]


def corpus() -> list[tuple[Doc, str, str]]:
    """(facts, relative path, file text) for 32 documents of several chunks each, in two
    collections: an unfiltered KNN budget covers only a few documents."""
    out = []
    for i in range(32):
        collection = ("notes", "work")[i % 2]
        tags = frozenset(t for b, t in enumerate(TAGS) if i >> b & 1)
        markers = frozenset(m for b, m in enumerate(MARKERS) if (i * 7 + 3) >> b & 1)
        doc = Doc(
            f"gno://{collection}/d{i:02}.md",
            collection,
            tags,
            AUTHORS[i % 3],
            FIRST_DAY + timedelta(days=11 * i),
            CATEGORIES[i // 2 % 2],
            markers,
        )
        body = f"Document {i} talks about {' and '.join(sorted(markers)) or 'nothing special'}. "
        body += FILLER * (350 + 20 * (i % 4))
        text = (
            f"---\ntitle: Doc {i}\ntags: [{', '.join(sorted(tags))}]\nauthor: {doc.author}\n"
            f"date: {doc.day.isoformat()}\ncategory: {doc.category}\n---\n# Doc {i}\n\n{body}\n"
        )
        out.append((doc, f"d{i:02}.md", text))
    return out


DOCS = [doc for doc, _, _ in corpus()]


@pytest.fixture
def app(make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("GNO_EMBED_MODEL", f"file:{write_tiny_bert(tmp_path / 'tiny.gguf')}")
    files = {c: {path: text for doc, path, text in corpus() if doc.collection == c} for c in ("notes", "work")}  # fmt: skip
    app, root = make_app(files["notes"], name="notes")
    work = write_tree(root.parent / "src-work", files["work"])
    collection_add(app, CollectionAddInput(path=str(work), name="work"))
    sync(app)
    result = embed(app, EmbedInput())
    assert result.errors == 0 and result.searchAvailable
    return app


filters = st.fixed_dictionaries(
    {},
    optional={
        "collection": st.sampled_from(("notes", "work")),
        "tagsAll": st.lists(st.sampled_from(TAGS), max_size=2, unique=True),
        "tagsAny": st.lists(st.sampled_from(TAGS), min_size=1, max_size=2, unique=True),
        "author": st.sampled_from(("ann", "BOB", "lee", "zed")),
        "since": st.integers(0, 360).map(lambda d: (FIRST_DAY + timedelta(days=d)).isoformat()),
        "until": st.integers(0, 360).map(lambda d: (FIRST_DAY + timedelta(days=d)).isoformat()),
        "categories": st.lists(st.sampled_from((*CATEGORIES, "other")), min_size=1, max_size=2),
        "exclude": st.lists(st.sampled_from(MARKERS), min_size=1, max_size=2, unique=True),
    },
)


def allowed(doc: Doc, f: dict) -> bool:
    """The owner filters' meaning, from the corpus facts (not from the index)."""
    return (
        f.get("collection", doc.collection) == doc.collection
        and set(f.get("tagsAll", ())) <= doc.tags
        and (not f.get("tagsAny") or bool(doc.tags & set(f["tagsAny"])))
        and f.get("author", "").lower() in doc.author.lower()
        and doc.day >= date.fromisoformat(f.get("since", "0001-01-01"))
        and doc.day <= date.fromisoformat(f.get("until", "9999-12-31"))
        and (not f.get("categories") or doc.category in f["categories"])
        and not doc.markers & set(f.get("exclude", ()))
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    f=filters,
    limit=st.integers(1, 8),
    k=st.integers(1, 150),
    text=st.sampled_from(("trace sample", "alpha collector", "document model export", "zzz")),
)
def test_filters_apply_before_budgets_in_vsearch_and_query(app, f, limit, k, text):
    expected = {doc.uri for doc in DOCS if allowed(doc, f)}
    for run in (vsearch(app, SearchInput(query=text, limit=limit, **f)),
                query(app, QueryInput(query=text, limit=limit, **f))):  # fmt: skip
        found = [r.uri for r in run.results]
        assert set(found) <= expected, f"excluded documents returned: {set(found) - expected}"
        assert len(found) == len(set(found)) == min(limit, len(expected))
    # The budget itself (what query's vector leg asks for): k allowed vectors, or all.
    store = app.store()
    marks = ",".join("?" * len(expected))
    mirrors = {r[0] for r in store.conn.execute(f"SELECT mirror_hash FROM documents WHERE uri IN ({marks})", tuple(expected))}  # fmt: skip
    # Vectors, not chunks: a chunk longer than the model reads has one per window.
    chunks = store.conn.execute(f"SELECT count(*) FROM chunk_vectors WHERE mirror_hash IN ({','.join('?' * len(mirrors))})", tuple(mirrors)).fetchone()[0]  # fmt: skip
    neighbours = vector_neighbours(app, store, [text], k, build_filters(store, SearchInput(query=text, **f)))[0]  # fmt: skip
    assert {m for m, _, _ in neighbours} <= mirrors
    assert len(neighbours) == min(k, chunks)
