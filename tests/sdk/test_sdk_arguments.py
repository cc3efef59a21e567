"""The SDK checks a call's arguments as ``POST /api/op/<id>`` checks the same values sent
as JSON: what the server refuses, both transports refuse before anything runs, with
``ValidationError`` naming the field (spec/sdk.md "Errors")."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from gno import Gno
from gno.errors import ValidationError
from tests.sdk.test_sdk_transports import served

__all__ = ["served"]  # the fixture: a real gno app on 127.0.0.1

# (operation, arguments, the field named): JSON's types, as REST and MCP read them.
REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("search", {"query": "x", "limit": "3"}, "limit"),
    ("search", {"query": "x", "limit": True}, "limit"),
    ("search", {"query": "x", "limit": 2.5}, "limit"),
    ("search", {"query": "x", "minScore": "0.5"}, "minScore"),
    ("search", {"query": "x", "full": 1}, "full"),
    ("search", {"query": "x", "full": "false"}, "full"),
    ("search", {"query": "x", "tagsAll": "work"}, "tagsAll"),
    ("get", {"ref": "gno://notes/a.md", "lineCount": "20"}, "lineCount"),
    ("multi_get", {"refs": ["a", 7]}, "refs.1"),
    # A required const the model would default: the purge ran without its confirmation.
    ("egress_audit_purge", {"confirm": None}, "confirm"),
]
IDS = [f"{op}-{'-'.join(f'{k}={v!r}' for k, v in args.items())}" for op, args, _ in REFUSED]


@pytest.mark.parametrize(("op", "args", "field"), REFUSED, ids=IDS)
def test_what_the_server_refuses_the_sdk_refuses_first(
    served: str, op: str, args: dict[str, Any], field: str
) -> None:
    sent = {k: v for k, v in args.items() if v is not None}
    answer = httpx.post(f"{served}/api/op/{op}", json=sent, timeout=30)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == "VALIDATION"
    with Gno(write=True) as local, Gno(url="http://127.0.0.1:9", write=True) as unreachable:
        for client in (local, unreachable):  # no request is sent: port 9 refuses
            with pytest.raises(ValidationError, match=field):
                getattr(client, op)(**args)


def test_whole_floats_tuples_and_enum_members_are_still_accepted(served: str) -> None:
    from gno_contracts.models.mcp_status_input import Target

    with Gno() as local, Gno(url=served) as remote:
        for client in (local, remote):
            hits = client.search(query="tail sampling", limit=2.0, tagsAll=None)
            assert [h.uri for h in hits.results] == ["gno://notes/sampling.md"]
            assert client.multi_get(refs=("notes/sampling.md",)).documents  # a tuple: an array
            client.search(query="tail", minScore=0)  # an integer is a number
            status = client.mcp_status(target=Target.CURSOR)  # a member: its value
            assert {row.target for row in status.targets} == {"cursor"}


def test_a_value_that_is_no_json_names_its_field() -> None:
    from pathlib import Path

    with Gno() as local:
        with pytest.raises(ValidationError, match="ref"):
            local.get(ref=Path("notes/a.md"))  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match="minScore"):
            local.search(query="x", minScore=float("nan"))
        with pytest.raises(ValidationError, match="query: text holds a lone UTF-16 surrogate"):
            local.search(query="a\ud800b")


def test_a_relaxation_needs_its_acknowledgement_on_the_sdk_too(served: str) -> None:
    """The nested ``acknowledged: true`` is required by the schema; the model defaulted it,
    so a local SDK client relaxed a collection's egress policy without it."""
    with Gno(write=True) as local:
        state = local.egress_policy_get(collection="notes")
        confirmation = {
            "collection": "notes",
            "currentPolicy": state.policy.value,
            "currentRevision": state.revision,
            "targetPolicy": "remote",
        }
        with pytest.raises(ValidationError, match="acknowledged"):
            local.egress_policy_set(collection="notes", policy="remote", confirmation=confirmation)
        assert local.egress_policy_get(collection="notes").policy == state.policy
