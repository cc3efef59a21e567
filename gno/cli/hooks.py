"""CLI rules the registry cannot say as data (its ``cli.prepare`` references): GNO's
CLI spellings that are more than a flag per field."""

from __future__ import annotations

import os
from typing import Any

from gno.errors import ValidationError

QUERY_MODES = ("term", "intent", "hyde")
NOT_IN_DIAGNOSE = ("explain",)


Prepared = tuple[str, dict[str, Any]]  # (operation id to run, its input fields)


def search_limit(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """GNO's CLI shows 5 hits in the terminal (the schema default) and 20 in every
    machine format, unless -n says otherwise. `--no-project-affinity` turns project-root
    hints off, so it cannot go with `--project-root`."""
    if "limit" not in fields and fmt is not None:
        fields["limit"] = 20
    if fields.pop("noProjectAffinity", False) and fields.get("projectHints"):
        raise ValidationError("Choose --project-root or --no-project-affinity, not both")
    return op_id, fields


def embed(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`--model <uri>`: the embedding model of this run, exactly as GNO_EMBED_MODEL says it
    (the catalog's per-role override), so `embed` and the vectors it writes agree."""
    if model := fields.pop("model", None):
        os.environ["GNO_EMBED_MODEL"] = model
    return op_id, fields


def index(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`--models-pull`: the embedding model may be downloaded when missing even where
    GNO_NO_AUTO_DOWNLOAD forbids automatic downloads (offline modes still win)."""
    if fields.pop("modelsPull", False):
        os.environ.pop("GNO_NO_AUTO_DOWNLOAD", None)
    return op_id, fields


def _query_modes(fields: dict[str, Any]) -> None:
    """`--query-mode kind:text` (repeatable) into ``queryModes``; none leaves it unset."""
    modes: list[dict[str, str]] = []
    for item in fields.pop("queryModes", None) or []:
        mode, sep, text = item.partition(":")
        if not sep or mode not in QUERY_MODES or not text.strip():
            raise ValidationError(
                f"Invalid --query-mode {item!r}: use term:<text>, intent:<text> or hyde:<text>"
            )
        modes.append({"mode": mode, "text": text.strip()})
    if modes:
        fields["queryModes"] = modes


def query(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`--query-mode kind:text`, and GNO's `gno query diagnose <query> --target <ref>`,
    which runs query_diagnose instead."""
    search_limit(op_id, fields, fmt)
    _query_modes(fields)
    words: list[str] = fields.pop("query")
    target = fields.pop("target", None)
    if words and words[0] == "diagnose" and not target:
        raise ValidationError("gno query diagnose <query> needs --target <ref>")
    if target and words and words[0] == "diagnose":
        if fmt not in (None, "json"):
            raise ValidationError("query diagnose prints JSON or terminal text only")
        for name in NOT_IN_DIAGNOSE:
            fields.pop(name, None)
        return "query_diagnose", fields | {"query": " ".join(words[1:]), "target": target}
    return op_id, fields | {"query": " ".join(words)}


def refactor_apply(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """``gno rename/move --apply --plan-digest X``: the flag is the confirmation, so the
    apply fields GNO's tools spell out (schemaVersion, confirmation, confirm) are set here."""
    if fields.get("action") == "apply":
        if not fields.get("planDigest"):
            raise ValidationError("--apply needs --plan-digest (the planDigest of the preview)")
        fields |= {"schemaVersion": "1.0", "confirmation": "apply", "confirm": True}
    elif "planDigest" in fields:
        raise ValidationError("--plan-digest goes with --apply")
    return op_id, fields


MAX_CAPSULE_BYTES = 64 * 1024 * 1024  # a Capsule file; budgets cap real ones far below


def context_build(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`context build`: --query-mode kind:text; a goal made only of spaces is invalid_goal."""
    _query_modes(fields)
    if not 1 <= fields.get("budgetTokens", 0) <= 1_000_000:
        from gno.errors import InvalidBudgetError

        raise InvalidBudgetError("Context budget is invalid or too small for any evidence.",
                                 details={"reason": "--budget is required"})  # fmt: skip
    return op_id, fields


def context_verify(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`context verify <file|->`: the Capsule read from the file (or stdin) as JSON."""
    import json
    import sys

    from gno.errors import ContextInputError
    from gno.ingest.reading import read_regular

    source = fields.get("capsule")
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_CAPSULE_BYTES + 1)
            if len(data) > MAX_CAPSULE_BYTES:
                raise ValueError("too large")
        else:
            data = read_regular(str(source), MAX_CAPSULE_BYTES)
        capsule = json.loads(data.decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise ContextInputError("Context input is invalid.", details={"reason": str(exc)}) from None
    if not isinstance(capsule, dict):
        raise ContextInputError("Context input is invalid.", details={"reason": "not an object"})
    return op_id, fields | {"capsule": capsule}


def ask(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`gno ask`: 5 results in the terminal, 20 in JSON/Markdown; --query-mode kind:text."""
    search_limit(op_id, fields, fmt)
    _query_modes(fields)
    return op_id, fields


def egress_check(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`collection policy check --authenticated --authorized`: the two flags are the
    ``caller`` object of the operation input (spec/egress.md)."""
    authenticated = bool(fields.pop("authenticated", False))
    authorized = bool(fields.pop("authorized", False))
    fields["caller"] = {"authenticated": authenticated, "operationAuthorized": authorized}
    return op_id, fields


def egress_purge(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`egress-audit purge` deletes every receipt: only with --confirm (the input's
    ``confirm: true``, which the model alone would default)."""
    if fields.get("confirm") is not True:
        raise ValidationError("egress-audit purge deletes every receipt: pass --confirm")
    return op_id, fields
