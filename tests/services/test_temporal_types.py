"""The ``temporal`` flag of a content type (issue 17 item 2, engine.md §1.6): a document of
a temporal type is an event dated by its own date — its frontmatter date, else the
``YYYY-MM-DD`` in its file name — never by its file time. Date bounds (``since``/``until``,
explicit or from the query's words) and the recency order use that date; an undated one
matches no date bound and sorts oldest. Toggling the flag re-ingests exactly its documents."""

from __future__ import annotations

import os
from typing import Any

import pytest
from gno_contracts.models.query_input import QueryInput

from gno.app import App
from gno.config import load_config, save_config
from gno.core.content_types import name_date
from gno.paths import resolve_paths
from gno.services.query import query
from tests.conftest import search, sync

FILES = {
    "meetings/2026-03-04-standup.md": "# Standup\n\nThe quokka standup.\n",
    "meetings/retro.md": "# Retro\n\nThe quokka retro, undated.\n",
    "meetings/2026-01-10-kickoff.md": "---\ndate: 2026-02-01\n---\n# Kickoff\n\nThe quokka kickoff.\n",
    "notes/2026-03-04-idea.md": "# Idea\n\nA quokka idea, not a meeting.\n",
}
MEETING = {"id": "meeting", "prefixes": ["meetings/"], "preset": "meeting", "temporal": True}
OLD = 1_600_000_000  # 2020-09-13: every file's time, far from every name's date


def configure(app: App, rules: list[dict[str, Any]]) -> App:
    config = load_config(app.paths.config_file)
    config.raw["contentTypes"] = rules
    save_config(app.paths.config_file, config)
    return App(resolve_paths())


def found(app: App, **bounds: str) -> set[str]:
    return {r.source.relPath for r in search(app, "quokka", limit=20, **bounds).results}


@pytest.fixture
def app(make_app) -> App:  # type: ignore[no-untyped-def]
    app, root = make_app(FILES)
    for rel in FILES:
        os.utime(root / rel, (OLD, OLD))
    sync(app)
    return app


def test_a_temporal_document_is_dated_by_its_name_never_by_its_file_time(app: App) -> None:
    march = {"since": "2026-03-01", "until": "2026-03-31"}
    autumn_2020 = {"since": "2020-09-01", "until": "2020-09-30"}
    assert found(app, **march) == set()  # no rule yet: names mean nothing
    assert found(app, **autumn_2020) == set(FILES) - {"meetings/2026-01-10-kickoff.md"}

    app = configure(app, [MEETING])
    result = sync(app).collections[0]
    assert result.filesUpdated == 3  # the three meetings, not the idea
    assert found(app, **march) == {"meetings/2026-03-04-standup.md"}
    # the undated retro and the name-dated standup are not "from" their file time
    assert found(app, **autumn_2020) == {"notes/2026-03-04-idea.md"}
    assert found(app, since="2000-01-01") == set(FILES) - {"meetings/retro.md"}
    hit = search(app, "standup").results[0]
    assert hit.source.documentDate == "2026-03-04T00:00:00.000Z"
    kickoff = search(app, "kickoff").results[0]
    assert kickoff.source.documentDate == "2026-02-01T00:00:00.000Z"  # frontmatter wins


def test_recency_puts_undated_events_last_and_the_flag_can_be_removed(app: App) -> None:
    app = configure(app, [MEETING])
    sync(app)
    latest = query(app, QueryInput(query="latest quokka", limit=10, rerank=False, graph=False))
    order = [r.source.relPath for r in latest.results]
    assert order[:2] == ["meetings/2026-03-04-standup.md", "meetings/2026-01-10-kickoff.md"]
    assert order[-1] == "meetings/retro.md"  # its file time does not count
    app = configure(app, [MEETING | {"temporal": False}])
    assert sync(app).collections[0].filesUpdated == 3
    assert "meetings/retro.md" in found(app, since="2020-09-01", until="2020-09-30")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("meetings/2026-03-04-standup.md", "2026-03-04T00:00:00.000Z"),
        ("a/standup 2025-12-31.md", "2025-12-31T00:00:00.000Z"),
        ("2026-02-30-bad.md", None),  # not a day
        ("2026-03-04x/notes.md", None),  # only the file name counts
        ("v12026-03-045.md", None),  # digits around it: part of a longer number
        ("x" * 300 + "2026-03-04.md", None),  # past the first 256 characters
    ],
)
def test_name_date(path: str, expected: str | None) -> None:
    assert name_date(path) == expected
