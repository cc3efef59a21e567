"""A page of ``changes`` leaves ``change_payloads`` in canonical form already (``Formed``):
REST sends it without walking it again, so it must be exactly what the walk, and the
models, would have made: same keys in the same order, same values, same bytes."""

from __future__ import annotations

import json

from gno_contracts.models.changes import Changes
from gno_contracts.models.changes_input import ChangesInput
from gno_contracts.operations import BY_ID

from gno.core.wire import Formed, canonical
from gno.services.journal import changes_payload
from gno.services.wire import contract_schema, json_answer
from tests.conftest import sync

FILES = {
    "a.md": "---\ndate: 2024-01-01\n---\n# A\n\n## Part\n\nSee [[b]], [c](c.md) and [[b]].\n",
    "b.md": "---\nrelations:\n  depends_on: [a]\n  cites: [c.md]\n---\n# B\n",
    "c.md": "# C\n\nNo links at all. Ünïcödé ✓ 東京\n",
    "sub dir/d e.md": "# D\n\n[[a]]\n",
}


def _every_kind(make_app):
    """An index whose journal holds every kind of event and every delta part."""
    app, root = make_app(FILES)
    sync(app)
    (root / "a.md").write_text("---\ndate: 2024-02-02\n---\n# A\n\n## Other\n\n[x](b.md)\n")
    (root / "c.md").rename(root / "c2.md")  # a rename
    (root / "sub dir/d e.md").unlink()  # an inactivate
    sync(app)
    (root / "sub dir/d e.md").write_text("# D\n\n[[a]]\n")  # a reactivate
    sync(app)
    return app


def test_a_page_is_already_what_canonical_makes(make_app) -> None:
    app = _every_kind(make_app)
    payload = changes_payload(app, ChangesInput(limit=1000))
    page = payload["changes"]
    assert type(page) is Formed
    assert {c["kind"] for c in page} == {"create", "update", "rename", "inactivate", "reactivate"}
    schema = contract_schema(BY_ID["changes"].output_schema)
    walked = canonical(schema, payload | {"changes": list(page)})  # a plain list is walked
    assert json.dumps(walked["changes"]) == json.dumps(page)  # key order included


def test_rest_bytes_are_the_models_bytes(make_app) -> None:
    app = _every_kind(make_app)
    payload = changes_payload(app, ChangesInput(limit=1000))
    sent = json_answer(BY_ID["changes"], payload)
    assert isinstance(sent, bytes)  # the lean path answered
    model = Changes.model_validate(payload)
    assert sent == model.model_dump_json(exclude_unset=True).encode()
