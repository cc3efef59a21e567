"""A tools/call result leaves gno as a dict, not the SDK's ``CallToolResult`` (one walk of a
large ``structuredContent`` fewer, gno/mcp/server.py ``_result``). What the client receives
must not change: for every protocol version the SDK speaks, the dict goes through the SDK's
own per-version validation and dump exactly as the model's dump did."""

from __future__ import annotations

import json

import mcp_types as t
import pytest
from mcp_types import methods
from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS

from gno.mcp.server import _result
from gno.mcp.tools import Outcome, failure

OUTCOMES = {
    "page": Outcome(
        "2 retained document changes",
        {
            "schemaVersion": "1.0",
            "changes": [{"id": "gno-change-id-v1.1", "previous": None, "score": 0.25}],
            "page": {"nextCursor": None, "truncated": False},
            "warnings": [],
        },
    ),
    "traced": Outcome("1 result", {"results": []}, meta={"gno/traceId": "t-1"}),
    "error": failure("NOT_FOUND", "Document not found: nope"),
}


def _model_dump(outcome: Outcome) -> dict:
    """What gno sent before: the SDK model, dumped as the SDK's runner dumps a model."""
    model = t.CallToolResult(
        content=[t.TextContent(type="text", text=outcome.text)],
        structured_content=outcome.structured,
        is_error=outcome.is_error,
        _meta=outcome.meta,
    )
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


@pytest.mark.parametrize("version", SUPPORTED_PROTOCOL_VERSIONS)
@pytest.mark.parametrize("name", OUTCOMES)
def test_a_dict_result_reaches_the_client_as_the_model_did(version: str, name: str) -> None:
    outcome = OUTCOMES[name]
    sent = methods.serialize_server_result("tools/call", version, _result(outcome))
    before = methods.serialize_server_result("tools/call", version, _model_dump(outcome))
    assert json.dumps(sent) == json.dumps(before)
    assert sent["structuredContent"] == outcome.structured  # nulls inside it stay
