"""The per-call context (gno/services/call.py): bound per thread, cancel token obeyed by
checkpoints, deadlines, and the zone of a peer address."""

from __future__ import annotations

import threading
import time

import pytest

from gno.errors import Cancelled
from gno.services.call import PROCESS_CALL, Call, bind, current_call, http_zone, peer_zone
from gno.services.cancel import checkpoint


def test_unbound_thread_sees_the_process_call() -> None:
    assert current_call() is PROCESS_CALL
    assert PROCESS_CALL.zone == "local_process"


def test_bind_sets_and_restores_nested_calls() -> None:
    outer, inner = Call("rest", "loopback"), Call("mcp")
    with bind(outer):
        assert current_call() is outer
        with bind(inner):
            assert current_call() is inner
        assert current_call() is outer
    assert current_call() is PROCESS_CALL


def test_request_ids_differ_per_call() -> None:
    ids = {Call("cli").request_id for _ in range(100)}
    assert len(ids) == 100
    assert all(len(i) == 16 and int(i, 16) >= 0 for i in ids)


def test_a_call_bound_in_one_thread_is_not_seen_in_another() -> None:
    seen: list[Call] = []
    with bind(Call("rest", "lan")):
        worker = threading.Thread(target=lambda: seen.append(current_call()))
        worker.start()
        worker.join(10)
    assert seen == [PROCESS_CALL]


def test_checkpoints_obey_the_bound_calls_token() -> None:
    call = Call("rest", "loopback")
    with bind(call):
        checkpoint()  # not cancelled: passes
        call.cancel.cancel("the client disconnected")
        with pytest.raises(Cancelled, match="the client disconnected"):
            checkpoint()
    checkpoint()  # unbound again: nothing to obey


def test_deadline() -> None:
    assert Call("cli").remaining() is None
    assert not Call("cli").expired
    past = Call("rest", deadline=time.monotonic() - 1)
    assert past.expired and past.remaining() == 0.0
    future = Call("rest", deadline=time.monotonic() + 60)
    remaining = future.remaining()
    assert not future.expired and remaining is not None and 0 < remaining <= 60


def test_copies_keep_the_caller() -> None:
    call = Call("rest", "lan")
    traced = call.with_trace("t-1")
    assert (traced.request_id, traced.zone, traced.trace_id) == (call.request_id, "lan", "t-1")
    assert call.trace_id is None  # frozen: the original is unchanged
    job = call.for_job(token := call.cancel.__class__())
    assert job.cancel is token and job.request_id == call.request_id
    with pytest.raises(AttributeError):
        call.zone = "remote"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("address", "zone"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("192.168.1.20", "lan"),
        ("10.0.0.7", "lan"),
        ("172.16.4.4", "lan"),
        ("fe80::1%eth0", "lan"),
        ("fd12:3456::1", "lan"),
        ("169.254.1.1", "lan"),
        ("8.8.8.8", "remote"),
        ("2001:4860::8888", "remote"),
        ("localhost", "remote"),  # a name, not an address
        ("", "remote"),
        (None, "remote"),
    ],
)
def test_peer_zone(address: str | None, zone: str) -> None:
    assert peer_zone(address) == zone


def test_http_zone_is_the_socket_peers() -> None:
    # The socket peer only: a forwarding header changes nothing (surfaces §3.6).
    assert http_zone(("127.0.0.1", 5)) == "loopback"
    assert http_zone(("192.168.0.2", 5)) == "lan"
    assert http_zone(("8.8.8.8", 5)) == "remote"
    assert http_zone(None) == "remote"
