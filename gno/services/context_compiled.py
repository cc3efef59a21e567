"""Compiled project context: ``POST /api/context/compiled/preview`` and ``/check``
(``gno-compiled-context-v1``, spec/context.md "Compiled project context").

Both verify the Capsule first (``context_verify.verify_capsule``: malformed →
``invalid_input``, forged or another index's → ``identity_mismatch``), so evidence whose
content changed is never compiled in. Preview compiles under the requested budget; check
reads the header of the kept document, compares its digest with its body (edited by
hand?) and with what the Capsule compiles to now at the same budget (stale?). Read-only:
nothing is written; the caller keeps the file.
"""

from __future__ import annotations

from typing import Any

from gno_contracts.models.context_compiled_check import ContextCompiledCheck
from gno_contracts.models.context_compiled_check_input import ContextCompiledCheckInput
from gno_contracts.models.context_compiled_preview import ContextCompiledPreview
from gno_contracts.models.context_compiled_preview_input import ContextCompiledPreviewInput

from gno.app import App
from gno.core.capsule import sha256_text, utf8_len
from gno.core.compiled_context import (
    BUDGET_REASON,
    VERSION,
    Compiled,
    body_of,
    compile_markdown,
    frame_bytes,
    parse_header,
)
from gno.errors import InvalidBudgetError
from gno.services.context_build import MAX_BYTES, MAX_TOKENS
from gno.services.context_retrieval import CATALOG
from gno.services.context_verify import verify_capsule


def _fresh(app: App, capsule: dict[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
    """(evidence id → content code of each item that changed, the freshness block)."""
    receipt = verify_capsule(app, capsule)
    stale = {
        item["evidenceId"]: item["contentCode"]
        for item in receipt["evidence"]
        if item["contentStatus"] != "unchanged"
    }
    freshness = {
        "contentStatus": receipt["contentStatus"],
        "fingerprintStatus": receipt["fingerprintStatus"],
        "fingerprintReasons": receipt["fingerprintReasons"],
        "index": receipt["currentFingerprints"]["index"],
    }
    return stale, freshness


def _budget(tokens: int, budget_bytes: int | None) -> tuple[int, int]:
    chosen = 4 * tokens if budget_bytes is None else budget_bytes
    if not (1 <= tokens <= MAX_TOKENS and 1 <= chosen <= MAX_BYTES):
        raise InvalidBudgetError(CATALOG["invalid_budget"])
    return tokens, chosen


def _compiled(
    capsule: dict[str, Any], stale: dict[str, str], tokens: int, budget_bytes: int
) -> Compiled:
    compiled = compile_markdown(capsule, stale, tokens, budget_bytes)
    if compiled is None:
        needed = frame_bytes(capsule, stale)
        raise InvalidBudgetError(CATALOG["invalid_budget"], details={"minimumTokens": needed})
    return compiled


def preview(app: App, inp: ContextCompiledPreviewInput) -> ContextCompiledPreview:
    tokens, budget_bytes = _budget(inp.budgetTokens, inp.budgetBytes)
    capsule = dict(inp.capsule)
    stale, freshness = _fresh(app, capsule)
    compiled = _compiled(capsule, stale, tokens, budget_bytes)
    used = utf8_len(compiled.markdown)
    reasons = {reason for _, reason in compiled.excluded}
    warnings = [
        warning
        for warning, applies in (
            ("no_evidence_included", not compiled.included),
            ("evidence_stale", bool(reasons - {BUDGET_REASON})),
            ("budget_truncated", BUDGET_REASON in reasons),
        )
        if applies
    ]
    return ContextCompiledPreview.model_validate(
        {
            "schemaVersion": "1.0",
            "format": VERSION,
            "capsuleId": capsule["capsuleId"],
            "markdown": compiled.markdown,
            "digest": compiled.digest,
            "budget": {
                "requestedTokens": tokens,
                "requestedBytes": budget_bytes,
                "usedTokens": used,
                "usedBytes": used,
                "estimator": "unicode_conservative",
            },
            "included": [
                {k: e[k] for k in ("evidenceId", "uri", "startLine", "endLine")}
                for e in compiled.included
            ],
            "excluded": [
                {"evidenceId": e["evidenceId"], "uri": e["uri"], "reason": reason}
                for e, reason in compiled.excluded
            ],
            "freshness": freshness,
            "warnings": warnings,
        }
    )


def check(app: App, inp: ContextCompiledCheckInput) -> ContextCompiledCheck:
    capsule = dict(inp.capsule)
    stale, freshness = _fresh(app, capsule)
    markdown = inp.markdown
    header = parse_header(markdown)
    actual = sha256_text(body_of(markdown))
    reasons: list[str] = []
    expected: str | None = None
    if header is None:
        reasons.append("header_missing")
    elif header.capsule_id != capsule["capsuleId"]:
        reasons.append("capsule_mismatch")
    else:
        if actual != header.digest:
            reasons.append("markdown_edited")
        again = compile_markdown(capsule, stale, header.tokens, header.bytes)
        expected = again.digest if again is not None else None
        if expected != header.digest:
            reasons.append("inclusion_changed")
    if freshness["contentStatus"] != "unchanged":
        reasons.append("content_stale")
    if {"header_missing", "capsule_mismatch"} & set(reasons):
        status = "foreign"
    elif "markdown_edited" in reasons:
        status = "modified"
    elif reasons:
        status = "stale"
    else:
        status = "current"
    if freshness["contentStatus"] != "unchanged":
        recovery = "rebuild_capsule"
    else:
        recovery = "none" if status == "current" else "recompile"
    return ContextCompiledCheck.model_validate(
        {
            "schemaVersion": "1.0",
            "capsuleId": capsule["capsuleId"],
            "status": status,
            "reasons": reasons,
            "recovery": recovery,
            "header": None
            if header is None
            else {
                "capsuleId": header.capsule_id,
                "budgetTokens": header.tokens,
                "budgetBytes": header.bytes,
                "digest": header.digest,
            },
            "actualDigest": actual,
            "expectedDigest": expected,
            "freshness": freshness,
        }
    )
