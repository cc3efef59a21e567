"""`gno status`: the active preset it reports and the cost of its integrity check."""

from __future__ import annotations

import apsw
from gno_contracts.models.models_use_input import ModelsUseInput
from gno_contracts.models.status_input import StatusInput

from gno.services.models import models_use
from gno.services.status import index_status, status
from tests.conftest import sync


def test_status_reports_the_active_preset(make_app) -> None:
    app, _ = make_app({"a.md": "# A\n\nalpha\n"})
    sync(app)
    assert status(app, StatusInput()).activePreset.model_dump() == {
        "id": "slim-tuned",
        "name": "Slim Tuned",
    }
    models_use(app, ModelsUseInput(preset="slim"))
    assert status(app, StatusInput()).activePreset.model_dump() == {"id": "slim", "name": "Slim"}


def test_quick_check_runs_once_per_index_generation(make_app) -> None:
    app, root = make_app({"a.md": "# A\n\nalpha\n"})
    sync(app)
    store = app.store()
    checks: list[str] = []

    def count(cursor: apsw.Cursor, sql: str, bindings: object) -> bool:
        if "quick_check" in sql:
            checks.append(sql)
        return True

    store.conn.exec_trace = count
    for _ in range(3):
        assert status(app, StatusInput()).healthy
        assert index_status(app, StatusInput()).healthy
    assert len(checks) == 1

    other = apsw.Connection(str(app.paths.db_path))  # another writer commits
    other.execute("INSERT INTO schema_meta (key, value, updated_at) VALUES ('probe', '1', 'now')")
    other.close()
    assert status(app, StatusInput()).healthy
    assert len(checks) == 2

    (root / "b.md").write_text("# B\n\nbeta\n", encoding="utf-8")
    sync(app)  # this connection's own writes
    assert status(app, StatusInput()).healthy
    assert status(app, StatusInput()).healthy
    assert len(checks) == 3
