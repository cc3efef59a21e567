"""``changes`` and ``diff``: reading the knowledge delta journal (engine.md §8.1).

Entries are metadata only; ``diff`` reports a document's structural change from its
retained entry and says plainly when history is partial, expired or absent.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from gno.app import App
from gno.core import journal as j
from gno.core.identity import parse_ref
from gno.core.journal_form import wire_changes
from gno.core.wire import Formed
from gno.errors import DocumentNotFoundError
from gno.journal_rows import JournalRow
from gno.ports import Store
from gno.services.documents import check_index
from gno.services.graph_refs import check_collection

if TYPE_CHECKING:  # the CLI's lean path reads the wire form: no model on `gno changes`
    from gno_contracts.models.changes import Change, Changes
    from gno_contracts.models.changes_input import ChangesInput
    from gno_contracts.models.diff_input import DiffInput
    from gno_contracts.models.document_diff import DocumentDiff

# A journal entry's text never changes once written and its sequence is never reused, so
# the validated model of an entry can be kept: the handler (the SDK in process; the CLI,
# REST and MCP answer from the wire form) validates each entry once. Only its collection
# can change (a collection rename), so that is part of the key.
MODEL_CACHE = 1024  # entries per open store: one full page (a few MB at most)
_models: weakref.WeakKeyDictionary[Store, OrderedDict[tuple[int, str], Change]] = (
    weakref.WeakKeyDictionary()
)


def _change_models(store: Store, rows: list[JournalRow]) -> list[Change]:
    from gno_contracts.models.changes import Change

    cache = _models.setdefault(store, OrderedDict())
    missing = [row for row in rows if (row.sequence, row.collection) not in cache]
    for row, payload in zip(missing, change_payloads(missing), strict=True):
        cache[row.sequence, row.collection] = Change.model_validate(payload)
        if len(cache) > MODEL_CACHE:
            cache.popitem(last=False)
    return [cache[row.sequence, row.collection] for row in rows]


def change_payload(row: JournalRow) -> dict[str, Any]:
    return change_payloads([row])[0]


def change_payloads(rows: list[JournalRow]) -> Formed:
    """Entries in change@1.0's wire form, keys in schema order: ``Formed``, so REST sends
    a page as built (tests/services/test_journal_wire.py holds it to ``canonical``)."""
    return Formed(wire_changes(rows))


def changes(app: App, inp: ChangesInput) -> Changes:
    from gno_contracts.models.changes import Changes

    store, rows, payload = _page(app, inp)
    return Changes.model_validate(payload | {"changes": _change_models(store, rows)})


def changes_payload(app: App, inp: ChangesInput) -> dict[str, Any]:
    """changes@1.0 in its wire form: what the CLI, REST and MCP answer."""
    _, rows, payload = _page(app, inp)
    return payload | {"changes": change_payloads(rows)}


def _page(app: App, inp: ChangesInput) -> tuple[Store, list[JournalRow], dict[str, Any]]:
    """(the store, the page's journal rows, changes@1.0 but its ``changes``)."""
    collection = check_collection(app, inp.collection)
    since = j.parse_since(inp.since, datetime.now(UTC))
    store = app.store()
    state = store.journal_state()
    page: dict[str, Any] = {
        "nextCursor": None,
        "earliestCursor": j.encode_cursor(state.floor),
        "latestCursor": j.encode_cursor(state.last_sequence),
        "cursorExpired": False,
        "truncated": False,
        "retentionTruncated": False,
    }
    warnings: list[str] = []
    if since.sequence is not None and since.sequence < state.floor:
        page |= {"cursorExpired": True, "retentionTruncated": True}
        warnings.append(
            "cursor is older than the retained journal; start again from earliestCursor"
        )
        return store, [], {"schemaVersion": "1.0", "page": page, "warnings": warnings}
    limit = inp.limit or j.PAGE_DEFAULT
    after = since.sequence or 0
    rows = store.journal_page(after, since.time, collection, limit + 1)
    if len(rows) > limit:
        rows = rows[:limit]
        page["truncated"] = True
        page["nextCursor"] = j.encode_cursor(rows[-1].sequence)
    if state.floor > 0 and since.sequence is None:
        oldest = store.journal_page(state.floor, None, None, 1)
        page["retentionTruncated"] = (
            since.time is None or not oldest or oldest[0].observed_at > since.time
        )
    return store, rows, {"schemaVersion": "1.0", "page": page, "warnings": warnings}


def _history(row: JournalRow) -> dict[str, Any]:
    if row.entry["structureDelta"].get("truncated"):
        return {"status": "partial", "reason": "structure_delta_truncated"}
    return {"status": "available", "reason": None}


def diff(app: App, inp: DiffInput) -> DocumentDiff:
    from gno_contracts.models.document_diff import DocumentDiff

    return DocumentDiff.model_validate(diff_payload(app, inp))


def diff_payload(app: App, inp: DiffInput) -> dict[str, Any]:
    """document-diff@1.0 in its wire form."""
    ref = parse_ref(inp.ref)
    check_index(app, ref)
    store = app.store()
    if ref.docid:  # a document active or not, as a path names it (an active one first)
        found = store.documents_by_docid(ref.docid, inactive=True)
        doc = found[0] if found else None
    else:
        assert ref.collection and ref.rel_path
        doc = store.document_by_path(ref.collection, ref.rel_path)
    if doc is None or not doc.docid:
        raise DocumentNotFoundError(f"Document not found: {inp.ref}")
    document = {
        "id": doc.docid,
        "uri": doc.uri,
        "title": doc.title,
        "collection": doc.collection,
        "relPath": doc.rel_path,
        "active": doc.active,
    }
    payload: dict[str, Any] = {
        "schemaVersion": "1.0",
        "document": document,
        "content": {"status": "not_retained", "reason": "journal_metadata_only"},
        "warnings": [],
        "change": None,
    }
    row: JournalRow | None
    if inp.change is not None:
        sequence = j.parse_change_id(inp.change)
        # 0 is no id gno issues (sequences start at 1): not found, even below a floor of 0
        if 0 < sequence <= store.journal_state().floor:
            return payload | {
                "status": "expired",
                "history": {"status": "unavailable", "reason": "change_expired"},
            }
        row = store.journal_entry(sequence)
        if row is not None and not _about(row, doc.collection, doc.rel_path):
            row = None
        if row is None:
            return payload | {
                "status": "unavailable",
                "history": {"status": "unavailable", "reason": "change_not_found"},
            }
    else:
        row = store.journal_latest(doc.collection, doc.rel_path)
        if row is None:
            return payload | {
                "status": "unavailable",
                "history": {"status": "unavailable", "reason": "no_retained_change"},
            }
    return payload | {
        "status": "available",
        "change": change_payload(row),
        "history": _history(row),
    }


def _about(row: JournalRow, collection: str, rel_path: str) -> bool:
    if row.collection != collection:
        return False
    entry = row.entry
    paths = {(entry.get(side) or {}).get("relPath") for side in ("previous", "current")}
    return rel_path in paths
