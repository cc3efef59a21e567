"""Real servers reached from a non-loopback address of this machine, for the egress tests.

The caller's zone comes from the socket peer alone, so a test needs a peer that is not
loopback: the server binds one of the machine's own non-loopback addresses (``hostname
-I``) and the client connects to it; the kernel routes the connection locally and the
server sees that address as its peer. Tests skip, saying why, when the machine has none.
"""

from __future__ import annotations

import contextlib
import ipaddress
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from tests.live_server import DEADLINE, wait_until


def local_addresses() -> list[str]:
    """This machine's non-loopback addresses that a socket can bind, IPv4 first."""
    if shutil.which("hostname") is None:
        return []
    try:
        out = subprocess.run(
            ["hostname", "-I"], capture_output=True, text=True, timeout=5, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    found = []
    for word in out.split():
        try:
            address = ipaddress.ip_address(word)
        except ValueError:
            continue
        if address.is_loopback or address.is_link_local:
            continue
        family = socket.AF_INET if address.version == 4 else socket.AF_INET6
        with contextlib.suppress(OSError), socket.socket(family) as probe:
            probe.bind((word, 0))
            found.append(word)
    return sorted(found, key=lambda a: ":" in a)


def non_loopback_address() -> str:
    found = local_addresses()
    if not found:
        pytest.skip("this machine has no non-loopback address to serve from (hostname -I)")
    return found[0]


def url_of(address: str, port: int) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"http://{host}:{port}"


@contextlib.contextmanager
def served_on(asgi: Any, address: str) -> Iterator[str]:
    """A real uvicorn serving ``asgi`` on ``address`` (port 0); yields its URL."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family)
    sock.bind((address, 0))
    server = uvicorn.Server(uvicorn.Config(asgi, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started)
        yield url_of(address, sock.getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(DEADLINE)
        sock.close()
    assert not thread.is_alive()


def assert_valid(schema_id: str, payload: Any) -> None:
    """``payload`` validates against the contract schema ``schema_id``."""
    from jsonschema import Draft202012Validator

    from gno.mcp.tools import load_schema

    errors = list(Draft202012Validator(load_schema(schema_id)).iter_errors(payload))
    assert not errors, [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]
