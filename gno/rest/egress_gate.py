"""Egress enforcement of a server, per request (spec/egress.md, surfaces.md §3.6).

Every REST route, every ``/api/op`` call of the SDK and every ``/mcp`` tool or resource
request asks ``EgressGate.admit`` before its handler runs: the caller's zone comes from
the socket peer alone (``gno.core.egress.zone_of``; forwarding headers never count). A
loopback caller returns at once — nothing leaves the machine, nothing is read, nothing
recorded. Any other caller is judged against the current policies of the collections the
request touches (``gno.services.egress.judge``): the content-free receipt is appended
before anything is sent, a denial raises ``EgressDeniedError`` (403) and nothing runs.
``confirm`` runs after the handler and before the answer leaves: when a policy of those
collections changed meanwhile it raises ``EgressPolicyChangedError`` (409) and the answer
is dropped. The checks use their own connection (``EgressLedger``), so they never wait
behind a write of the owner's.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

from gno.adapters.sqlite.egress import EgressLedger
from gno.core.egress import Caller, zone_of
from gno.errors import EgressDeniedError, EgressPolicyChangedError
from gno.rest.mcp_http import buffered, decoded
from gno.rest.security import AUTHENTICATED
from gno.rest.trace_lineage import TraceLineage
from gno.services import egress as policies

Scope = MutableMapping[str, Any]


def peer_zone(scope: Scope) -> str:
    client = scope.get("client")
    return zone_of(client[0] if client else None)


Lineage = Callable[[str, Mapping[str, Any]], "TraceLineage | None"]


class EgressGate:
    def __init__(
        self,
        ledger: EgressLedger,
        configured: Callable[[], list[str]],
        lineage: Lineage | None = None,
    ):
        self.ledger = ledger
        self._configured = configured  # the collections index.yml names now
        # The collections the traces a trace_show/trace_export names hold documents of
        # (None: judge every collection), as GNO judges a trace export by its lineage.
        self._lineage = lineage

    @classmethod
    def for_runtime(cls, runtime: Any) -> EgressGate:
        """The gate of a resident server: its index file, its owner's index.yml."""
        from gno.rest.trace_lineage import trace_collections

        owner = runtime.owner
        db_path = owner.paths.db_path
        ledger = EgressLedger(db_path)
        return cls(
            ledger,
            lambda: policies.configured(owner),
            lambda op_id, args: trace_collections(db_path, op_id, args, ledger.arrivals),
        )

    def known(self, index_names: list[str]) -> list[str]:
        """Collections of index.yml and of the index: a request naming none may reach
        any of them (the union also covers a config the server has not re-read yet)."""
        return list(dict.fromkeys([*self._configured(), *index_names]))

    def admit(
        self,
        scope: Scope,
        *,
        surface: str,
        operation: str,
        op_id: str,
        args: Mapping[str, Any],
        authenticated: bool,
        authorized: bool,
    ) -> policies.Verdict | None:
        """None for a caller on this machine; else the verdict (allowed), after recording
        its receipt. A denial is recorded, then raised."""
        zone = peer_zone(scope)
        if zone == "loopback" or op_id in policies.UNGOVERNED:
            return None
        rows, epoch, index_names = self.ledger.snapshot()
        known = self.known(index_names)
        if op_id in policies.JOURNAL_READS:
            known = list(dict.fromkeys([*known, *self.ledger.journal_collections()]))
        names = policies.touched(op_id, args, known)
        earlier: frozenset[str] = frozenset()
        traced = None
        if self._lineage is not None and op_id in policies.TRACE_LINEAGE:
            traced = self._lineage(op_id, args)
        if traced is not None:
            names, earlier = traced.names, traced.earlier
        verdict = policies.judge(
            rows=rows,
            epoch=epoch,
            names=names,
            earlier=earlier,
            zone=zone,
            caller=Caller(authenticated, authorized),
            surface=surface,
            operation=operation,
            content_class=policies.CONTENT_CLASS.get(op_id, "source"),
        )
        receipt = verdict.receipt or {}
        self.ledger.append(
            receipt["auditId"], receipt["createdAt"], json.dumps(receipt, separators=(",", ":"))
        )
        if not verdict.decision.allowed:
            raise EgressDeniedError(
                policies.DENIED_MESSAGE, details=policies.denial_details(verdict)
            )
        return verdict

    def confirm(self, verdict: policies.Verdict | None) -> None:
        """Raise when a policy of the verdict's collections changed since it was made."""
        if verdict is None or self.ledger.epoch() == verdict.epoch:
            return
        rows, _, _ = self.ledger.snapshot()
        after = policies.states_of(verdict.names, rows, verdict.earlier)
        if after != verdict.states:
            raise EgressPolicyChangedError(
                "EGRESS_POLICY_CHANGED: a collection egress policy changed while the request "
                "ran; nothing was sent, retry"
            )


