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


def test_no_surface_writes_into_a_page(make_app) -> None:
    """Entries share their empty parts (core.journal_form): a surface that wrote into one would
    change every entry of every later page in a long-lived server."""
    from gno.core import journal_form
    from gno.mcp.tools import call, tools
    from gno.services.journal import changes

    app = _every_kind(make_app)
    before = json.dumps(changes_payload(app, ChangesInput(limit=1000)))
    assert '"added": [], "removed": []' in before  # the page has shared empty parts
    json_answer(BY_ID["changes"], changes_payload(app, ChangesInput(limit=1000)))
    assert not call(app, tools("core")["gno_changes"], {"limit": 1000}).is_error
    changes(app, ChangesInput(limit=1000))
    assert journal_form._EMPTY_PAIR == {"added": (), "removed": ()}
    assert journal_form._NO_DATES == {"added": (), "removed": (), "changed": ()}
    assert json.dumps(changes_payload(app, ChangesInput(limit=1000))) == before
