"""The typed metadata ``filter`` reaches every retrieval a request starts: ask --verify
builds its closed Capsule with it (services/ask_verify.py)."""

from __future__ import annotations

from gno_contracts.models.ask_input import AskInput

from gno.services.ask_verify import _capsule_input

APPROVED = {"op": "eq", "key": "status", "value": "approved"}


def test_verified_ask_builds_its_capsule_with_the_filter() -> None:
    capsule = _capsule_input(AskInput(query="rollout", verify=True, filter=APPROVED))
    assert capsule.filter == APPROVED
    assert _capsule_input(AskInput(query="rollout", verify=True)).filter is None
