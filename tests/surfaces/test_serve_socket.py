"""The listening socket of `gno serve` (``gno.rest.serve._bind``): loopback, and every
accepted connection gets TCP_NODELAY from asyncio (else a response written as headers
then body waits for the client's delayed ACK, ~40 ms per keep-alive request)."""

from __future__ import annotations

import asyncio
import socket

from gno.rest.serve import HOST, _bind


def test_accepted_connections_have_nodelay() -> None:
    async def scenario() -> int:
        accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        listener = _bind(HOST, 0)
        assert listener.getsockname()[0] == HOST
        server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
        try:
            _, writer = await asyncio.open_connection(HOST, listener.getsockname()[1])
            nodelay = await asyncio.wait_for(accepted, 30)
            writer.close()
            return nodelay
        finally:
            server.close()
            await server.wait_closed()

    assert asyncio.run(scenario()) != 0
