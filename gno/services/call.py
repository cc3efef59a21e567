"""One call of an operation: who asked, through which surface, until when, traced as what.

Every surface makes one ``Call`` per operation it runs and binds it to the thread that
runs the handler (``bind``): the REST dispatcher per request, the MCP server per tool
call, the CLI runner per command, the SDK's local transport per method call; a background
job runs under the call that started it, with the job's own cancel token. A handler that
needs to know reads ``current_call()``; handlers keep their ``(app, input) -> output``
signature, and one that never asks pays nothing.

- ``surface``: which front door the call came through;
- ``zone``: where the caller sits, as ``gno/core/egress.py`` names zones: ``local_process``
  (this process, or a process that spawned it and talks over a pipe: the CLI, the SDK's
  local transport, MCP on stdio), ``loopback`` (a socket peer on this machine), ``lan`` (a
  private-network peer) or ``remote`` (anything else, and any request that came through a
  proxy: the machine behind a forwarding header is unknown);
- ``request_id``: unique per call (and shared by the job it starts);
- ``cancel``: the token ``services/cancel.checkpoint()`` obeys while the call is bound
  (REST cancels it when the client disconnects, the job runtime at shutdown);
- ``deadline``: a ``time.monotonic()`` instant after which nobody waits for the answer, or
  None;
- ``trace_id``: the retrieval trace this call records into, when one is asked for.

The call is frozen: a stage that needs another value makes a copy (``with_trace``), so a
handler never changes what its caller sees.
"""

from __future__ import annotations

import ipaddress
import os
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Literal

from gno.services.cancel import CancelToken, bound

Surface = Literal["cli", "rest", "mcp", "sdk"]
Zone = Literal["local_process", "loopback", "lan", "remote"]

# Headers a proxy adds: the request's real origin is not the socket peer.
FORWARDING_HEADERS = frozenset(
    {b"forwarded", b"x-forwarded-for", b"x-forwarded-host", b"x-forwarded-proto", b"x-real-ip"}
)


def new_request_id() -> str:
    """16 hex digits from the OS's random source (no uuid import on the CLI path)."""
    return os.urandom(8).hex()


@dataclass(frozen=True, slots=True)
class Call:
    surface: Surface
    zone: Zone = "local_process"
    request_id: str = field(default_factory=new_request_id)
    cancel: CancelToken = field(default_factory=CancelToken, compare=False)
    deadline: float | None = None  # time.monotonic() seconds
    trace_id: str | None = None

    def remaining(self) -> float | None:
        """Seconds left before the deadline (0 once passed), None without one."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    @property
    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def with_trace(self, trace_id: str) -> Call:
        return replace(self, trace_id=trace_id)

    def for_job(self, cancel: CancelToken) -> Call:
        """The same caller and request, under a background job's own cancel token."""
        return replace(self, cancel=cancel)


# What an unbound thread sees: this process, asking for itself (tests, the watcher's syncs).
PROCESS_CALL = Call("cli", request_id="process")

_current: ContextVar[Call | None] = ContextVar("gno_call", default=None)


@contextmanager
def bind(call: Call) -> Iterator[Call]:
    """``current_call()`` in this thread (and contexts copied from it) is ``call``, and
    checkpoints obey its cancel token, until the block ends."""
    reset = _current.set(call)
    try:
        with bound(call.cancel):
            yield call
    finally:
        _current.reset(reset)


def current_call() -> Call:
    """The call this thread works for (``PROCESS_CALL`` when no surface bound one)."""
    return _current.get() or PROCESS_CALL


def peer_zone(address: str | None) -> Zone:
    """The zone of a socket peer's address: loopback, private network (``lan``: private,
    link-local or unique-local addresses) or ``remote``; no address or an unparsable one
    is ``remote``."""
    if not address:
        return "remote"
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # fe80::1%eth0: zone id dropped
    except ValueError:
        return "remote"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    if ip.is_private or ip.is_link_local:
        return "lan"
    return "remote"


def http_zone(client: tuple[str, int] | None, headers: Iterable[tuple[bytes, bytes]]) -> Zone:
    """The zone of an HTTP request from its ASGI ``client`` and raw headers: the socket
    peer's, unless a proxy forwarded it (then the caller is unknown: ``remote``)."""
    if any(name.lower() in FORWARDING_HEADERS for name, _ in headers):
        return "remote"
    return peer_zone(client[0] if client else None)
