"""A Ctrl-C is remembered as well as raised (gno/interrupts.py): when its KeyboardInterrupt
is dropped on the way (a finalizer, a C extension clearing the error), the sync still stops
before its next batch, keeps what it committed, and says it was interrupted."""

from __future__ import annotations

from typing import Any

import pytest

from gno import interrupts
from tests.conftest import sync


def test_a_stop_whose_exception_was_lost_still_stops_the_sync(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = make_app({f"n{i}.md": f"# Note {i}\n\nbody {i}\n" for i in range(5)})
    monkeypatch.setattr(interrupts, "requested", True)  # the handler ran; its raise was lost
    result = sync(app)
    assert result.interrupted is True
    assert app.store().conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 0
    monkeypatch.setattr(interrupts, "requested", False)
    assert sync(app).totalFilesAdded == 5  # nothing half-written: the next sync does it all


def test_the_handler_remembers_and_raises() -> None:
    try:
        with pytest.raises(KeyboardInterrupt):
            interrupts.stop(2, None)
        assert interrupts.requested is True
        with pytest.raises(KeyboardInterrupt):
            interrupts.check()
    finally:
        interrupts.requested = False
