"""Helpers shared by the command modules: formats, input models, handler calls."""

from __future__ import annotations

from typing import Any

import typer

from gno.errors import ValidationError


def settings(ctx: typer.Context) -> Any:
    return ctx.find_root().obj


def pick_format(ctx: typer.Context, **flags: bool) -> str | None:
    """The one output format asked for (None = terminal text)."""
    chosen = [name for name, on in flags.items() if on]
    if settings(ctx).json and "json" not in chosen:
        chosen.append("json")
    if len(chosen) > 1:
        raise ValidationError(
            f"Choose one output format, not {' and '.join('--' + c for c in chosen)}"
        )
    return chosen[0] if chosen else None


def split_csv(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def build(model: type, **fields: Any) -> Any:
    """The operation's input model; unset (None) flags fall back to schema defaults."""
    from pydantic import ValidationError as PydanticError

    try:
        return model.model_validate({k: v for k, v in fields.items() if v is not None})
    except PydanticError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "input"
        raise ValidationError(f"Invalid {where}: {first['msg']}") from None


def call(ctx: typer.Context, op_id: str, inp: Any, **extra: Any) -> Any:
    from gno.services import handler

    app = settings(ctx).make_app()
    try:
        return handler(op_id)(app, inp, **extra)
    finally:
        app.close()
