"""One HTTP route per registry operation with a ``rest`` binding.

A request becomes arguments (JSON body for POST, else query and path
parameters), is validated once into the generated model of the schema the route
publishes (the REST input schema when the binding names one, else the
operation's): strict JSON validation of the model when it states every rule of
the schema (else, e.g. combinators or uniqueItems, the JSON Schema validator checks
first), mapped to the operation's typed input model by the binding's ``body``
function (which checks only what it derived, e.g. comma strings become bounded
lists, and builds the operation input without validating again), run by
the same handler as the CLI and MCP where the operation's ``execution`` says (a
pooled reader, the owner App one write at a time, process memory, or the
search lane), and answered as the operation output or the binding's ``view``,
without host paths for a caller on another host. ``cancellable`` reads are cancelled when the client disconnects
(``disconnect``); ``memory`` reads need no reader, so liveness and status
answer even when every reader is busy. Everything per operation comes from
the registry (schemas/operations.yaml); nothing here names an operation.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
from gno_contracts.operations import OPERATIONS, Operation
from pydantic import BaseModel
from pydantic import ValidationError as ModelError
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from gno.core.input_keys import is_closed, known_arguments
from gno.core.wire_values import reject_constant, unusable_value
from gno.errors import Cancelled, ForbiddenError, GnoError, ValidationError
from gno.rest import bodies, openapi, path_ids, views
from gno.rest.disconnect import run_until_disconnect
from gno.rest.egress_gate import EgressGate, guard_for
from gno.rest.errors import catalog_response, gno_error_response
from gno.rest.result_cache import ResultCache
from gno.rest.search_lane import SearchLane
from gno.rest.search_processes import Dumped, SearchProcesses
from gno.rest.security import BodyTooLarge, same_host
from gno.rest.trace_header import TraceNote, trace_note
from gno.services import handler, model, resolve
from gno.services.call import Call, bind, http_zone
from gno.services.input_check import parse_request
from gno.services.trace_surface import SAME_HOST_ONLY, TRACE_HEADER, record_call
from gno.services.wire import json_answer

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
ERROR_STATUSES = (400, 401, 403, 404, 409, 413, 429, 503)
ERROR_SCHEMA = "gno://schemas/api-error@1.0"


@dataclass(frozen=True)
class Route:
    op: Operation
    method: str
    path: str
    status: int
    input_schema: str  # what the caller sends (REST body/query schema)
    output_schema: str  # what the caller gets
    path_params: tuple[str, ...]

    @property
    def has_body(self) -> bool:
        return self.method in BODY_METHODS


def routes() -> list[Route]:
    """Every REST route of the registry; fixed paths before templated ones (jobs/active)."""
    found = []
    for op in OPERATIONS:
        if op.rest is None:
            continue
        b = op.rest
        found.append(
            Route(
                op,
                b.method,
                b.path,
                b.status,
                b.input_schema or op.input_schema,
                b.output_schema or op.output_schema,
                tuple(re.findall(r"{(\w+)}", b.path)),
            )
        )
    return sorted(found, key=lambda r: "{" in r.path)


def _query_args(route: Route, request: Request) -> dict[str, Any]:
    """Query and path parameters as the schema's types (query strings carry text only)."""
    props = openapi.contract_schema(route.input_schema).get("properties", {})
    args: dict[str, Any] = dict(request.query_params)
    for name, prop in props.items():  # an array is the parameter repeated (?collection=a&…)
        if prop.get("type") == "array" and name in args:
            args[name] = request.query_params.getlist(name)
    args.update(request.path_params)
    for name, value in args.items():
        kind = props.get(name, {}).get("type")
        if not isinstance(value, str):
            continue
        if kind == "integer" and re.fullmatch(r"-?\d{1,18}", value):
            args[name] = int(value)
        elif kind == "boolean" and value in ("true", "false"):
            args[name] = value == "true"
        elif kind == "number" and re.fullmatch(r"-?\d{1,18}(\.\d{1,18})?", value):
            args[name] = float(value)
    return args


async def _body_args(request: Request) -> dict[str, Any] | Response:
    try:
        raw = await request.body()
    except ClientDisconnect:  # gone (or cut by the body deadline): nobody to answer
        return Response(status_code=Cancelled.http_status)
    if not raw.strip():
        return {}
    try:
        parsed = json.loads(raw, parse_constant=reject_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):  # NaN/Infinity, nesting too deep
        return catalog_response("INVALID_JSON")
    if not isinstance(parsed, dict):
        return catalog_response("NOT_AN_OBJECT")
    return parsed


