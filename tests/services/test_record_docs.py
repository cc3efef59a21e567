"""A record's document is dated by the record (mail Date, event start, message time), not
by its container's file time, and typed by the content-type rules through its container's
path — so date bounds, temporal types and searchBoost/graph hints apply to records too; a
rules change touching a container re-imports it (services/record_docs.py)."""

from __future__ import annotations

import os
from typing import Any

from gno.app import App
from gno.config import load_config, save_config
from gno.paths import resolve_paths
from tests.conftest import search, sync
from tests.records_corpus import message, write_jsonl, write_mbox, write_vtt

OLD = 1_600_000_000  # 2020-09-13: the containers' file time
MEETING = {"id": "meeting", "prefixes": ["meetings/"], "preset": "meeting", "temporal": True}


def configure(app: App, rules: list[dict[str, Any]]) -> App:
    config = load_config(app.paths.config_file)
    config.raw["contentTypes"] = rules
    save_config(app.paths.config_file, config)
    return App(resolve_paths())


def paths(app: App, query: str, **bounds: str) -> set[str]:
    return {r.source.relPath for r in search(app, query, limit=20, **bounds).results}


def test_records_are_dated_by_themselves_and_typed_by_their_container(make_app):
    app, root = make_app({"keep.md": "# Keep\n\nkeepword\n"})
    box = write_mbox(
        root / "mail" / "inbox.mbox",
        [message(1, "Budget", "The numbat budget.", date="Wed, 04 Mar 2026 10:00:00 +0000")],
    )
    (root / "meetings").mkdir()
    talk = write_vtt(root / "meetings" / "standup.vtt", ["the numbat standup"])
    chat = write_jsonl(
        root / "meetings" / "chat.jsonl",
        [{"id": 1, "timestamp": "2026-03-05T08:00:00Z", "text": "numbat chat"}],
    )
    for path in (box, talk, chat):
        os.utime(path, (OLD, OLD))
    sync(app)
    march = {"since": "2026-03-01", "until": "2026-03-31"}
    assert paths(app, "numbat", **march) == {"mail/inbox.mbox", "meetings/chat.jsonl"}
    assert paths(app, "numbat", since="2020-09-01", until="2020-09-30") == {"meetings/standup.vtt"}
    hit = search(app, "budget").results[0]
    assert hit.source.documentDate == "2026-03-04T10:00:00.000Z"

    app = configure(app, [MEETING])
    result = sync(app).collections[0]
    reported = {f.relPath for f in result.files or []}
    assert reported == {"meetings/standup.vtt", "meetings/chat.jsonl"}  # the mailbox is untouched
    types = {r.source.relPath: r.contentType for r in search(app, "numbat", limit=20).results}
    assert types["meetings/standup.vtt"] == "meeting" and types["meetings/chat.jsonl"] == "meeting"
    assert types["mail/inbox.mbox"] != "meeting"
    # the transcript is an undated event now: its container's file time no longer dates it
    assert paths(app, "numbat", since="2020-09-01", until="2020-09-30") == set()
    assert paths(app, "numbat", **march) == {"mail/inbox.mbox", "meetings/chat.jsonl"}
    assert sync(app).collections[0].files is None  # unchanged containers: one stat each
