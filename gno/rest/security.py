"""Request gates of the REST server (surfaces.md §4.1), as one ASGI middleware.

Order per request: the gateway for the paths it guards (``gateway.py``: peer,
Host, Origin, bearer; `/mcp` on serve, everything on the daemon), else the exact
``Host`` allowlist (403 FORBIDDEN: a DNS-rebinding page names its own host), the API
token (when ``GNO_API_TOKEN`` is set: ``X-GNO-Token``, or the Web UI's session cookie from
``session.py``) and CSRF for unsafe methods → same-host-only
paths (404 for anyone else) → admission (503 while shutting down) → capacity (a
counted request past ``maxConcurrentRequests`` running and ``maxQueuedRequests`` waiting:
429 with ``Retry-After``; ``counted`` says which requests count; one waiting in line whose
client disconnects leaves the line and never runs) → body size (413) → the
app; every answer gets the security headers. A WebSocket handshake is refused
whatever it carries (gno serves none). ``same_host`` (loopback peer, loopback Host, no
forwarding header) also decides redaction in the routes.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from gno.rest.errors import catalog_response
from gno.rest.gateway import Gateway, default_hosts, refusal_response
from gno.rest.queue_watch import QueueWatch

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

# Set on a request whose caller proved a token (the gateway's bearer on a guarded path,
# else GNO_API_TOKEN): the egress rule's ``authenticated`` (gno/rest/egress_gate.py).
AUTHENTICATED = "gno.authenticated"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
FORWARDING_HEADERS = frozenset(
    {b"forwarded", b"x-forwarded-for", b"x-forwarded-host", b"x-forwarded-proto", b"x-real-ip"}
)
# The Web UI and every API answer: scripts, styles, images and connections from this origin
# only; no plugins, no <base> rewrites, no framing. The pages use no inline script or style.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)
# The interactive OpenAPI page (/docs) runs Swagger UI from this server's own files
# (gno/rest/docs_page.py) and no inline script; Swagger UI sets inline styles and
# draws icons from data: URIs, which that page alone may do.
DOCS_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:"
)
# Answerable whatever the load, so an operator can see why the server is busy: health and
# status (in-memory snapshots; ``/api/status``'s reads are bounded by the reader pool) and
# the event stream (open for as long as the client listens: it would hold a slot for good).
UNCOUNTED_PATHS = frozenset({"/api/health", "/api/status", "/api/resident/status", "/api/events"})
RETRY_AFTER_SECONDS = "1"
# The Web UI's session (gno/rest/session.py): `POST /api/session` with the token sets this
# cookie, which the token gate then takes as the token. Its value is HMAC-SHA256 of a fixed
# label keyed by the token: not the token (a page that reads cookies learns nothing it could
# send as X-GNO-Token), and a new GNO_API_TOKEN makes every old cookie worthless.
SESSION_PATH = "/api/session"
SESSION_LABEL = b"gno-web-session-v1"
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


@dataclass
class Gates:
    token: str | None = None  # GNO_API_TOKEN
    max_body_bytes: int = 1024 * 1024
    port: int | None = None  # bound port: the allowed local Origins follow it
    gateway: Gateway | None = None
    same_host_only: frozenset[str] = field(default_factory=frozenset)  # others get 404
    header_seconds: float = 10.0  # a request's headers must arrive within (rest/deadlines.py)
    body_seconds: float = 30.0  # and its body within this after them

    def session_cookie(self) -> str:
        """The session cookie's name. Browsers send a host's cookies to every port of it, so
        the name carries the port: two servers on one host never overwrite each other's."""
        return f"gno-session-{self.port}" if self.port else "gno-session"

    def session_value(self) -> str | None:
        """The session cookie's value for the current token; None when no token is set."""
        if not self.token:
            return None
        return hmac.new(self.token.encode(), SESSION_LABEL, hashlib.sha256).hexdigest()

    def own_origins(self) -> set[str]:
        """The ``Origin`` of this server's own pages: ``http://`` + each Host every route
        accepts (the loopback names with the bound port; on serve also each
        ``--mcp-allowed-host`` entry). The Host check already takes an allowed name for this
        server, so a page at that origin is the Web UI's own: refusing its writes left the UI
        opened through such a name able to read but not to save."""
        return {f"http://{host}" for host in self.allowed_hosts() or ()}

    def allowed_hosts(self) -> frozenset[str] | None:
        """Exact ``Host`` values every route accepts: the loopback names with the bound
        port plus the configured ``--mcp-allowed-host`` entries. None before a port is
        bound (in-process apps): nothing to compare with."""
        if not self.port:
            return None
        if self.gateway is not None and not self.gateway.whole_listener:
            return frozenset(h.lower() for h in self.gateway.hosts())
        return frozenset(default_hosts(self.port))


def _host_name(host: str) -> str:
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def same_host(scope: Scope) -> bool:
    """Loopback socket peer, loopback Host header, and no forwarding header."""
    client = scope.get("client")
    if not client or client[0] not in LOOPBACK_HOSTS:
        return False
    host = ""
    for name, value in scope.get("headers", []):
        if name in FORWARDING_HEADERS:
            return False
        if name == b"host":
            host = value.decode("latin-1").strip().lower()
    return _host_name(host) in LOOPBACK_HOSTS


def counted(method: str, path: str, guarded: bool) -> bool:
    """Whether a request takes one of the capacity's slots. The limits are the MCP
    gateway's (engine.md: ``gateway.limits``, the resident HTTP MCP), so only what the
    gateway guards counts: `POST /mcp` on `gno serve` (a JSON-RPC message; its GET stream and
    DELETE are bounded by the session limit), every route of `gno daemon` but
    ``UNCOUNTED_PATHS``. `gno serve`'s REST API and pages are not the gateway's: MCP calls
    piled up behind a slow one never starve them."""
    if not guarded or path in UNCOUNTED_PATHS:
        return False
    if path == "/mcp" or path.startswith("/mcp/"):
        return method == "POST"
    return True


