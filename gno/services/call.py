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
  private-network peer) or ``remote`` (anything else); only the socket peer counts, never a forwarding header;
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

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Literal, cast

from gno.services.cancel import CancelToken, bound

Surface = Literal["cli", "rest", "mcp", "sdk"]
Zone = Literal["local_process", "loopback", "lan", "remote"]


def new_request_id() -> str:
    """16 hex digits from the OS's random source (no uuid import on the CLI path)."""
    return os.urandom(8).hex()


@dataclass(frozen=True, slots=True)
class Call:
    """Who made the current call and how to stop it: surface, caller zone, request id, cancel token, deadline."""

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
    """The zone of a socket peer's address, by the egress rule's own ranges
    (``core.egress.zone_of``): one zone function for the call and its egress check."""
    from gno.core.egress import zone_of  # only servers ask: the CLI's call is local

    return cast(Zone, zone_of(address))


def http_zone(client: tuple[str, int] | None) -> Zone:
    """The zone of an HTTP request from its ASGI ``client``: the socket peer only;
    forwarding headers are ignored (surfaces §3.6), as the egress check ignores them."""
    return peer_zone(client[0] if client else None)
