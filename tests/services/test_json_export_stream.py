"""``.json`` chat exports are streamed (spec/records.md): what a broken or odd export does
through the record lane, on real files and a real index. Before, the whole file went
through ``json.loads``: one break anywhere dropped every message of a new export silently
("not a chat"), and a duplicated ``messages`` key kept only the last list."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import search, sync

KEEP = {"keep.md": "# Keep\n\nkeepword\n"}


def errors_of(result: Any) -> dict[str, tuple[str, str]]:
    return {e.relPath: (e.code, e.message) for c in result.collections for e in c.errors}


def export(count: int) -> str:
    rows = [
        {"id": n, "sender": "cy", "text": f"Lunch at the iguana cafe {n}"} for n in range(count)
    ]
    return json.dumps({"messages": rows})


def test_an_export_cut_after_its_deciding_messages_keeps_what_it_read(make_app):
    app, root = make_app(KEEP)
    whole = export(30)
    cut = whole[: whole.index('"id": 26,')]  # inside the list, after message 26 began
    (root / "export.json").write_text(cut)
    result = sync(app)
    code, text = errors_of(result)["export.json"]
    assert code == "CORRUPT" and "Partial import (26 records" in text
    assert "JSON breaks after message 26" in text
    assert len(search(app, "iguana", limit=50).results) == 26
    (root / "export.json").write_text(whole)  # mended: the rest comes, nothing twice
    assert errors_of(sync(app)) == {}
    assert len(search(app, "iguana", limit=50).results) == 30


def test_extra_data_after_an_export_keeps_its_messages(make_app):
    app, root = make_app(KEEP)
    (root / "export.json").write_text(export(25) + "\n{garbage")
    code, text = errors_of(sync(app))["export.json"]
    assert code == "CORRUPT" and "Extra data" in text
    assert len(search(app, "iguana", limit=50).results) == 25


def test_a_deep_message_after_the_deciding_ones_is_reported_and_the_rest_kept(make_app):
    app, root = make_app(KEEP)
    deep = "[" * 200_000 + "]" * 200_000
    (root / "export.json").write_text(export(22)[:-2] + ", " + deep + "]}")
    code, text = errors_of(sync(app))["export.json"]
    assert code == "CORRUPT" and "nested too deeply" in text
    assert len(search(app, "iguana", limit=50).results) == 22
    assert search(app, "keepword").results


def test_duplicate_messages_keys_index_every_list(make_app):
    app, root = make_app(KEEP)
    (root / "export.json").write_text(
        '{"messages": [{"id": 1, "text": "tapir first"}],'
        ' "messages": [{"id": 2, "text": "tapir second"}]}'
    )
    assert errors_of(sync(app)) == {}
    assert len(search(app, "tapir", limit=10).results) == 2


def test_utf16_and_bom_exports_are_still_read(make_app):
    app, root = make_app(KEEP)
    (root / "sixteen.json").write_bytes(export(3).replace("iguana", "okapi").encode("utf-16"))
    (root / "bom.json").write_bytes(export(2).replace("iguana", "quokka").encode("utf-8-sig"))
    assert errors_of(sync(app)) == {}
    assert len(search(app, "okapi", limit=10).results) == 3
    assert len(search(app, "quokka", limit=10).results) == 2


def test_a_json_over_32_mib_is_too_large_and_never_read(make_app):
    app, root = make_app(KEEP)
    with open(root / "huge.json", "wb") as huge:
        huge.truncate(32 * 1024 * 1024 + 1)
    result = sync(app)
    code, text = errors_of(result)["huge.json"]
    assert code == "TOO_LARGE" and "32 MiB" in text
    assert search(app, "keepword").results
