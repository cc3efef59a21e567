"""`gno mcp` answers the client's `initialize` before the MCP SDK is imported.

Importing the SDK (``mcp``, ``mcp_types``) takes 1.5 s or more on an idle machine (its
package imports its client, its high-level server, Starlette and uvicorn), while
`initialize` has one answer for gno whatever happens later. So ``EarlyStart`` imports
the SDK on a thread while the main thread reads the client's first line from fd 0; when
that line is an `initialize` request of the expected shape, the answer the SDK would give
(``initialize_result``: the same version negotiation, capabilities, server info and
instructions) goes to stdout at once. The line itself is then handed to the SDK anyway
(``claim_stdin``: the bytes already read, then fd 0), so the session is set up exactly as
before; the SDK's own answer to it is dropped by ``gno.mcp.wire.answer_relay`` after a
comparison (a difference is logged on stderr). Anything else on the first line is left
to the SDK. ``GNO_MCP_EARLY_INITIALIZE=0`` turns this off.

Nothing here imports the SDK. The reading is bounded: at most ``MAX_FIRST_LINE`` bytes
are read before deciding; a longer first line is simply passed on.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from gno import __version__
from gno.core.jsonrpc import usable_id
from gno.core.wire_values import unusable_value

INSTRUCTIONS = (
    "gno searches the user's indexed notes, code and documents. Start with gno_query for "
    "questions, gno_search for exact words; read hits with gno_get (line ranges) or "
    "gno_multi_get. Cite gno:// URIs."
)
# The SDK's handshake versions (mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS and
# LATEST_HANDSHAKE_VERSION, checked by contract-tests/test_mcp_early_initialize.py).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE = "2025-11-25"
# What gno's low-level server declares (tools and resources, no subscriptions).
CAPABILITIES = {
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
MAX_FIRST_LINE = 64 * 1024


def initialize_result(requested: str) -> dict[str, Any]:
    version = requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE
    return {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": version,
        "serverInfo": {"name": "gno", "version": __version__},
    }


def early_answer(line: bytes) -> tuple[Any, dict[str, Any]] | None:
    """(id, JSON-RPC answer) for an `initialize` request gno can answer without the SDK;
    None for anything else (the SDK answers it, errors included)."""
    try:  # UTF-8 text, as gno.mcp.wire reads a line (json.loads of bytes also reads a BOM)
        message = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if unusable_value(message) is not None:  # the SDK's parser refuses a lone surrogate
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    if message.get("method") != "initialize" or not usable_id(message.get("id")):
        return None
    params = message.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), str):
        return None
    capabilities, client = params.get("capabilities"), params.get("clientInfo")
    if not isinstance(capabilities, dict) or not all(
        isinstance(v, dict) for v in capabilities.values()
    ):
        return None
    if not (
        isinstance(client, dict)
        and isinstance(client.get("name"), str)
        and isinstance(client.get("version"), str)
    ):
        return None
    result = initialize_result(params["protocolVersion"])
    return message["id"], {"jsonrpc": "2.0", "id": message["id"], "result": result}


class _Prefixed(io.RawIOBase):
    """The bytes already read from the client, then the rest of its stream."""

    def __init__(self, prefix: bytes, fd: int) -> None:
        self._prefix, self._fd = prefix, fd

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._prefix:
            size = min(len(view), len(self._prefix))
            view[:size] = self._prefix[:size]
            self._prefix = self._prefix[size:]
            return size
        data = os.read(self._fd, len(view))
        view[: len(data)] = data
        return len(data)


class EarlyStart:
    """The SDK import on a thread, the first line read meanwhile, and its early answer."""

    def __init__(self, load: Callable[[], object]) -> None:
        """``load`` imports the server and the SDK (run on the thread)."""
        self.prefix = b""
        self.answered: tuple[Any, dict[str, Any]] | None = None
        self._load = load
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._import, name="gno-mcp-import", daemon=True)

    def _import(self) -> None:
        try:
            self._load()
        except BaseException as exc:  # raised again on the main thread by ``wait``
            self._failed = exc

    @staticmethod
    def enabled() -> bool:
        """On unless ``GNO_MCP_EARLY_INITIALIZE=0``; POSIX only (``claim_stdin`` moves fd 0 aside
        with fcntl, as the SDK's own transport does there)."""
        if sys.platform == "win32":
            return False
        return os.environ.get("GNO_MCP_EARLY_INITIALIZE", "1") != "0"

    def begin(self) -> None:
        """Start the import, read the first line, answer it when it is `initialize`."""
        self._thread.start()
        chunks: list[bytes] = []
        size = 0
        while size < MAX_FIRST_LINE:
            try:
                data = os.read(0, MAX_FIRST_LINE - size)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
            size += len(data)
            if b"\n" in data:
                break
        self.prefix = b"".join(chunks)
        first, newline, _ = self.prefix.partition(b"\n")
        if newline and (found := early_answer(first)) is not None:
            self.answered = found
            _write_all(1, (json.dumps(found[1], separators=(",", ":")) + "\n").encode())

    def wait(self) -> None:
        self._thread.join()
        if self._failed is not None:
            raise self._failed


def claim_stdin(prefix: bytes = b"") -> BinaryIO:
    """The client's stream for `gno mcp`: ``prefix`` (bytes already read from it), then fd 0,
    moved to a private descriptor; fd 0 becomes /dev/null, as the SDK's own stdio transport
    does, so nothing else in the process reads the protocol. On Windows: stdin as it is."""
    if sys.platform == "win32":
        return sys.stdin.buffer
    import fcntl

    private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return io.BufferedReader(_Prefixed(prefix, private))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except OSError:  # the client is gone; the SDK will see the end of its stream
            return
