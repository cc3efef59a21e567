"""A search process of `gno serve`: runs REST's BM25 searches beside the owner process.

A search is mostly Python, so searches in one process take turns at the GIL; a few of
these processes (``search_processes``) let them run on every core. Each is started by
the owner (never forked: a copy of a multithreaded server is unsafe) with one end of a
socket pair as its only inherited descriptor besides stdio, so it holds neither the
data directory's lock nor the listening socket. It opens the index itself and only
reads it: when index.yml changed and the index does not mirror it yet, it answers
``stale`` and the owner runs that search itself (its reader mirrors the edit).

Frames both ways: 4-byte big-endian length, then a pickle. The first frame from the owner
is ``(Paths, mode, references to import first)``; this process answers ``("ready",)``. Then each request is
``(operation id, view reference or None, input model)``, answered ``("ok", JSON bytes)``
(the output model's ``model_dump_json(exclude_unset=True)``, what REST sends),
``("error", class name, message, details)`` for a ``GnoError``, ``("stale",)`` or
``("bug",)`` (the traceback goes to stderr). EOF on the socket ends the process; so does
the owner's death (``die_with_parent``).
"""

from __future__ import annotations

import contextlib
import pickle
import signal
import socket
import struct
import sys
import traceback
from typing import Any

HEADER = struct.Struct(">I")
MAX_FRAME = 256 * 1024 * 1024  # a `full` search of 100 long documents stays well below


def recv_exact(sock: socket.socket, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def recv_frame(sock: socket.socket) -> Any:
    header = recv_exact(sock, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    if size > MAX_FRAME:
        raise ValueError(f"frame of {size} bytes")
    payload = recv_exact(sock, size)
    return None if payload is None else pickle.loads(payload)  # our own owner process


def send_frame(sock: socket.socket, value: Any) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(HEADER.pack(len(payload)) + payload)


def answer(app: Any, op_id: str, view: str | None, inp: Any) -> tuple[Any, ...]:
    from gno_contracts.operations import BY_ID
    from pydantic import BaseModel

    from gno.errors import GnoError
    from gno.services import handler, resolve
    from gno.services.wire import json_answer

    op = BY_ID[op_id]
    try:
        if not app.mirror_is_current():
            return ("stale",)
        if op.payload is not None and view is None:  # the model's bytes, no model built
            sent = json_answer(op, resolve(op.payload)(app, inp))
            if isinstance(sent, bytes):
                return ("ok", sent)
            result: Any = sent
        else:
            work = resolve(view) if view else handler(op_id)
            result = work(app, inp)
    except GnoError as exc:
        return ("error", type(exc).__name__, exc.message, exc.details)
    except Exception:  # a bug: logged here, the owner answers RUNTIME
        traceback.print_exc(file=sys.stderr)
        return ("bug",)
    if not isinstance(result, BaseModel):
        return ("bug",)
    return ("ok", result.model_dump_json(exclude_unset=True).encode())


def main(argv: list[str]) -> None:
    fd, parent = int(argv[0]), int(argv[1])
    from gno.ingest.parent_watch import die_with_parent

    die_with_parent(parent)
    # Ctrl-C in a terminal reaches the whole process group: the owner drains and then
    # stops this process itself, so in-flight searches still get their answers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sock = socket.socket(fileno=fd)
    first = recv_frame(sock)
    if first is None:
        return
    paths, mode, warm = first
    from gno.app import App
    from gno.services import resolve

    app = App(paths, mode=mode)
    app.mirrors_config = False
    for ref in warm:  # imported before saying ready, not on the first request
        resolve(ref)
    send_frame(sock, ("ready",))
    while (request := recv_frame(sock)) is not None:
        send_frame(sock, answer(app, *request))
    app.close()


if __name__ == "__main__":
    with contextlib.suppress(ConnectionError, KeyboardInterrupt):  # the owner went away
        main(sys.argv[1:])
