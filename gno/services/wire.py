"""The CLI's lean read path: a read answered from its wire form, without pydantic.

Importing pydantic and building the first model costs more than a whole `gno search`
(bench/README.md, "CLI start"). An operation whose registry entry names a ``payload``
function (the handler's work, answering the output's wire form as a dict) can therefore
run without any model: ``lean_input`` checks the fields against the input schema and
``answer`` puts the payload in the form the output model would dump, both through
``gno.core.wire``, which declines whatever it cannot prove equal. A declined input goes
the usual way (``gno.services.validated``: pydantic, and its error message); a declined
answer is validated into the output model. What the user sees is the same bytes either
way (tests/services/test_wire_path.py).
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import TYPE_CHECKING, Any

import gno_contracts

from gno.core.wire import Unsure, Wire, canonical, checked, wire_json

if TYPE_CHECKING:
    from gno_contracts.operations import Operation
    from pydantic import BaseModel


@cache
def contract_schema(schema_id: str) -> dict[str, Any]:
    """A contract schema (``gno://schemas/name@x.y``) as shipped in gno_contracts/schemas."""
    name = schema_id.removeprefix("gno://schemas/").split("@")[0]
    # a plain file read: importlib.resources would import tempfile on every `gno search`
    path = os.path.join(os.path.dirname(gno_contracts.__file__), "schemas", f"{name}.json")
    with open(path, encoding="utf-8") as schema:
        return json.load(schema)  # type: ignore[no-any-return]


def lean_input(op: Operation, fields: dict[str, Any]) -> Wire | None:
    """The input, read like its model, when the operation has a payload function and the
    fields are certainly valid; None sends the call down the pydantic path."""
    if op.payload is None:
        return None
    schema = contract_schema(op.input_schema)
    completed = checked(schema, fields)
    return None if completed is None else Wire(schema, completed)


def answer(op: Operation, payload: dict[str, Any]) -> Any:
    """The payload as the CLI shows it: a ``Wire`` over the form the output model dumps,
    or, where that form is not certain, the output model itself."""
    schema = contract_schema(op.output_schema)
    try:
        return Wire(schema, canonical(schema, payload))
    except Unsure:
        return modelled(op, payload)


def json_answer(op: Operation, payload: dict[str, Any]) -> bytes | BaseModel:
    """The payload as REST sends it: the model's JSON bytes made from the wire form without
    building the model (for a page of 1,000 journal entries that is most of the answer's
    time), or, where the form is not certain, the output model itself."""
    schema = contract_schema(op.output_schema)
    try:
        return wire_json(canonical(schema, payload))
    except Unsure:
        return modelled(op, payload)


def execute(app: Any, op: Operation, inp: Any, **extra: Any) -> Any:
    """Run ``op``: a lean input (``Wire``) through its payload function, no model on either
    side; a model through its handler."""
    from gno.services import handler, resolve

    if isinstance(inp, Wire):
        return answer(op, resolve(op.payload)(app, inp, **extra))
    return handler(op.id)(app, inp, **extra)


def modelled(op: Operation, payload: dict[str, Any]) -> BaseModel:
    from gno.services import model

    return model(op.output_model).model_validate(payload)


def as_models(op: Operation, inp: Any, result: Any) -> tuple[Any, Any]:
    """Input and result as models, whichever path made them (a trace records models)."""
    from gno.services import validated

    if isinstance(inp, Wire):
        inp = validated(op.id, inp.wire)
    if isinstance(result, Wire):
        result = modelled(op, result.wire)
    return inp, result
