"""Results of the upkeep commands (reset, vec sync, vec rebuild) as terminal text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.render import Shown, View

if TYPE_CHECKING:  # renderers read attributes: no model module loads for them
    from gno_contracts.models.reset_result import ResetResult
    from gno_contracts.models.vec_rebuild_result import VecRebuildResult
    from gno_contracts.models.vec_sync_result import VecSyncResult


def reset_done(result: ResetResult, view: View) -> Shown:
    lines = ["gno reset complete."]
    for item in result.results:
        status = item.status.value if hasattr(item.status, "value") else str(item.status)
        what = {
            "deleted": f"deleted {item.removed} of gno's entries",
            "missing": "nothing of gno's there",
            "kept": "kept",
        }[status]
        lines.append(f"  {item.role.value if hasattr(item.role, 'value') else item.role}: "
                     f"{item.path}: {what}")  # fmt: skip
        if item.foreign:
            lines.append(f"    left in place (not gno's): {', '.join(item.foreign)}")
    return Shown("\n".join(lines))


def vec_synced(result: VecSyncResult, view: View) -> Shown:
    if not result.vectorSets:
        return Shown("No vectors in the index: nothing to sync (run `gno embed` first).")
    if result.added == 0 and result.removed == 0:
        return Shown("Vec index already in sync.")
    parts = [f"+{result.added} added"] if result.added else []
    parts += [f"-{result.removed} removed"] if result.removed else []
    return Shown(f"Vec index synced: {', '.join(parts)}")


def vec_rebuilt(result: VecRebuildResult, view: View) -> Shown:
    if not result.vectorSets:
        return Shown("No vectors in the index: nothing to rebuild (run `gno embed` first).")
    return Shown(f"Vec index rebuilt: {result.count:,} vectors")