def _with_path(route: Route, body: dict[str, Any], path: dict[str, str]) -> dict[str, Any]:
    """``/api/docs/{id}/rename``, ``PATCH /api/collections/{collection}``: the path names
    the target and the body is the rest (GNO's bodies never carry it; the OpenAPI body
    schema leaves it out, ``openapi.body_components``). A closed body refuses it as any
    unknown key; an open one ignores it, as GNO ignores every key it does not document."""
    given = sorted(set(body) & set(path))
    if given and is_closed(openapi.contract_schema(route.input_schema)):
        raise ValidationError(
            f"Invalid request: {given[0]}: the path names the target, not the body"
        )
    return {**{k: v for k, v in body.items() if k not in path}, **path}


class Dispatcher:
    """Runs operations for the routes: reads on the reader pool, writes one at a time."""

    def __init__(self, runtime: Any, search_processes: int = 0) -> None:
        self.runtime = runtime
        self._write_lock: threading.Lock = runtime.write_lock  # shared with the file watcher
        paths = runtime.owner.paths
        self.server_paths = [
            str(p) for p in (paths.config_file.parent, paths.data_dir, paths.cache_dir)
        ]
        self.paths = paths
        self.cache = ResultCache(paths.db_path, paths.config_file)
        self.processes = (
            SearchProcesses(runtime.owner.paths, runtime.owner.mode, search_processes, _lane_refs())
            if search_processes > 0
            else None
        )
        self.lane = SearchLane(runtime.readers, processes=self.processes)
        self.egress = EgressGate.for_runtime(runtime)

    async def execute(
        self,
        op: Operation,
        inp: BaseModel,
        request: Request,
        guard: Callable[[Callable[[], Any]], Any] | None = None,
        trace: TraceNote | None = None,
    ) -> Any:
        """Run ``op`` off the event loop as its execution class says: BM25 in the search
        lane (milliseconds, a few at a time), cancellable reads raced against the client's
        disconnect, the rest on a worker thread; inside ``guard`` when given (the egress
        check of a caller off this machine, ``egress_gate.guard_for``). ``trace`` (a traced
        read while tracing is on) gets the retrieval trace id the worker recorded."""
        call = Call("rest", http_zone(request.scope.get("client")))
        work: Callable[[], Any] = partial(self.run, op, inp, call, trace)
        if guard is not None:
            work = partial(guard, work)
        if op.execution == "lane":
            view = op.rest.view if op.rest else None
            # A judged call (egress guard) or a traced one runs here, never in a search
            # process, which would answer without the check or the trace record.
            here = guard is not None or trace is not None
            return await self.lane.run(work, None if here else (op.id, view, inp))
        if op.cancellable:
            return await run_until_disconnect(request, work, call.cancel)
        return await anyio.to_thread.run_sync(work)

    def run(self, op: Operation, inp: BaseModel, call: Call, trace: TraceNote | None = None) -> Any:
        """``op`` on the worker thread, with ``call`` bound for its handler."""
        with bind(call):
            return self._run(op, inp, trace)

    def _run(self, op: Operation, inp: BaseModel, trace: TraceNote | None = None) -> Any:
        view = op.rest.view if op.rest else None
        work: Callable[[Any, Any], Any] = resolve(view) if view else handler(op.id)
        if op.execution == "writer":
            owner = self.runtime.owner
            try:
                with self._write_lock:
                    owner.reload_config()  # the CLI may have edited index.yml meanwhile
                    owner.follow_index_file()  # or deleted and rebuilt the index
                    return work(owner, inp)
            finally:
                self.runtime.collections_changed()  # the watcher re-reads the roots
        if op.execution == "memory":
            return work(self.runtime.owner, inp)
        with self.runtime.readers.reader() as app:
            if op.payload is not None and view is None and trace is None:
                sent = json_answer(op, resolve(op.payload)(app, inp))
                return Dumped(sent) if isinstance(sent, bytes) else sent
            result = work(app, inp)
            if trace is not None:  # on the reader that answered (spec/traces.md)
                trace.recorded = record_call(app, op.id, inp, result, trace.incoming)
            return result


def _lane_refs() -> list[str]:
    """What a search process imports before it says ready: every lane operation's
    handler, payload function and REST view."""
    refs = []
    for op in OPERATIONS:
        if op.execution == "lane":
            refs.append(op.handler)
            if op.payload is not None:
                refs.append(op.payload)
            if op.rest is not None and op.rest.view:
                refs.append(op.rest.view)
    return refs


