"""Services: one typed handler per registry operation, ``handler(app, Input) -> Output``.

Which function handles an operation is declared in schemas/operations.yaml
(``handler``, ``starter``) and resolved here on first use, so ``gno search``
imports only the modules its own operation needs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from gno_contracts.operations import BY_ID

if TYPE_CHECKING:
    from pydantic import BaseModel

Handler = Callable[..., Any]  # (app, input model, **surface extras) -> output model


@cache
def resolve(ref: str) -> Any:
    """``"package.module:name"`` from the registry -> the object (imported on first use)."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def handler(op_id: str) -> Handler:
    return resolve(BY_ID[op_id].handler)  # type: ignore[no-any-return]


def starter(op_id: str) -> Callable[[Any, BaseModel], Any]:
    """A job operation's starter: checks, starts the work, answers a receipt at once."""
    ref = BY_ID[op_id].starter
    if ref is None:
        raise KeyError(f"{op_id} is not a job operation")
    return resolve(ref)  # type: ignore[no-any-return]


def model(ref: str) -> type[BaseModel]:
    """``"module:Class"`` from the registry -> the generated pydantic class."""
    return resolve(f"gno_contracts.models.{ref}")  # type: ignore[no-any-return]


def validated(op_id: str, fields: dict[str, Any]) -> BaseModel:
    """The operation's generated input model from ``fields``, as the CLI and the SDK build it:
    a bad value is a ``ValidationError`` naming the first bad field (`Invalid limit: ...`)."""
    from pydantic import ValidationError as ModelError

    from gno.errors import ValidationError

    try:
        return model(BY_ID[op_id].input_model).model_validate(fields)
    except ModelError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "input"
        raise ValidationError(f"Invalid {where}: {first['msg']}") from None
