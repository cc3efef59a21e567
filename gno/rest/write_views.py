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
