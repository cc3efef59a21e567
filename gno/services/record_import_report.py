"""``record-import@1.0``: what one sync did with one export container, reported as the
container's ``files[]`` entry of the sync result (CLI ``gno update --json``, MCP and REST
job results). Built from the record lane's ``Import`` (services/sync_records.py)."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any, Protocol

from gno.core.records import MAX_RETAINED_FAILURES


class Import(Protocol):
    """What this report reads of the record lane's ``Import`` (services/sync_records.py);
    a Protocol, so this module imports nothing of the lane."""

    entry: Any  # the container's WalkEntry: rel_path, size
    adapter: Any  # its Adapter: id, version, fingerprint
    started: float
    records: int
    failed: int
    counts: Counter[str]
    items: list[tuple[str, str, str]]
    stop: tuple[str, str] | None

    @property
    def complete(self) -> bool: ...


ACTIONS = ("added", "updated", "unchanged", "reactivated", "inactivated")
MAX_LOCATOR = 512
MAX_MESSAGE = 1000


def record_import(imp: Import) -> dict[str, Any]:
    adapter = imp.adapter
    report: dict[str, Any] = {
        "adapter": {
            "id": adapter.id,
            "version": adapter.version,
            "fingerprint": adapter.fingerprint,
        },
        "snapshot": "complete" if imp.complete else "partial",
        # the container is hashed whole before it is parsed: every byte was read
        "sourceBytesRead": imp.entry.size,
        "records": imp.records,
        "counts": {name: imp.counts[name] for name in ACTIONS} | {"failed": imp.failed},
        "items": [
            {"code": code, "locator": locator[:MAX_LOCATOR], "message": reason[:MAX_MESSAGE]}
            for code, locator, reason in imp.items[:MAX_RETAINED_FAILURES]
        ],
        "itemsTruncated": imp.failed > MAX_RETAINED_FAILURES,
        "durationMs": round((time.monotonic() - imp.started) * 1000),
    }
    if imp.stop is not None:
        report["stopCode"] = imp.stop[0]
    return report


def file_result(
    imp: Import,
    code: str | None,
    message: str | None,
    *,
    is_new: bool,
    status: str | None = None,
) -> dict[str, Any]:
    """The container's ``fileSyncResult``: ``error`` when the import was partial (its ingest
    error), else ``status`` when given (``unchanged``: another sync imported these bytes
    first), else ``added`` (a new container) or ``updated``."""
    result: dict[str, Any] = {"relPath": imp.entry.rel_path}
    if code is not None:
        result |= {"status": "error", "errorCode": code, "errorMessage": (message or "")[:2000]}
    else:
        result["status"] = status or ("added" if is_new else "updated")
    result["recordImport"] = record_import(imp)
    return result
