"""Context Capsules and their verification receipts as Markdown (the default of
``gno context build`` and ``gno context verify``) or JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.core.capsule_text import capsule_markdown, verification_markdown
from gno.render import Shown, View

if TYPE_CHECKING:  # renderers read attributes: no model module loads for them
    from gno_contracts.models.context_capsule_v1 import ContextCapsule
    from gno_contracts.models.context_capsule_verification import ContextCapsuleVerification
    from gno_contracts.models.context_change import ContextChange
    from gno_contracts.models.context_check import ContextCheck
    from gno_contracts.models.context_list import ContextList
    from gno_contracts.models.saved_capsule_list import SavedCapsuleList
    from gno_contracts.models.saved_capsule_registration import SavedCapsuleRegistration
    from gno_contracts.models.saved_capsule_reverification import SavedCapsuleReverification


def capsule(result: ContextCapsule, view: View) -> Shown:
    return Shown(capsule_markdown(result.model_dump(mode="json")).rstrip("\n"))


def verification(result: ContextCapsuleVerification, view: View) -> Shown:
    return Shown(verification_markdown(result.model_dump(mode="json")).rstrip("\n"))


def changed(result: ContextChange, view: View) -> Shown:
    return Shown(f"Context {result.action.value} for {result.scope}")


def listing(result: ContextList, view: View) -> Shown:
    items = result.root
    if view.fmt == "md":
        return Shown("\n".join(["# Contexts", ""] + [f"- `{c.scope}`: {c.text}" for c in items]))
    return Shown("\n".join(f"{c.scope}\t{c.text}" for c in items) or "No contexts configured")


def checked(result: ContextCheck, view: View) -> Shown:
    lines = ["Contexts valid" if result.valid else "Contexts invalid"]
    lines += [f"error: {e}" for e in result.errors] + [f"warning: {w}" for w in result.warnings]
    return Shown("\n".join(lines), code=0 if result.valid else 1)


def registration(result: SavedCapsuleRegistration, view: View) -> Shown:
    r = result.registration
    return Shown(
        f"{result.action.value.capitalize()} {r.registrationId} (Capsule {r.capsuleId[:12]})"
    )


def registrations(result: SavedCapsuleList, view: View) -> Shown:
    lines = [
        f"{r.registrationId}  {r.capsuleId[:12]}  {r.label or '-'}  "
        f"{r.lastContentStatus.value if r.lastContentStatus else 'not re-verified'}"
        for r in result.registrations
    ]
    return Shown("\n".join(lines) or "No watched Capsules")


def reverified(result: SavedCapsuleReverification, view: View) -> Shown:
    if result.receipt is None:
        error = result.error
        return Shown(
            f"{result.registrationId}: failed ({error.code}: {error.message})"
            if error
            else "failed"
        )
    r = result.receipt
    return Shown(
        f"{result.registrationId}: content {r.contentStatus.value}, ranking {r.rankingStatus.value}, "
        f"fingerprints {r.fingerprintStatus.value}"
    )


def reverify_exit(result: SavedCapsuleReverification) -> Shown:
    """GNO: exit 0 only when the verification completed; otherwise 2 (the object printed)."""
    return Shown(code=0 if result.operationStatus.value == "completed" else 2)
