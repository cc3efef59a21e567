"""``recordImport`` (record-import@1.0) in sync results (issue 17): each export container a
sync imports is a ``files[]`` entry with its adapter, snapshot authority, bytes read,
per-action record counts and bounded failures — on real mailboxes and chat exports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from gno.core.records import MAX_RETAINED_FAILURES
from tests.conftest import sync
from tests.records_corpus import message, write_jsonl, write_mbox

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas" / "output"


def imports(result: Any) -> dict[str, dict[str, Any]]:
    """relPath -> the file entry (JSON) of every reported container; each valid."""
    payload = result.model_dump(mode="json", exclude_none=True)
    Draft202012Validator(json.loads((SCHEMAS / "sync-result.schema.json").read_text())).validate(
        payload
    )
    own = Draft202012Validator(json.loads((SCHEMAS / "record-import.schema.json").read_text()))
    files = {f["relPath"]: f for c in payload["collections"] for f in c.get("files", [])}
    for entry in files.values():
        own.validate(entry["recordImport"])
    return files


def test_counts_follow_each_record_across_syncs(make_app):
    app, root = make_app({"a.md": "# A\n\nalpha\n"})
    messages = [message(n, f"Subject {n}", f"Body number {n}") for n in range(1, 5)]
    box = write_mbox(root / "inbox.mbox", messages)
    first = imports(sync(app))["inbox.mbox"]
    assert first["status"] == "added"
    report = first["recordImport"]
    assert report["adapter"]["id"] == "record/email" and report["snapshot"] == "complete"
    assert report["records"] == 4 and report["sourceBytesRead"] == box.stat().st_size
    assert report["counts"] == {"added": 4, "updated": 0, "unchanged": 0, "reactivated": 0,
                                "inactivated": 0, "failed": 0}  # fmt: skip
    assert report["items"] == [] and report["itemsTruncated"] is False

    # one message changed, one gone: 1 updated, 2 unchanged, 1 inactivated
    changed = [messages[0], message(2, "Subject 2", "A different body"), messages[2]]
    write_mbox(box, changed)
    second = imports(sync(app))["inbox.mbox"]
    assert second["status"] == "updated"
    assert second["recordImport"]["counts"] == {"added": 0, "updated": 1, "unchanged": 2,
                                                "reactivated": 0, "inactivated": 1, "failed": 0}  # fmt: skip

    # the message comes back: reactivated, not converted again
    write_mbox(box, messages)
    third = imports(sync(app))["inbox.mbox"]["recordImport"]["counts"]
    assert third["reactivated"] == 1 and third["unchanged"] == 2 and third["updated"] == 1

    # an unchanged container costs a stat and is not reported
    assert "inbox.mbox" not in imports(sync(app))


def test_partial_import_lists_its_failures_bounded(make_app):
    app, root = make_app({"a.md": "# A\n\nalpha\n"})
    rows: list[object] = [{"id": 1, "text": "first good line"}]
    rows += ["{broken"] * (MAX_RETAINED_FAILURES + 5)
    rows.append({"id": 2, "text": "last good line"})
    write_jsonl(root / "chat.jsonl", rows)
    entry = imports(sync(app))["chat.jsonl"]
    assert entry["status"] == "error" and entry["errorCode"] == "CORRUPT"
    report = entry["recordImport"]
    assert report["snapshot"] == "partial" and report["records"] == 2
    assert report["counts"]["failed"] == MAX_RETAINED_FAILURES + 5
    assert len(report["items"]) == MAX_RETAINED_FAILURES and report["itemsTruncated"] is True
    assert report["items"][0]["code"] == "CORRUPT" and report["items"][0]["locator"] == "lines:2-2"


def test_unreadable_container_reports_its_error(make_app):
    app, root = make_app({"a.md": "# A\n\nalpha\n"})
    (root / "junk.mbox").write_bytes(b"\x00\x01binary junk, not a mailbox\xff" * 10)
    entry = imports(sync(app))["junk.mbox"]
    assert entry["status"] == "error" and entry["errorCode"] == "CORRUPT"
    report = entry["recordImport"]
    assert report["snapshot"] == "partial" and report["records"] == 0
    assert report["stopCode"] == "CORRUPT"
