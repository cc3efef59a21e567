"""CLI spellings of the graph commands that are more than a flag per field (registry
``cli.prepare`` hooks): GNO's `links [list] <doc>`, and `graph --neighbors <ref>` /
`graph --from <ref> --to <ref>`, which run other operations than the report."""

from __future__ import annotations

from typing import Any

from gno.errors import ValidationError

Prepared = tuple[str, dict[str, Any]]
NEIGHBOR_ONLY = ("direction",)
PATH_ONLY = ("maxDepth",)


def links(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`gno links <doc>` and `gno links list <doc>` are the same command."""
    words: list[str] = fields.pop("ref")
    if len(words) == 2 and words[0] == "list":
        words = words[1:]
    if len(words) != 1:
        raise ValidationError("Usage: gno links [list] <doc>")
    return op_id, fields | {"ref": words[0]}


def graph(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """The report, or with --neighbors one node's neighbours, or with --from/--to a path."""
    neighbors = fields.pop("neighbors", None)
    start, goal = fields.pop("from", None), fields.pop("to", None)
    if neighbors is not None and (start is not None or goal is not None):
        raise ValidationError("Choose --neighbors or --from/--to, not both")
    if neighbors is not None:
        _refuse(fields, PATH_ONLY, "--max-depth goes with --from/--to")
        return "graph_neighbors", fields | {"ref": neighbors}
    if start is not None or goal is not None:
        if start is None or goal is None:
            raise ValidationError("--from and --to go together")
        _refuse(fields, NEIGHBOR_ONLY, "--direction goes with --neighbors")
        return "graph_path", fields | {"from": start, "to": goal}
    _refuse(fields, NEIGHBOR_ONLY, "--direction goes with --neighbors")
    _refuse(fields, PATH_ONLY, "--max-depth goes with --from/--to")
    return op_id, fields


def _refuse(fields: dict[str, Any], names: tuple[str, ...], message: str) -> None:
    if any(name in fields for name in names):
        raise ValidationError(message)
