"""Raw JSON-RPC over both MCP transports of real gno processes: lines written by hand to
`gno mcp` (stdio) and bodies posted by hand to `/mcp` of `gno serve` on 127.0.0.1, so a
test can send the same bytes to both and compare the answers."""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from contract_helpers import GNO, NOTES, gno_env, run_gno, write_tree
from rest_helpers import running

DEADLINE = 30
HTTP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


def indexed_notes(root: Path) -> dict[str, Any]:
    """The shared notes under ``root``, indexed by the CLI: {"root", "env"} for the servers."""
    notes = write_tree(root / "corpus" / "notes", NOTES)
    env = gno_env(root)
    for args in (
        ["init", "--json"],
        ["collection", "add", str(notes), "--name", "notes", "--json"],
        ["update", "--json"],
    ):
        done = run_gno(env, *args)
        assert done.returncode == 0, done.stderr
    return {"root": root, "env": env}


class RawStdio:
    """`gno mcp` with JSON-RPC lines written and read by hand (bounded reads)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw.rstrip(b"\n") + b"\n")
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=DEADLINE)
        except queue.Empty:
            raise AssertionError("no answer from gno mcp (request dropped)") from None
        return json.loads(line)

    def answer_or_none(self, line: bytes) -> dict[str, Any] | None:
        """The answer to ``line``, or None when it gets none: a ping sent after it is then
        answered first. Only for lines that no slow handler answers (a tool call's answer may
        come after the ping's)."""
        self.send(line)
        self.send(b'{"jsonrpc":"2.0","id":"parity-probe","method":"ping"}')
        first = self.answer()
        if first.get("id") == "parity-probe" and "result" in first:
            return None
        probe = self.answer()
        assert probe.get("id") == "parity-probe", (line, first, probe)
        return first


@contextlib.contextmanager
def raw_stdio(corpus: dict[str, Any]) -> Iterator[RawStdio]:
    proc = subprocess.Popen(
        [str(GNO), "mcp"],
        env=corpus["env"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=corpus["root"],
    )
    session = RawStdio(proc)
    try:
        session.send(json.dumps(INITIALIZE).encode())
        assert session.answer()["id"] == 0
        session.send(INITIALIZED)
        yield session
    finally:
        if proc.stdin:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
        try:
            proc.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        assert proc.stderr is not None
        errors = proc.stderr.read()
        assert b"Traceback" not in errors and proc.returncode == 0, errors.decode(errors="replace")


class RawHttp:
    """One MCP session on `/mcp` of a running `gno serve`, bodies posted by hand."""

    def __init__(self, http: Any, url: str) -> None:
        self.http, self.url = http, url
        opened = http.post(url, json=INITIALIZE, headers=HTTP_HEADERS)
        assert opened.status_code == 200, opened.text
        self.headers = HTTP_HEADERS | {"Mcp-Session-Id": opened.headers["mcp-session-id"]}
        self.post(INITIALIZED)

    def post(self, body: bytes) -> Any:
        return self.http.post(self.url, content=body, headers=self.headers)

    def answer_or_none(self, body: bytes) -> tuple[int, dict[str, Any] | None]:
        """(HTTP status, the JSON-RPC answer, or None for 202 and no body)."""
        reply = self.post(body)
        if reply.status_code == 202 and not reply.content:
            return reply.status_code, None
        if reply.headers.get("content-type", "").startswith("text/event-stream"):
            data = [ln[5:].strip() for ln in reply.text.splitlines() if ln.startswith("data:")]
            return reply.status_code, json.loads(data[-1])
        return reply.status_code, reply.json()


@contextlib.contextmanager
def raw_http(corpus: dict[str, Any]) -> Iterator[RawHttp]:
    import httpx

    with running(corpus["env"], "--no-watch") as srv, httpx.Client(timeout=DEADLINE) as http:
        yield RawHttp(http, f"{srv.url}/mcp")


def code_and_id(answer: dict[str, Any] | None) -> tuple[Any, Any]:
    """What both transports must agree on: the error code (or "result"), and the id."""
    if answer is None:
        return None, None
    if "error" in answer:
        return answer["error"].get("code"), answer.get("id")
    return "result", answer.get("id")
