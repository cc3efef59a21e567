"""What both transports share: a method's arguments -> the operation's input model
(validated before anything runs), the write gate, and REST error bodies -> gno.errors."""

from __future__ import annotations

import keyword
from typing import TYPE_CHECKING, Any

from gno_contracts.operations import BY_ID, Operation

from gno import errors
from gno.errors import GnoError, ReadOnlyError

if TYPE_CHECKING:
    from pydantic import BaseModel


def prepare(op_id: str, args: dict[str, Any], write: bool) -> tuple[Operation, BaseModel]:
    """The operation and its input model. Arguments left at None are not sent (the schema
    default holds); a value ``POST /api/op/<id>`` would refuse as JSON (a wrong type, a
    bound, a missing field) is ``ValidationError`` naming the field; a write through a
    read-only client is ``ReadOnlyError`` — both before the index or the network is touched."""
    from gno.services import model
    from gno.services.input_check import sdk_input

    op = BY_ID[op_id]
    fields = {
        name.removesuffix("_") if keyword.iskeyword(name.removesuffix("_")) else name: value
        for name, value in args.items()
        if name != "self" and value is not None
    }
    inp = sdk_input(op.input_schema, model(op.input_model), fields)
    if op.access == "write" and not write:
        raise ReadOnlyError(
            f"{op_id} changes the index or the config; open the client with write=True"
        )
    return op, inp


def _classes_by_code() -> dict[str, type[GnoError]]:
    """Wire code -> the most general gno.errors class with that code (tree order)."""
    found: dict[str, type[GnoError]] = {}
    pending: list[type[GnoError]] = [GnoError]
    while pending:
        cls = pending.pop(0)
        if cls.__module__ == errors.__name__:
            found.setdefault(cls.code, cls)
        pending.extend(cls.__subclasses__())
    return found


BY_STATUS: dict[int, type[GnoError]] = {
    400: errors.ValidationError,
    401: errors.ForbiddenError,
    403: errors.ForbiddenError,
    404: errors.NotFoundError,
    409: errors.ConflictError,
    413: errors.ValidationError,
    429: errors.ReadersBusyError,
    503: errors.UnavailableError,
}


def error_from_rest(status: int, body: Any) -> GnoError:
    """A REST error envelope ``{"error": {code, message, details?}}`` as the gno.errors
    class of its code (else of its HTTP status)."""
    envelope = body.get("error") if isinstance(body, dict) else None
    if not isinstance(envelope, dict):
        envelope = {"code": "RUNTIME", "message": f"HTTP {status} without an error envelope"}
    code = str(envelope.get("code") or "RUNTIME")
    cls = _classes_by_code().get(code) or BY_STATUS.get(status, GnoError)
    details = envelope.get("details")
    message = str(envelope.get("message") or code)
    return cls(message, details=details if isinstance(details, dict) else None)