def endpoint(route: Route, dispatcher: Dispatcher) -> Callable[[Request], Any]:
    op = route.op
    body = resolve(op.rest.body) if op.rest and op.rest.body else None
    # What the schema check lets through is parsed once into a typed model: the REST
    # body's when it has its own (its ``body`` function builds the operation input).
    parse = model(op.rest.input_model if op.rest and op.rest.input_model else op.input_model)

    async def serve(request: Request) -> Response:
        local = same_host(request.scope)
        if op.id in SAME_HOST_ONLY and not local:  # trace mutations stay on this machine
            return gno_error_response(
                ForbiddenError("Retrieval trace changes are same-host only"),
                dispatcher.server_paths,
                remote=True,
            )
        try:
            if route.has_body:
                args = await _body_args(request)
                if isinstance(args, Response):
                    return args
                if request.path_params:
                    args = _with_path(route, args, request.path_params)
            else:
                args = _query_args(route, request)
            if problem := unusable_value(args):
                raise ValidationError(f"Invalid request: {problem}")
            args = known_arguments(openapi.contract_schema(route.input_schema), args)
            try:
                parsed = parse_request(route.input_schema, parse, args)
                inp = body(parsed, local) if body is not None else parsed
            except ModelError as exc:  # the REST model, or the operation input it maps to
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "input"
                if body is not None:
                    where = bodies.rest_field(where)
                raise ValidationError(f"Invalid request: {where}: {first['msg']}") from None
            guard = guard_for(dispatcher.egress, request.scope, op, inp, "rest")
            trace = trace_note(op.id, request, dispatcher.paths.config_file)
            # A caller off this machine is judged per request, and a traced answer is a new
            # trace each time: neither is answered from the cache.
            cached = guard is None and trace is None
            slot = dispatcher.cache.slot(op.id, inp, local) if cached else None
            if slot is not None and slot.body is not None:
                return Response(slot.body, route.status, media_type="application/json")
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
        headers = {TRACE_HEADER: trace.recorded} if trace is not None and trace.recorded else None
        if isinstance(result, Response):  # a view that answers another media type (Markdown)
            return result
        if isinstance(result, Dumped):  # a search process's answer, already JSON
            if local:
                if slot is not None:
                    slot.keep(result.json)
                return Response(result.json, route.status, media_type="application/json")
            result = json.loads(result.json)
        if isinstance(result, BaseModel):
            if local:
                content = result.model_dump_json(exclude_unset=True).encode()
                if slot is not None:
                    slot.keep(content)
                return Response(
                    content, route.status, media_type="application/json", headers=headers
                )
            result = result.model_dump(mode="json", exclude_unset=True)
        if not local:
            result = views.redact(op, result)
        content = json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode()
        if slot is not None:
            slot.keep(content)
        return Response(content, route.status, media_type="application/json", headers=headers)

    return serve


def openapi_extra(route: Route) -> dict[str, Any]:
    siblings = [r.path for r in routes() if r.method == route.method]
    if route.has_body:
        required = set(openapi.contract_schema(route.input_schema).get("required", []))
        schema = openapi.body_ref(route.input_schema, route.path_params)
        extra: dict[str, Any] = {
            "requestBody": {
                "required": bool(required - set(route.path_params)),
                "content": {"application/json": {"schema": schema}},
            }
        }
        if route.path_params:
            params = openapi.path_parameters(route.input_schema, route.path, siblings)
            extra["parameters"] = _noted(params)
        return extra
    return {
        "parameters": _noted(openapi.query_parameters(route.input_schema, route.path, siblings))
    }


def _noted(params: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A document ref in the path says how its slashes are sent (``path_ids``)."""
    for param in params:
        if param["in"] == "path" and param["name"] in path_ids.REF_PARAMS:
            param["description"] = param.get("description", "") + path_ids.REF_NOTE
    return params


def body_schemas() -> dict[str, tuple[str, ...]]:
    """Input schemas of the body routes whose path fills some fields: schema id → fields."""
    return {r.input_schema: r.path_params for r in routes() if r.has_body and r.path_params}


def responses(route: Route) -> dict[int | str, Any]:
    documented: dict[int | str, Any] = {
        route.status: {
            "description": "Success",
            "content": {"application/json": {"schema": openapi.ref(route.output_schema)}},
        }
    }
    for status in ERROR_STATUSES:
        documented[status] = {
            "description": "Error envelope",
            "content": {"application/json": {"schema": openapi.ref(ERROR_SCHEMA)}},
        }
    return documented


def schema_ids() -> set[str]:
    ids = {ERROR_SCHEMA}
    for route in routes():
        ids |= {route.input_schema, route.output_schema}
    return ids
