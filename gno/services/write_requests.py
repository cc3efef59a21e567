"""``GET /api/requests/{requestId}``: the receipt an earlier write with that id answered."""

from __future__ import annotations

import json

from gno_contracts.models.request_status_input import RequestStatusInput
from gno_contracts.models.write_request import WriteRequest

from gno.app import App
from gno.errors import NotFoundError


def request_status(app: App, inp: RequestStatusInput) -> WriteRequest:
    found = app.store().request_receipt(inp.requestId)
    if found is None:
        raise NotFoundError(f"No write with requestId {inp.requestId!r} is recorded")
    operation, receipt, created = found
    return WriteRequest.model_validate(
        {
            "requestId": inp.requestId,
            "operation": operation,
            "status": "completed",
            "createdAt": created,
            "receipt": json.loads(receipt),
        }
    )
