"""Periods and recency words in the query text (engine.md §5.4 step 1)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gno_contracts.models.query_input import QueryInput

from gno.services.query import query
from tests.conftest import sync

TODAY = datetime.now(UTC).date()


def _note(days_ago: int, words: str) -> str:
    day = TODAY - timedelta(days=days_ago)
    return f"---\ndate: {day.isoformat()}\n---\n# Plan {days_ago}\n\n{words} release plan notes.\n"


FILES = {
    "old.md": _note(400, "ancient"),
    "month.md": _note(20, "monthly"),
    "fresh.md": _note(1, "fresh"),
}


def _uris(app, text: str, **kwargs) -> list[str]:
    result = query(app, QueryInput(query=text, limit=10, noGraph=True, **kwargs))
    return [r.uri for r in result.results]


def test_a_period_in_the_query_filters_by_date(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    assert set(_uris(app, "release plan")) == {f"gno://notes/{n}" for n in FILES}
    assert set(_uris(app, "recent release plan")) == {
        "gno://notes/month.md",
        "gno://notes/fresh.md",
    }
    # explicit bounds win over the words
    assert _uris(app, "recent release plan", since="2000-01-01", until="2000-12-31") == []


def test_recency_words_sort_newest_first(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    assert _uris(app, "latest ancient release plan", since="1990-01-01") == [
        "gno://notes/fresh.md",
        "gno://notes/month.md",
        "gno://notes/old.md",
    ]
