"""``POST /api/op/<operation id>``: every registry operation in its own input and output shape.

The REST routes of ``routes`` speak GNO's REST spellings (their own bodies and views).
The SDK's remote transport needs the opposite: the operation's input model in, the same
output model the CLI and MCP get out, so a script gives the same answers against a
local index and a running server. One route per operation, made from the registry
like the others; each runs the operation's handler (never its REST ``view`` or job
``starter``: a job operation answers when its work is done) through the same dispatcher
(reader pool, one writer at a time, the search lane), with the same validation, error
envelope, gate middleware (token, CSRF) and host-path redaction for remote callers.
A ``cacheable`` operation's answers go through the REST result cache too, filed apart
from the REST route's (which are its view).
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import Any

from gno_contracts.operations import OPERATIONS, Operation
from pydantic import BaseModel
from pydantic import ValidationError as ModelError
from starlette.requests import Request
from starlette.responses import Response

from gno.core.wire_values import unusable_value
from gno.errors import Cancelled, ForbiddenError, GnoError, ValidationError
from gno.rest import views
from gno.rest.egress_gate import guard_for
from gno.rest.errors import catalog_response, gno_error_response
from gno.rest.result_cache import Slot
from gno.rest.routes import Dispatcher, Route, _body_args
from gno.rest.search_processes import Dumped
from gno.rest.security import BodyTooLarge, same_host
from gno.rest.trace_header import trace_note
from gno.services import model
from gno.services.input_check import schema_problem
from gno.services.trace_surface import SAME_HOST_ONLY, TRACE_HEADER

PREFIX = "/api/op/"


def rpc_routes() -> list[Route]:
    """One POST route per registry operation, answering the operation's own output."""
    return [
        Route(
            op._replace(rest=None, cacheable=False),  # the handler, never a REST view
            "POST",
            PREFIX + op.id,
            200,
            op.input_schema,
            op.output_schema,
            (),
        )
        for op in OPERATIONS
    ]


def _invalid(exc: ModelError) -> ValidationError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "input"
    return ValidationError(f"Invalid request: {where}: {first['msg']}")


def rpc_endpoint(route: Route, dispatcher: Dispatcher) -> Callable[[Request], Any]:
    op: Operation = route.op
    parse = model(op.input_model)

    async def serve(request: Request) -> Response:
        local = same_host(request.scope)
        if op.id in SAME_HOST_ONLY and not local:  # as on its REST route (spec/traces.md)
            return gno_error_response(
                ForbiddenError("Retrieval trace changes are same-host only"),
                dispatcher.server_paths,
                remote=True,
            )
        try:
            args = await _body_args(request)
            if isinstance(args, Response):
                return args
            if problem := unusable_value(args):
                raise ValidationError(f"Invalid request: {problem}")
            if problem := schema_problem(route.input_schema, args):
                raise ValidationError(problem)
            try:
                inp = parse.model_validate(args)
            except ModelError as exc:
                raise _invalid(exc) from None
            guard = guard_for(dispatcher.egress, request.scope, op, inp, "sdk")
            trace = trace_note(op.id, request, dispatcher.paths.config_file)
            # A caller off this machine is judged per request, and a traced answer is a new
            # trace each time: neither is answered from the cache.
            fresh = guard is not None or trace is not None
            slot = None if fresh else dispatcher.cache.slot(op.id, inp, local, shape="op")
            if slot is not None and slot.body is not None:
                return Response(slot.body, 200, media_type=JSON)
            result = await dispatcher.execute(op, inp, request, guard, trace)
        except BodyTooLarge:
            raise
        except Cancelled:  # the client went away: nobody to answer
            return Response(status_code=Cancelled.http_status)
        except GnoError as exc:
            return gno_error_response(exc, dispatcher.server_paths, remote=not local)
        except Exception:  # a bug: logged here, never sent to the caller
            traceback.print_exc(file=sys.stderr)
            return catalog_response("RUNTIME")
        # The SDK's remote transport reads the trace id from the same header REST sends.
        traced = {TRACE_HEADER: trace.recorded} if trace is not None and trace.recorded else None
        if isinstance(result, Dumped):  # a search process's answer, already JSON
            if local:
                return _answer(result.json, slot, traced)
            payload = views.redact(op, json.loads(result.json))
        else:
            assert isinstance(result, BaseModel)
            if local:
                return _answer(result.model_dump_json(exclude_unset=True).encode(), slot, traced)
            payload = views.redact(op, result.model_dump(mode="json", exclude_unset=True))
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        return _answer(text.encode(), slot, traced)

    return serve


JSON = "application/json"


def _answer(content: bytes, slot: Slot | None, headers: dict[str, str] | None = None) -> Response:
    if slot is not None:
        slot.keep(content)
    return Response(content, 200, media_type=JSON, headers=headers)
