"""models list, path, clear, pull and use as terminal text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.render import Shown, View, size

if TYPE_CHECKING:  # renderers read attributes: no model module loads for them
    from gno_contracts.models.models_clear import ModelsClear
    from gno_contracts.models.models_list import ModelsList
    from gno_contracts.models.models_path import ModelsPath
    from gno_contracts.models.models_pull import ModelsPull
    from gno_contracts.models.models_use import ModelsUse

ROLES = ("embed", "rerank", "expand", "gen")


def listing(result: ModelsList, view: View) -> Shown:
    bullet = "- " if view.fmt == "md" else ""
    lines = [f"Preset: {result.activePreset}", ""]
    for role in ROLES:
        if entry := getattr(result, role):
            state = f"on disk, {size(entry.size or 0)}" if entry.cached else "not on disk"
            lines.append(f"{bullet}{role}: {entry.uri} ({state}; from {entry.source})")
    lines += ["", f"Cache: {result.cacheDir} ({size(result.totalSize)})"]
    return Shown("\n".join(lines))


def path(result: ModelsPath, view: View) -> Shown:
    return Shown(result.cacheDir)


def cleared(result: ModelsClear, view: View) -> Shown:
    return Shown(f"Removed {len(result.removed)} file(s), {size(result.freedBytes)}.")


def pulled(result: ModelsPull, view: View) -> Shown:
    lines = []
    for item in result.results:
        if item.status == "skipped":
            lines.append(f"{item.role}: skipped {item.uri or '(none)'} ({item.reason})")
        else:
            shown = f", {size(item.size)}" if item.size is not None else ""
            lines.append(f"{item.role}: {item.status} {item.uri} ({item.path}{shown})")
    lines.append(
        f"{result.downloaded} downloaded, {result.cached} already cached, {result.skipped} skipped."
    )
    return Shown("\n".join(lines))


def used(result: ModelsUse, view: View) -> Shown:
    out = f"Active preset: {result.activePreset} (was {result.previousPreset or 'unknown'})"
    return Shown(out, f"Warning: {result.note}\n" if result.embedModelChanged else "")
