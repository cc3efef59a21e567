"""REST answers of the write operations that differ from the operation output."""

from __future__ import annotations

from typing import Any

from gno.app import App


def captured(app: App, inp: Any) -> dict[str, Any]:
    """``POST /api/capture`` answers the capture receipt (201 once indexed)."""
    from gno.services.capture import capture

    return capture(app, inp).model_dump(mode="json", exclude_unset=True)


def redact_file_paths(payload: Any) -> Any:
    """A remote caller gets no host file path: ``path`` and a ``file://`` ``uri`` go."""
    if isinstance(payload, dict):
        payload.pop("path", None)
        if isinstance(payload.get("uri"), str) and payload["uri"].startswith("file://"):
            payload["uri"] = payload.get("gnoUri") or payload.pop("uri")
    return payload


def redact_stored_receipt(payload: Any) -> Any:
    """``GET /api/requests/{id}``: the stored receipt of a document create or save loses its
    host file path and ``file://`` uri, as the write's own answer did (``absPath`` goes
    from every answer: ``views.HOST_PATH_KEYS``)."""
    if isinstance(payload, dict):
        redact_file_paths(payload.get("receipt"))
    return payload
