"""MCP tools made from the operations registry, and one tool call from arguments to result.

Nothing here lists tools by hand: every registry operation with an MCP binding
is a tool, with the operation's input schema, its output schema (or, for a
job tool, the receipt it answers with at once) and annotations derived from
its access. Profiles and the write gate decide which tools exist in a server;
a tool outside them is unknown, not hidden.

The low-level SDK server does not validate arguments, so ``call`` does: a bad
argument becomes an ``isError`` result naming the field, like every other
failure (GNO's envelope: text ``Error: <message>``, structured
``{error: CODE, message}``). Nothing here imports the MCP SDK: results are
plain dicts, turned into SDK types by ``server.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from gno_contracts.operations import OPERATIONS, Operation

from gno.app import App
from gno.core.input_keys import known_arguments
from gno.core.wire import Wire
from gno.core.wire_values import unusable_value
from gno.errors import GnoError
from gno.render import json_text  # the CLI's --json text: large answers by orjson
from gno.services.call import Call, bind
from gno.services.wire import contract_schema

PROFILES = ("full", "core")
# GNO's core profile in its playbook's retrieval order (gno_query first); the registry
# says which tools are in core, this only orders them (tools gno lacks are skipped).
CORE_ORDER = (
    "gno_query",
    "gno_search",
    "gno_get",
    "gno_multi_get",
    "gno_context",
    "gno_changes",
    "gno_recall",
    "gno_capture",
    "gno_remember",
)
JSON_SCHEMA_2020 = "https://json-schema.org/draft/2020-12/schema"


@cache
def load_schema(schema_id: str) -> dict[str, Any]:
    """A contract schema by ``$id``, as advertised to clients (stamped 2020-12, no gno:// ``$id``)."""
    schema = dict(contract_schema(schema_id))  # a copy: the loaded schema is shared
    schema.pop("$id", None)
    schema["$schema"] = JSON_SCHEMA_2020
    return schema


@dataclass(frozen=True)
class Tool:
    op: Operation
    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    read_only: bool
    destructive: bool
    idempotent: bool


def tools(profile: str = "full", enable_write: bool = False) -> dict[str, Tool]:
    """The tools of a server with this profile and write gate, by name, in registry order."""
    if profile not in PROFILES:
        raise ValueError(f"Unknown tool profile {profile!r} (choose {' or '.join(PROFILES)})")
    found: dict[str, Tool] = {}
    for op in OPERATIONS:
        if op.mcp is None or profile not in op.mcp.profiles:
            continue
        if op.access == "write" and not enable_write:
            continue
        brief = op.mcp.brief if profile == "core" else None
        found[op.mcp.tool] = Tool(
            op=op,
            name=op.mcp.tool,
            description=brief or op.summary,
            input_schema=load_schema(op.input_schema),
            output_schema=load_schema(op.mcp.receipt or op.output_schema),
            read_only=op.access == "read",
            destructive=op.mcp.destructive,
            idempotent=op.access == "read" or op.mcp.idempotent,
        )
    if profile == "core":
        rank = {name: i for i, name in enumerate(CORE_ORDER)}
        found = dict(sorted(found.items(), key=lambda item: rank.get(item[0], len(rank))))
    return found


@cache
def _validator(schema_id: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(schema_id))


def argument_error(tool: Tool, arguments: dict[str, Any]) -> str | None:
    """The first way ``arguments`` break the tool's input schema, naming the field; None if valid."""
    errors = sorted(
        _validator(tool.op.input_schema).iter_errors(arguments), key=lambda e: list(e.path)
    )
    if not errors:
        return None
    first = errors[0]
    where = ".".join(str(p) for p in first.absolute_path)[:200]
    # jsonschema's message quotes the offending value whole: a 200 KB title would come back
    # twice (text and structuredContent), past what an MCP client reads in one event.
    detail = first.message if len(first.message) <= 200 else first.message[:200] + "…"
    if first.validator in ("additionalProperties", "required"):  # the message names the field
        return f"Invalid arguments: {detail}"
    return f"Invalid arguments: {where or 'input'}: {detail}"


@dataclass(frozen=True)
class Outcome:
    """A tool result before it becomes an SDK object."""

    text: str
    structured: dict[str, Any]
    is_error: bool = False
    meta: dict[str, Any] | None = None  # the result's _meta (a retrieval trace id)


MAX_ERROR_MESSAGE = 2000  # an error names the problem; it never echoes a whole argument


def failure(code: str, message: str) -> Outcome:
    if len(message) > MAX_ERROR_MESSAGE:
        message = message[:MAX_ERROR_MESSAGE] + "…"
    # GNO's context tools spell their lowercase code in the text: `Error [no_evidence]: ...`.
    text = f"Error [{code}]: {message}" if code.islower() else f"Error: {message}"
    return Outcome(text, {"error": code, "message": message}, is_error=True)


def _answer(app: App, op: Operation, inp: Any) -> Any:
    """A read with a payload function answers its wire form (a ``Wire``, read like the model
    by the text functions), as REST does: no output model, which for a page of 1,000
    journal entries cost four times the page itself. Anything else: the handler's model."""
    from gno.services import handler, resolve
    from gno.services.wire import answer

    if op.payload is None:
        return handler(op.id)(app, inp)
    return answer(op, resolve(op.payload)(app, inp))


def call(app: App, tool: Tool, arguments: dict[str, Any], context: Call | None = None) -> Outcome:
    """Run one tool call to completion (blocking), its handler under ``context`` (a stdio
    call when none is given). Never raises for a user-visible failure."""
    with bind(context or Call("mcp")):
        return _call(app, tool, arguments)


def _call(app: App, tool: Tool, arguments: dict[str, Any]) -> Outcome:
    from pydantic import BaseModel
    from pydantic import ValidationError as PydanticError

    from gno.services import model, resolve, starter

    if problem := unusable_value(arguments):  # lone surrogates, NaN/Infinity
        return failure("VALIDATION", f"Invalid arguments: {problem}")
    arguments = known_arguments(tool.input_schema, arguments)  # GNO ignores unknown keys
    if problem := argument_error(tool, arguments):
        return failure("VALIDATION", problem)
    try:
        inp = model(tool.op.input_model).model_validate(arguments)
    except PydanticError as exc:  # the schema passed, the model did not: still the caller's input
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "input"
        return failure("VALIDATION", f"Invalid arguments: {where}: {first['msg']}")
    text = tool.op.mcp.text if tool.op.mcp else None
    meta = None
    try:
        if tool.op.job:  # a receipt, answered at once
            receipt = starter(tool.op.id)(app, inp)
            payload = (
                receipt.model_dump(mode="json", exclude_unset=True)
                if isinstance(receipt, BaseModel)
                else receipt
            )
            shown = json_text(payload)
        else:
            result = _answer(app, tool.op, inp)
            from gno.services.trace_surface import TRACED_OPERATIONS, mcp_meta, record_call

            if tool.op.id in TRACED_OPERATIONS:
                meta = mcp_meta(record_call(app, tool.op.id, inp, result))
            payload = (
                result.wire
                if isinstance(result, Wire)
                else result.model_dump(mode="json", exclude_unset=True)
            )
            shown = resolve(text)(arguments, result) if text else json_text(payload)
    except GnoError as exc:
        return failure(exc.code, exc.message)
    except Exception as exc:  # a bug must not kill the session: report it like the CLI does
        import traceback

        traceback.print_exc()  # stderr: stdout belongs to the protocol
        return failure(
            "RUNTIME", f"Internal error ({type(exc).__name__}: {exc}). Please report it."
        )
    return Outcome(shown, payload, meta=meta)
