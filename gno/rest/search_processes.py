"""REST's BM25 searches in a few processes beside the owner (`gno serve`).

One miss costs ~2 ms of Python (snippets, result items) around ~1 ms of FTS5; in one
process those Python parts take turns at the GIL, so one `gno serve` could not use a
second core for searches. ``SearchProcesses`` keeps ``count`` worker processes
(``gno.rest.search_worker``), each running one search at a time on its own read-only
connection with up to ``DEPTH`` sent to it (answered in order); the owner still parses, validates, caches and answers every request, and
stays the only process that writes the index or holds the data directory's lock.

A search goes to the least busy worker as ``(operation id, view, input model)`` and comes back
as the JSON bytes REST sends (``Dumped``) or a ``GnoError`` raised again here. The caller
(the search lane) runs the search on a thread as before whenever this returns None: no
worker ready yet (they start in the background), index.yml edited and not yet mirrored
(the owner's reader mirrors it), or a worker that died mid-search (it is replaced; after
``MAX_START_FAILURES`` failed starts none is started again).
"""

from __future__ import annotations

import asyncio
import os
import pickle
import socket
import subprocess
import sys
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from gno import errors
from gno.paths import Paths
from gno.rest.search_worker import HEADER, MAX_FRAME

START_SECONDS = 60.0  # spawn → "ready" (imports on a loaded machine)
STOP_SECONDS = 2.0
MAX_START_FAILURES = 3
# Searches sent to one worker at a time: the next waits in its socket while it answers
# the first, so it never sits idle until the owner gets the CPU to send another.
DEPTH = 2


@dataclass(frozen=True)
class Dumped:
    """An operation's output as the JSON REST sends (``model_dump_json(exclude_unset=True)``)."""

    json: bytes


@dataclass
class _Worker:
    proc: subprocess.Popen[bytes]
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    # Requests sent and not answered yet, oldest first (a worker answers in order).
    waiting: deque[asyncio.Future[Any]] = field(default_factory=deque)
    replies: asyncio.Task[None] | None = None
    broken: bool = False


async def _send(writer: asyncio.StreamWriter, value: Any) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    writer.write(HEADER.pack(len(payload)) + payload)
    await writer.drain()


async def _receive(reader: asyncio.StreamReader) -> Any:
    (size,) = HEADER.unpack(await reader.readexactly(HEADER.size))
    if size > MAX_FRAME:
        raise ValueError(f"search process sent a frame of {size} bytes")
    return pickle.loads(await reader.readexactly(size))  # our own child process


def _error(name: str, message: str, details: dict[str, Any] | None) -> errors.GnoError:
    cls = getattr(errors, name, None)
    if not (isinstance(cls, type) and issubclass(cls, errors.GnoError)):
        cls = errors.GnoError
    exc = cls.__new__(cls)  # subclasses may take other arguments; the fields are these
    errors.GnoError.__init__(exc, message, details=details)
    return exc


class SearchProcesses:
    def __init__(self, paths: Paths, mode: str, count: int, warm: list[str]) -> None:
        self.paths, self.mode, self.count, self.warm = paths, mode, count, warm
        self._workers: list[_Worker] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._failures = 0
        self._started = self._closing = False

    def start(self) -> None:
        """Start the workers in the background (on the event loop; idempotent)."""
        if self._started:
            return
        self._started = True
        for _ in range(self.count):
            self._spawn_soon()

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self._workers]

    def _spawn_soon(self) -> None:
        if self._closing or self._failures >= MAX_START_FAILURES:
            return
        task = asyncio.get_running_loop().create_task(self._spawn())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _spawn(self) -> None:
        ours, theirs = socket.socketpair()
        argv = [sys.executable, "-m", "gno.rest.search_worker", str(theirs.fileno())]
        argv.append(str(os.getpid()))
        try:
            proc = await asyncio.to_thread(
                subprocess.Popen,
                argv,
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
            )
        except OSError as exc:
            ours.close()
            self._failed(f"cannot start a search process: {exc}")
            return
        finally:
            theirs.close()
        try:
            reader, writer = await asyncio.open_connection(sock=ours)
            worker = _Worker(proc, reader, writer)
            await _send(writer, (self.paths, self.mode, self.warm))
            ready = await asyncio.wait_for(_receive(reader), START_SECONDS)
        except (OSError, EOFError, ValueError, TimeoutError, pickle.UnpicklingError) as exc:
            ours.close()
            _stop(proc)
            self._failed(f"a search process did not start: {exc!r}")
            return
        if ready != ("ready",) or self._closing:
            _stop(proc)
            writer.close()
            return
        worker.replies = asyncio.get_running_loop().create_task(self._read_replies(worker))
        self._workers.append(worker)

    def _failed(self, why: str) -> None:
        self._failures += 1
        print(f"gno serve: {why}; searches run in the server process", file=sys.stderr)

    def _retire(self, worker: _Worker) -> None:
        """A worker that failed: every search waiting on it runs in the owner instead
        (None), and a fresh one takes its place."""
        if worker.broken:
            return
        worker.broken = True
        if worker in self._workers:
            self._workers.remove(worker)
        while worker.waiting:
            future = worker.waiting.popleft()
            if not future.done():
                future.set_result(None)
        worker.writer.close()
        worker.proc.kill()  # broken: nothing of it is worth waiting for
        worker.proc.wait()
        self._spawn_soon()

    async def _read_replies(self, worker: _Worker) -> None:
        try:
            while True:
                reply = await _receive(worker.reader)
                future = worker.waiting.popleft()
                if not future.done():  # its caller may have been cancelled meanwhile
                    future.set_result(reply)
        except (OSError, EOFError, ValueError, IndexError, pickle.UnpicklingError):
            if not self._closing:
                self._retire(worker)

    async def call(self, op_id: str, view: str | None, inp: BaseModel) -> Dumped | None:
        """The answer of one worker, or None when the caller should run it itself."""
        ready = [w for w in self._workers if len(w.waiting) < DEPTH]
        if not ready:
            return None
        worker = min(ready, key=lambda w: len(w.waiting))
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        worker.waiting.append(future)
        try:
            await _send(worker.writer, (op_id, view, inp))
        except OSError:
            self._retire(worker)
        reply = await future
        if reply is None:  # the worker died meanwhile
            return None
        kind = reply[0]
        if kind == "ok":
            return Dumped(reply[1])
        if kind == "error":
            raise _error(reply[1], reply[2], reply[3])
        if kind == "bug":
            raise RuntimeError("a search process failed (its traceback is on stderr)")
        return None  # "stale": index.yml changed; the owner's reader mirrors it

    def close(self) -> None:
        """Stop every worker (EOF, then SIGTERM, then SIGKILL); on the event loop."""
        self._closing = True
        workers, self._workers = self._workers, []
        for worker in workers:
            if worker.replies is not None:
                worker.replies.cancel()
            worker.writer.transport.abort()
        for worker in workers:
            _stop(worker.proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(STOP_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