def busy_response() -> Any:
    """GNO's answer to a request over capacity: the gateway's 429 ``Too many requests``
    (mcp-http-error@1.0), saying when to try again."""
    response = refusal_response(429)
    response.headers["retry-after"] = RETRY_AFTER_SECONDS
    return response


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


def _cookies(scope: Scope, name: str) -> list[str]:
    """Every value the request's ``Cookie`` headers give ``name``."""
    found = []
    for key, value in scope.get("headers", []):
        if key == b"cookie":
            for pair in value.decode("latin-1").split(";"):
                cookie, sep, given = pair.strip().partition("=")
                if sep and cookie == name:
                    found.append(given.strip())
    return found


class BodyTooLarge(Exception):
    pass


class GateMiddleware:
    def __init__(self, app: Any, gates: Gates, runtime: Any = None) -> None:
        self.app, self.gates, self.runtime = app, gates, runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            # No route of gno is a WebSocket, and the gates below read HTTP requests only: a
            # handshake (cross-site pages may open one to any host, unchecked by CORS) would
            # reach the mounted apps with no Host, Origin or token check. Refused (a 403).
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        csp = (DOCS_CSP if path == "/docs" else CSP).encode()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"content-security-policy", csp), *SECURITY_HEADERS]
                message["headers"] = headers
            await send(message)

        gateway = self.gates.gateway
        if gateway is not None and gateway.guards(path):
            status = gateway.refusal(scope)
            if status is not None:
                await refusal_response(status)(scope, receive, send_with_headers)
                return
            refusal = None  # the gateway's Origin allowlist stands in for CSRF here
            scope[AUTHENTICATED] = gateway.token is not None
        elif not self._host_allowed(scope):
            refusal = "FORBIDDEN"
        else:
            refusal = self._refusal(scope)
            scope[AUTHENTICATED] = bool(self.gates.token)
        if refusal is None and path in self.gates.same_host_only and not same_host(scope):
            refusal = "NOT_FOUND"
        if refusal is not None:
            await catalog_response(refusal)(scope, receive, send_with_headers)
            return
        runtime = self.runtime
        if runtime is not None and not runtime.enter_request():
            await catalog_response("UNAVAILABLE")(scope, receive, send_with_headers)
            return
        # Past the body limit or the capacity: GNO's boundary answer on the paths the gateway
        # guards (mcp-http-error@1.0, which an MCP client reads), the REST error elsewhere.
        guarded = gateway is not None and gateway.guards(path)
        too_large = refusal_response(413) if guarded else catalog_response("PAYLOAD_TOO_LARGE")
        counts = runtime is not None and counted(scope.get("method", ""), path, guarded)
        capacity = runtime.capacity if counts else None
        held = None  # the slot, once taken (a request cancelled while in line holds none)
        watch = None
        try:
            if capacity is not None:
                admitted = capacity.admit()
                if admitted is None:  # in line, watching the client (queue_watch.py)
                    watch = QueueWatch(receive, self.gates.max_body_bytes)
                    outcome = await watch.wait(capacity)
                    if outcome == "gone":
                        return  # nobody to answer
                    if outcome == "too large":
                        await too_large(scope, receive, send_with_headers)
                        return
                    admitted, receive = outcome == "admitted", watch.receive
                if not admitted:
                    await busy_response()(scope, receive, send_with_headers)
                    return
                held = capacity
            await self._with_body_limit(scope, receive, send_with_headers, too_large)
        finally:
            if watch is not None:
                watch.close()
            if held is not None:
                held.release()
            if runtime is not None:
                runtime.leave_request()

    def _host_allowed(self, scope: Scope) -> bool:
        allowed = self.gates.allowed_hosts()
        if allowed is None:
            return True
        host = _header(scope, b"host")
        return host is not None and host.strip().lower() in allowed

    def _refusal(self, scope: Scope) -> str | None:
        path, method = scope.get("path", ""), scope["method"]
        token, expected = _header(scope, b"x-gno-token"), self.gates.token
        token_ok = bool(expected) and token is not None and same_secret(token, expected or "")
        # Ending a session needs no proof: it only tells this browser to drop its cookie
        # (one made for an old token included).
        protected = (
            path.startswith("/api/")
            and path != "/api/health"
            and not (path == SESSION_PATH and method == "DELETE")
        )
        if self.gates.token and protected and not (token_ok or self._session_ok(scope)):
            return "UNAUTHORIZED"
        # Only the header stands in for CSRF: a browser attaches the cookie by itself, so a
        # cookie-authenticated write still needs an own (or no) Origin.
        if method in UNSAFE_METHODS and not token_ok:
            origin = _header(scope, b"origin")
            if origin is not None and origin.rstrip("/").lower() not in self.gates.own_origins():
                return "CSRF_VIOLATION"
        return None

    def _session_ok(self, scope: Scope) -> bool:
        expected = self.gates.session_value()
        if expected is None:
            return False
        given = _cookies(scope, self.gates.session_cookie())
        return any(same_secret(value, expected) for value in given)

    async def _with_body_limit(
        self, scope: Scope, receive: Receive, send: Send, too_large: Any
    ) -> None:
        limit = self.gates.max_body_bytes
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await too_large(scope, receive, send)
            return
        seen = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await too_large(scope, receive, send)


def same_secret(given: str, expected: str) -> bool:
    """Constant-time equality of two secrets."""
    return hmac.compare_digest(given.encode(), expected.encode())