def guard_for(
    gate: EgressGate, scope: Scope, op: Any, inp: Any, surface: str
) -> Callable[[Callable[[], Any]], Any] | None:
    """For a caller off this machine, the wrapper a REST or ``/api/op`` request's work runs
    in, on the worker thread it already takes (no extra hop): judge and record, run,
    re-check the policy before the answer leaves. None for a loopback caller: one
    address check is all it pays."""
    if peer_zone(scope) == "loopback":
        return None
    args = inp.model_dump(mode="json", exclude_unset=True) if hasattr(inp, "model_dump") else {}
    authenticated = bool(scope.get(AUTHENTICATED))

    def guarded(work: Callable[[], Any]) -> Any:
        verdict = gate.admit(
            scope,
            surface=surface,
            operation=op.id,
            op_id=op.id,
            args=args,
            authenticated=authenticated,
            # REST has no write gate: a token that reaches the route may run it.
            authorized=authenticated,
        )
        result = work()
        gate.confirm(verdict)
        return result

    return guarded


# ---------------------------------------------------------------- /mcp

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGI = Callable[[Scope, Receive, Send], Awaitable[None]]


def _tool_ops() -> dict[str, Any]:
    from gno_contracts.operations import OPERATIONS

    return {op.mcp.tool: op for op in OPERATIONS if op.mcp is not None}


def mcp_requests(parsed: Any) -> list[tuple[str, str, dict[str, Any], str, Any]]:
    """(operation id, name for the receipt, arguments, access, JSON-RPC id) of every
    message in a decoded ``/mcp`` POST body (gno/rest/mcp_http.py ``decoded``) that hands out
    collection content: tool calls and resource reads and listings. An unreadable body holds
    none: the SDK answers it (-32700)."""
    found: list[tuple[str, str, dict[str, Any], str, Any]] = []
    ops = _tool_ops()
    for message in parsed if isinstance(parsed, list) else [parsed]:
        if not isinstance(message, dict):
            continue
        method, params = message.get("method"), message.get("params")
        params = params if isinstance(params, dict) else {}
        rid = message.get("id") if isinstance(message.get("id"), str | int) else None
        if method == "tools/call":
            name = params.get("name")
            op = ops.get(name) if isinstance(name, str) else None
            arguments = params.get("arguments")
            if op is not None:
                args = arguments if isinstance(arguments, dict) else {}
                found.append((op.id, op.mcp.tool, args, op.access, rid))
        elif method == "resources/read":
            uri = params.get("uri")
            found.append(("get", method, {"uri": uri} if isinstance(uri, str) else {}, "read", rid))
        elif method in ("resources/list", "resources/templates/list"):
            found.append(("ls", method, {}, "read", rid))
    return found


def _rpc_error(status: int, code: int, message: str, data: Any, rid: Any) -> Any:
    from starlette.responses import Response

    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body = {"jsonrpc": "2.0", "error": error, "id": rid}
    return Response(
        json.dumps(body, separators=(",", ":")).encode(),
        status_code=status,
        media_type="application/json",
    )


