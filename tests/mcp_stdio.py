"""A real `gno mcp` process spoken to in raw JSON-RPC lines: the tests that check what a
client sees when the index goes missing, is damaged, or a call could freeze the server.
Every read is bounded, so a server that stops answering fails the test, not the run."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

GNO = [sys.executable, "-m", "gno.cli.entry"]
ANSWER_SECONDS = 60


class McpStdio:
    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout
        for line in self.proc.stdout:
            self.replies.put(json.loads(line))

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.proc.stdin.flush()

    def reply(self) -> dict[str, Any]:
        """The next answer (queue.Empty when none comes in time: the server froze)."""
        return self.replies.get(timeout=ANSWER_SECONDS)

    def ask(self, ident: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.send({"id": ident, "method": method, "params": params})
        answer = self.reply()
        assert answer["id"] == ident, answer
        return answer

    def tool(self, ident: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A tools/call's result."""
        params = {"name": name, "arguments": arguments}
        return dict(self.ask(ident, "tools/call", params)["result"])


@contextmanager
def mcp_stdio() -> Iterator[McpStdio]:
    """`gno mcp` in this process's environment, initialized (request id 0 is taken)."""
    proc = subprocess.Popen(
        [*GNO, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=os.environ.copy(),
    )
    session = McpStdio(proc)
    try:
        info = {"name": "test", "version": "1"}
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info}
        session.ask(0, "initialize", params)
        session.send({"method": "notifications/initialized"})
        yield session
    finally:
        proc.kill()
        proc.wait(timeout=30)
