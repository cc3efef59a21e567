"""Terminal text of the write commands: capture, tags add/rm, remember, recall."""

from __future__ import annotations

from gno_contracts.models.mcp_capture_result import McpCaptureResult
from gno_contracts.models.memory_recall import MemoryRecall
from gno_contracts.models.memory_remember import MemoryRemember
from gno_contracts.models.tag_added import TagAdded
from gno_contracts.models.tag_removed import TagRemoved

from gno.render import Shown, View

_OUTCOMES = {
    "created": "Captured",
    "created_with_suffix": "Captured (new name)",
    "opened_existing": "Already captured",
    "overwritten": "Replaced",
    "conflict": "Conflict",
}


def captured(result: McpCaptureResult, view: View) -> Shown:
    if view.quiet:  # GNO: --quiet prints only the URI
        return Shown(result.uri)
    outcome = str(getattr(result.collisionPolicyResult, "value", result.collisionPolicyResult))
    return Shown(f"{_OUTCOMES.get(outcome, outcome)}: {result.uri} ({result.docid})")


def tag_added(result: TagAdded, view: View) -> Shown:
    if view.quiet:  # -q: no confirmation line
        return Shown(None)
    where = " (frontmatter updated)" if result.wroteToFile else " (index only)"
    return Shown(f"Tagged {result.docid} with {result.tag}{where}")


def tag_removed(result: TagRemoved, view: View) -> Shown:
    if view.quiet:
        return Shown(None)
    where = " (frontmatter updated)" if result.removedFromFile else " (index only)"
    return Shown(f"Removed tag {result.tag} from {result.docid}{where}")


def remembered(result: MemoryRemember, view: View) -> Shown:
    outcome = str(getattr(result.outcome, "value", result.outcome))
    lines = []
    if result.fact is not None:
        lines.append(f"{outcome}: {result.fact.uri} ({result.fact.contentHash})")
    else:
        lines.append(f"{outcome}: nothing written")
    for fact in result.candidates:
        lines.append(f"  candidate {fact.uri} ({fact.contentHash}): {fact.text}")
    if outcome == "candidates":
        lines.append(
            "Decide with --decision add, or --decision supersede with --predecessor-uri/--predecessor-hash."
        )
    return Shown("\n".join(lines))


def recalled(result: MemoryRecall, view: View) -> Shown:
    if not result.facts:
        return Shown(result.hint or "No facts found.")
    lines = [f"- {f.text}\n  {f.uri} [{', '.join(f.scopes)}] {f.contentHash}" for f in result.facts]
    if result.truncated:
        lines.append("(more facts matched than the budget allows)")
    return Shown("\n".join(lines))
