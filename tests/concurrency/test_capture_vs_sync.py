"""A capture (or any write that indexes its file at once) landing while a `gno update`
walks the collection: the sync must not soft-delete the new document because its walk
passed the folder before the file existed. Real files, two connections on one index; the
capture is made at the one point that lost it (after the walk, before the plan)."""

from __future__ import annotations

from typing import Any

import pytest
from gno_contracts.models.capture_input import CaptureInput

import gno.services.sync as sync_module
from gno.app import App
from gno.paths import resolve_paths
from gno.services.capture import capture
from tests.conftest import search, sync


def test_a_capture_made_during_the_walk_stays_active(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, root = make_app({"a.md": "# A\n\nunrelated\n"})
    sync(app)
    writer = App(resolve_paths())  # another client: a server's capture, its own connection
    real_walk = sync_module.walk
    receipts = []

    def walk_then_capture(*args: Any, **kwargs: Any) -> Any:
        entries = list(real_walk(*args, **kwargs))
        if not receipts:  # the walk is done; the capture lands before the sync plans
            inp = CaptureInput(collection="notes", title="Landed", content="zebra crossing")
            receipts.append(capture(writer, inp))
        return iter(entries)

    monkeypatch.setattr(sync_module, "walk", walk_then_capture)
    try:
        result = sync(app)
        assert receipts and receipts[0].sync.status.value == "completed"
        uri = receipts[0].uri
        assert (root / receipts[0].relPath).is_file()
        # Before: the sync took it for a file deleted since its walk and inactivated it.
        assert result.collections[0].filesMarkedInactive == 0
        assert [hit.uri for hit in search(app, "zebra crossing").results] == [uri]
        monkeypatch.setattr(sync_module, "walk", real_walk)
        sync(app)  # the next sync walks it and keeps it
        assert [hit.uri for hit in search(app, "zebra crossing").results] == [uri]
    finally:
        writer.close()
