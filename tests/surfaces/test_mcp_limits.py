"""The per-peer rate limit of `/mcp` (gno/rest/mcp_limits.py) on a clock the test moves:
a sliding 60-second window per peer address, refused requests not counted, and a bounded
table of peers."""

from __future__ import annotations

from gno.rest import mcp_limits
from gno.rest.mcp_limits import McpLimits, PeerRate


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_window_slides_per_peer() -> None:
    clock = Clock()
    rate = PeerRate(3, clock)
    admitted = []
    for _ in range(4):  # at 1000, 1010, 1020, 1030
        admitted.append(rate.admit("10.0.0.1"))
        clock.now += 10
    assert admitted == [True, True, True, False]
    assert rate.admit("10.0.0.2")  # another peer has its own window
    clock.now = 1059.9
    assert not rate.admit("10.0.0.1")  # the first request is still inside the window
    clock.now = 1060.0
    assert rate.admit("10.0.0.1")  # 60 s after the first: one slot is free again
    assert not rate.admit("10.0.0.1")  # the next frees at 1070
    clock.now = 1070.0
    assert rate.admit("10.0.0.1")


def test_refusals_do_not_extend_the_wait() -> None:
    clock = Clock()
    rate = PeerRate(1, clock)
    assert rate.admit("p")
    for _ in range(100):
        clock.now += 0.5
        assert not rate.admit("p") or clock.now - 1000.0 >= 60
    clock.now = 1060.0
    assert rate.admit("p")


def test_the_peer_table_is_bounded(monkeypatch) -> None:
    monkeypatch.setattr(mcp_limits, "MAX_TRACKED_PEERS", 8)
    clock = Clock()
    rate = PeerRate(1, clock)
    for i in range(50):
        assert rate.admit(f"peer-{i}")
    assert len(rate._seen) <= 8
    assert not rate.admit("peer-49")  # the newest peers are remembered


def test_limits_from_the_config() -> None:
    limits = McpLimits.from_config(
        {"maxRequestsPerMinute": 120, "maxSessions": 32, "sessionIdleTimeoutMs": 300000}
    )
    assert limits == McpLimits(requests_per_minute=120, max_sessions=32, idle_seconds=300.0)
    assert McpLimits.from_config({}) == McpLimits()
