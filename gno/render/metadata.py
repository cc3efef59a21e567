"""The metadata registry as terminal text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.render import Shown, View

if TYPE_CHECKING:  # renderers read attributes: no model module loads for them
    from gno_contracts.models.metadata import MetadataRegistry


def registry(result: MetadataRegistry, view: View) -> Shown:
    if not result.keys:
        return Shown("No frontmatter metadata.")
    lines = []
    for key in result.keys:
        common = ", ".join(f"{v.value} ({v.count})" for v in key.values)
        lines.append(f"{key.key}  {key.type.value}  {key.documentCount} doc(s)  {common}")
    return Shown("\n".join(lines))
