"""A hostile HTTP server for tests: a real socket on 127.0.0.1 whose answer is a script.

    server = RawServer(lambda conn: json_body(conn, b"[" * 100_000))
    ...  # point a client at server.url
    server.close()

The script gets the connection after the request was read whole and writes whatever it
likes: lying headers, a body that never ends, one byte at a time. A client that hangs up
ends the script's writes with an ``OSError``, which is swallowed.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

Script = Callable[[socket.socket], None]


class RawServer:
    """Answers every connection with ``script(sock)`` after reading the request."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            try:
                read_request(conn)
                self.script(conn)
            except OSError:  # the client hung up: what a bounded client does
                pass

    def close(self) -> None:
        self.listener.close()


def read_request(conn: socket.socket) -> None:
    """Read the request's headers and its ``Content-Length`` body (nothing is kept)."""
    data = b""
    while b"\r\n\r\n" not in data:
        if not (piece := conn.recv(65536)):
            raise ConnectionResetError("the client left before its request was whole")
        data += piece
    top, _, body = data.partition(b"\r\n\r\n")
    fields = [line.partition(b":") for line in top.split(b"\r\n")[1:]]
    length = next((int(v) for k, _, v in fields if k.strip().lower() == b"content-length"), 0)
    while len(body) < length:
        if not (piece := conn.recv(65536)):
            raise ConnectionResetError("the client left before its request was whole")
        body += piece


def head(
    conn: socket.socket, status: str = "200 OK", ctype: str = "application/json", extra: str = ""
) -> None:
    conn.sendall(
        f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nConnection: close\r\n{extra}\r\n".encode()
    )


def json_body(conn: socket.socket, body: bytes, status: str = "200 OK") -> None:
    head(conn, status, extra=f"Content-Length: {len(body)}\r\n")
    conn.sendall(body)