class McpEgressGate:
    """``/mcp``'s egress check, after the write gate and before the SDK (§3.6): a denied
    request gets HTTP 403 ``-32003`` with the content-free audit data; an allowed one whose
    policies change before its answer leaves gets 409 ``EGRESS_POLICY_CHANGED`` instead.
    A loopback peer passes untouched (its body is not even read here)."""

    def __init__(self, app: ASGI, gate: EgressGate, *, enable_write: bool) -> None:
        self.app, self.gate, self.enable_write = app, gate, enable_write

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or peer_zone(scope) == "loopback"
        ):
            await self.app(scope, receive, send)
            return
        body, replay = await buffered(receive)
        import anyio.to_thread

        authenticated = bool(scope.get(AUTHENTICATED))
        verdicts: list[policies.Verdict] = []
        for op_id, name, args, access, rid in mcp_requests(decoded(scope, body)):
            authorized = authenticated and (access == "read" or self.enable_write)

            def work(
                op_id: str = op_id,
                name: str = name,
                args: dict[str, Any] = args,
                ok: bool = authorized,
            ) -> policies.Verdict | None:
                return self.gate.admit(
                    scope, surface="mcp_http", operation=name, op_id=op_id, args=args,
                    authenticated=authenticated, authorized=ok,
                )  # fmt: skip

            try:
                verdict = await anyio.to_thread.run_sync(work)
            except EgressDeniedError as exc:
                data = {k: v for k, v in (exc.details or {}).items() if k != "auditId"}
                await _rpc_error(403, -32003, policies.DENIED_MESSAGE, data, rid)(
                    scope, receive, send
                )
                return
            if verdict is not None:
                verdicts.append(verdict)
        if not verdicts:
            await self.app(scope, replay, send)
            return
        await self.app(scope, replay, self._confirming(scope, receive, send, verdicts))

    def _confirming(
        self, scope: Scope, receive: Receive, send: Send, verdicts: list[policies.Verdict]
    ) -> Send:
        """``send`` that holds the response start until the first body bytes, and sends
        409 instead when a policy changed meanwhile (the held answer is dropped)."""
        import anyio.to_thread

        held: list[Message] = []
        state = {"decided": False, "refused": False}

        async def guarded(message: Message) -> None:
            if state["refused"]:
                return
            if state["decided"]:
                await send(message)
                return
            if message["type"] == "http.response.start":
                held.append(message)
                return
            if message["type"] == "http.response.body":
                state["decided"] = True
                try:
                    for verdict in verdicts:
                        await anyio.to_thread.run_sync(self.gate.confirm, verdict)
                except EgressPolicyChangedError as exc:
                    state["refused"] = True
                    await _rpc_error(409, -32003, exc.message, None, None)(scope, receive, send)
                    return
                for start in held:
                    await send(start)
            await send(message)

        return guarded


# ---------------------------------------------------------------- hand-written routes

# Routes outside the registry that hand out collection content: file bytes and the
# document-change stream. The event stream may carry every collection; an asset is judged
# by the collection of its ``uri`` (policies.touched), or by every one when it has none.
CONTENT_PATHS = {"/api/doc-asset": "attachment", "/api/events": "metadata"}


def _asset_args(scope: Scope) -> dict[str, Any]:
    from urllib.parse import parse_qs

    query = scope.get("query_string", b"").decode("latin-1")
    try:
        uris = parse_qs(query, max_num_fields=64).get("uri") or []
    except ValueError:  # more fields than any asset request has: judged by every collection
        return {}
    return {"uri": uris[0]} if len(uris) == 1 else {}  # two uris: not for us to pick


class EgressPaths:
    """The egress check of ``CONTENT_PATHS`` (registry routes check in their endpoint)."""

    def __init__(self, app: ASGI, gate: EgressGate) -> None:
        self.app, self.gate = app, gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path not in CONTENT_PATHS or peer_zone(scope) == "loopback":
            await self.app(scope, receive, send)
            return
        import anyio.to_thread

        from gno.rest.errors import gno_error_response

        authenticated = bool(scope.get(AUTHENTICATED))
        args = _asset_args(scope) if path == "/api/doc-asset" else {}

        def work() -> policies.Verdict | None:
            return self.gate.admit(
                scope, surface="rest", operation=path, op_id=path, args=args,
                authenticated=authenticated, authorized=authenticated,
            )  # fmt: skip

        try:
            await anyio.to_thread.run_sync(work)
        except EgressDeniedError as exc:
            await gno_error_response(exc, [], remote=True)(scope, receive, send)
            return
        await self.app(scope, receive, send)
