"""GNO's request and session limits of `/mcp` (surfaces.md §3.6), from ``gateway.limits`` in
``index.yml`` (gno/rest/gateway_config.py):

- ``maxRequestsPerMinute``: more requests than this from one socket peer address within
  any 60 seconds are answered 429 ``Too many requests`` (``mcp-http-error@1.0``) before the
  SDK reads them. The window slides: each peer keeps the times of its last N requests.
- ``maxSessions``: while that many stateful sessions are open, a request that would open
  another is 429 too (the SDK refuses it; its 503 is turned into GNO's 429 here).
- ``sessionIdleTimeoutMs``: a session with no request in flight for that long is ended
  by the SDK; its id then answers 404 and the client initializes again.

A limit left out of ``index.yml`` is not applied (the SDK's own bounds hold: 10,000
sessions, 30 minutes idle). Peers are remembered in a table of at most
``MAX_TRACKED_PEERS`` entries; when it is full, peers idle for a window are forgotten
first, then the least recently seen.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from gno.rest.gateway import refusal_response
from gno.rest.mcp_http import ASGI, Message, Receive, Scope, Send

WINDOW_SECONDS = 60.0
MAX_TRACKED_PEERS = 4096
# The SDK's refusal of one session too many (mcp/server/streamable_http_manager.py).
_SDK_SESSION_LIMIT = b"Too many open sessions"


@dataclass(frozen=True)
class McpLimits:
    requests_per_minute: int | None = None
    max_sessions: int | None = None
    idle_seconds: float | None = None

    @classmethod
    def from_config(cls, limits: Mapping[str, int]) -> McpLimits:
        idle = limits.get("sessionIdleTimeoutMs")
        return cls(
            requests_per_minute=limits.get("maxRequestsPerMinute"),
            max_sessions=limits.get("maxSessions"),
            idle_seconds=idle / 1000 if idle is not None else None,
        )


class PeerRate:
    """At most ``per_minute`` admitted requests per peer address in any window."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute, self.clock = per_minute, clock
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def admit(self, peer: str) -> bool:
        now = self.clock()
        with self._lock:
            times = self._seen.get(peer)
            if times is None:
                self._make_room(now)
                times = self._seen[peer] = deque(maxlen=self.per_minute)
            self._seen.move_to_end(peer)
            if len(times) == self.per_minute and now - times[0] < WINDOW_SECONDS:
                return False  # a refused request does not count
            times.append(now)
            return True

    def _make_room(self, now: float) -> None:
        if len(self._seen) < MAX_TRACKED_PEERS:
            return
        idle = [p for p, t in self._seen.items() if not t or now - t[-1] >= WINDOW_SECONDS]
        for peer in idle:
            del self._seen[peer]
        while len(self._seen) >= MAX_TRACKED_PEERS:
            self._seen.popitem(last=False)


class McpLimitGate:
    """The per-peer rate limit in front of `/mcp`, and GNO's 429 for the session limit."""

    def __init__(self, app: ASGI, limits: McpLimits) -> None:
        self.app = app
        per_minute = limits.requests_per_minute
        self.rate = PeerRate(per_minute) if per_minute is not None else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        if self.rate is not None and not self.rate.admit(client[0] if client else ""):
            await refusal_response(429)(scope, receive, send)
            return
        await self.app(scope, receive, _session_limit_as_429(scope, receive, send))


def _session_limit_as_429(scope: Scope, receive: Receive, send: Send) -> Send:
    """``send`` that holds a 503 start until its body shows whether it is the SDK's
    session-limit refusal (then answered 429) or another 503 (passed on as it was)."""
    held: list[Message] = []
    replaced = False

    async def relay(message: Message) -> None:
        nonlocal replaced
        if replaced:
            return  # the 429 is complete: the rest of the SDK's answer is dropped
        if message["type"] == "http.response.start" and message.get("status") == 503:
            held.append(message)
            return
        if held and message["type"] == "http.response.body":
            start = held.pop()
            if _SDK_SESSION_LIMIT in message.get("body", b""):
                replaced = True
                await refusal_response(429)(scope, receive, send)
                return
            await send(start)
        await send(message)

    return relay
