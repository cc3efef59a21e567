"""CLI rules the registry cannot say as data (its ``cli.prepare`` references): GNO's
CLI spellings that are more than a flag per field."""

from __future__ import annotations

from typing import Any

from gno.errors import ValidationError

QUERY_MODES = ("term", "intent", "hyde")
NOT_IN_DIAGNOSE = ("explain",)


Prepared = tuple[str, dict[str, Any]]  # (operation id to run, its input fields)


def search_limit(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """GNO's CLI shows 5 hits in the terminal (the schema default) and 20 in every
    machine format, unless -n says otherwise."""
    if "limit" not in fields and fmt is not None:
        fields["limit"] = 20
    return op_id, fields


def _query_modes(raw: list[str]) -> list[dict[str, str]]:
    modes = []
    for item in raw:
        mode, sep, text = item.partition(":")
        if not sep or mode not in QUERY_MODES or not text.strip():
            raise ValidationError(
                f"Invalid --query-mode {item!r}: use term:<text>, intent:<text> or hyde:<text>"
            )
        modes.append({"mode": mode, "text": text.strip()})
    return modes


def query(op_id: str, fields: dict[str, Any], fmt: str | None) -> Prepared:
    """`--query-mode kind:text`, and GNO's `gno query diagnose <query> --target <ref>`,
    which runs query_diagnose instead."""
    search_limit(op_id, fields, fmt)
    if "queryModes" in fields:
        fields["queryModes"] = _query_modes(fields["queryModes"]) or None
        if fields["queryModes"] is None:
            del fields["queryModes"]
    words: list[str] = fields.pop("query")
    target = fields.pop("target", None)
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
