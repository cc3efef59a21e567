"""Human text of the write tools' results (the registry's ``mcp.text``)."""

from __future__ import annotations

from typing import Any

from gno_contracts.models.mcp_capture_result import McpCaptureResult


def captured(args: dict[str, Any], result: McpCaptureResult) -> str:
    outcome = str(getattr(result.collisionPolicyResult, "value", result.collisionPolicyResult))
    return (
        f"Captured {result.uri} ({outcome}); docid {result.docid}; indexed for search now, "
        "embedded by the next gno_embed or gno_index."
    )
