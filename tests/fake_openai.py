"""A fake OpenAI-compatible server for adapter tests: a real HTTP server on 127.0.0.1.

    with FakeOpenAI(mode="ok") as server:
        embedder = HttpEmbedder(server.url, "fake-embed")
        server.requests[-1].body["input"]

``mode`` (settable while running) picks the answer to every routed request:

- ``ok``: deterministic pseudo-embeddings of width ``width`` (8) from a SHA-256
  of each input text (same text, same vector; not unit length on purpose);
- ``reversed``: as ``ok`` but ``data`` listed in reverse order (``index`` kept);
- ``slow``: waits ``delay`` seconds (cut short when the server stops), then as ``ok``;
- ``garbage``: HTTP 200 with a body that is not JSON;
- ``error500``: HTTP 500 with a JSON error body longer than 200 characters;
- ``wrong_count``: one embedding fewer than inputs;
- ``mixed_widths``: odd-indexed vectors are half as wide;
- ``no_choices``: chat and completions answer HTTP 200 JSON without ``choices``.

Routes (``routes``, keyed by ``(method, path)``):

- ``POST /v1/embeddings``: the vectors above;
- ``POST /v1/chat/completions``: ``chat_reply(body)`` is the assistant's text
  (default: an empty expansion as JSON), with ``finish_reason`` ("stop");
- ``POST /v1/completions``: ``completion_reply(prompt)`` is the completion text
  (default ``" 0.5"``).

A chat request with ``stream: true`` is answered with server-sent events, one per
piece of ``stream_pieces(text)`` (default: word by word), then ``[DONE]``, as a body
that ends when the connection closes. ``stream_gate`` (an event) holds everything after
the first piece until it is set: a test can see the first token arrive while the
answer is provably not finished. ``ignore_stream`` answers one JSON body instead;
``stream_error`` sends an ``error`` event after the first piece.

``slow``, ``garbage`` and ``error500`` apply to every route. Every request is
recorded (method, path, headers, parsed JSON body) in ``requests``; ``count(path)``
counts them and ``wait_until(done)`` blocks until a request makes ``done()`` true.
``hold(path)`` makes every request to that path wait, after it is recorded, until
the returned event is set (or the server stops): a model call that is "in flight"
for as long as a test needs.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = (
    "ok",
    "reversed",
    "slow",
    "garbage",
    "error500",
    "wrong_count",
    "mixed_widths",
    "no_choices",
)
DEFAULT_CHAT_REPLY = json.dumps({"lexicalQueries": [], "vectorQueries": [], "hyde": ""})


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    status: int
    body: bytes
    content_type: str = "application/json"
    events: list[bytes] | None = None  # server-sent events, written one by one


def word_pieces(text: str) -> list[str]:
    """Each word with the whitespace after it (leading whitespace as its own piece)."""
    return re.findall(r"\s+|\S+\s*", text)


def fake_vector(text: str, width: int = 8) -> list[float]:
    """The raw (unnormalized) vector the fake server gives ``text``."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    while len(digest) < width:
        digest += hashlib.sha256(digest).digest()
    return [round(b / 127.5 - 1.0, 6) or 0.5 for b in digest[:width]]


def _json(status: int, doc: Any) -> Reply:
    return Reply(status, json.dumps(doc).encode("utf-8"))


class FakeOpenAI:
    def __init__(
        self, mode: str = "ok", *, width: int = 8, delay: float = 5.0, host: str = "127.0.0.1"
    ) -> None:
        """``host``: the address to serve on (a non-loopback one of this machine makes an
        endpoint "off the machine" for the egress tests)."""
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self.mode = mode
        self.host = host
        self.width = width
        self.delay = delay
        self.requests: list[Recorded] = []
        self.chat_reply: Callable[[dict[str, Any]], str] = lambda body: DEFAULT_CHAT_REPLY
        self.completion_reply: Callable[[str], str] = lambda prompt: " 0.5"
        self.finish_reason = "stop"
        self.stream_pieces: Callable[[str], list[str]] = word_pieces
        self.stream_gate: threading.Event | None = None
        self.ignore_stream = False
        self.stream_error = False
        self.routes: dict[tuple[str, str], Callable[[Any], Reply]] = {
            ("POST", "/v1/embeddings"): self._embeddings,
            ("POST", "/v1/chat/completions"): self._chat,
            ("POST", "/v1/completions"): self._completions,
        }
        self.holds: dict[str, threading.Event] = {}
        self._stop = threading.Event()
        self._lock = threading.RLock()  # wait_until's predicate may call count()
        self._seen = threading.Condition(self._lock)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -----------------------------------------------------------------
    def start(self) -> FakeOpenAI:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                fake._handle(self)

            def do_GET(self) -> None:
                fake._handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer((self.host, 0), Handler)
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # wakes "slow" handlers
        for event in self.holds.values():
            event.set()
        if self.stream_gate is not None:
            self.stream_gate.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The base URL without ``/v1`` (``http://127.0.0.1:<port>``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    # requests ------------------------------------------------------------------
    def hold(self, path: str) -> threading.Event:
        """Requests to ``path`` wait until the returned event is set."""
        event = threading.Event()
        self.holds[path] = event
        return event

    def count(self, path: str) -> int:
        with self._lock:
            return sum(r.path == path for r in self.requests)

    def wait_until(self, done: Callable[[], bool], timeout: float = 60) -> bool:
        """Block until ``done()`` holds after some request (False when ``timeout`` passes)."""
        with self._seen:
            return self._seen.wait_for(done, timeout=timeout)

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        with self._seen:
            self.requests.append(
                Recorded(handler.command, handler.path, dict(handler.headers.items()), body)
            )
            self._seen.notify_all()
        if (held := self.holds.get(handler.path)) is not None:
            held.wait(timeout=120)
        route = self.routes.get((handler.command, handler.path))
        if route is None:
            reply = _json(404, {"error": {"message": f"no route {handler.path}"}})
        elif not isinstance(body, dict) and handler.command == "POST":
            reply = _json(400, {"error": {"message": "body is not a JSON object"}})
        else:
            reply = route(body)
        try:
            handler.send_response(reply.status)
            handler.send_header("Content-Type", reply.content_type)
            if reply.events is None:
                handler.send_header("Content-Length", str(len(reply.body)))
                handler.end_headers()
                handler.wfile.write(reply.body)
                return
            handler.send_header("Cache-Control", "no-cache")
            handler.end_headers()  # HTTP/1.0: the body ends when the connection closes
            for n, event in enumerate(reply.events):
                handler.wfile.write(event)
                handler.wfile.flush()
                if n == 0 and self.stream_gate is not None:
                    self.stream_gate.wait(timeout=120)
        except OSError:  # the client gave up (timeout tests)
            pass

    def _common(self, mode: str) -> Reply | None:
        """The reply of a mode that answers every route alike, else None."""
        if mode == "slow" and self._stop.wait(self.delay):
            return _json(503, {"error": {"message": "shutting down"}})
        if mode == "garbage":
            return Reply(200, b"<html>definitely not json</html>", "text/html")
        if mode == "error500":
            detail = "internal failure while embedding; " * 12
            return _json(500, {"error": {"message": detail, "type": "server_error"}})
        return None

    def _chat(self, body: dict[str, Any]) -> Reply:
        mode = self.mode
        if (common := self._common(mode)) is not None:
            return common
        if mode == "no_choices":
            return _json(200, {"object": "chat.completion", "choices": []})
        text = self.chat_reply(body)
        model = body.get("model") or "fake-chat"
        if body.get("stream") is True and not self.ignore_stream:
            return self._chat_events(model, text)
        message = {"role": "assistant", "content": text}
        choice = {"index": 0, "message": message, "finish_reason": self.finish_reason}
        return _json(200, {"object": "chat.completion", "model": model, "choices": [choice]})

    def _chat_events(self, model: str, text: str) -> Reply:
        def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            doc = {"object": "chat.completion.chunk", "model": model, "choices": [choice]}
            return b"data: " + json.dumps(doc).encode("utf-8") + b"\n\n"

        pieces = [event({"content": piece}) for piece in self.stream_pieces(text)]
        if self.stream_error:
            pieces.insert(1, b'data: {"error": {"message": "model crashed"}}\n\n')
        # A comment and a role-only event come with the first piece (one write).
        opening = b": fake stream\n\n" + event({"role": "assistant"})
        if pieces:
            pieces[0] = opening + pieces[0]
        else:
            pieces = [opening]
        events = [*pieces, event({}, self.finish_reason), b"data: [DONE]\n\n"]
        return Reply(200, b"", "text/event-stream", events)

    def _completions(self, body: dict[str, Any]) -> Reply:
        mode = self.mode
        if (common := self._common(mode)) is not None:
            return common
        if mode == "no_choices":
            return _json(200, {"object": "text_completion", "choices": []})
        prompt = body.get("prompt")
        if not isinstance(prompt, str):
            return _json(400, {"error": {"message": "'prompt' must be a string"}})
        choice = {"index": 0, "text": self.completion_reply(prompt), "finish_reason": "stop"}
        return _json(200, {"object": "text_completion", "choices": [choice]})

    def _embeddings(self, body: dict[str, Any]) -> Reply:
        inputs = body.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not all(isinstance(t, str) for t in inputs):
            return _json(400, {"error": {"message": "'input' must be a string or strings"}})
        mode = self.mode
        if (common := self._common(mode)) is not None:
            return common
        data = []
        for i, text in enumerate(inputs):
            vector = fake_vector(text, self.width)
            if mode == "mixed_widths" and i % 2:
                vector = vector[: max(1, self.width // 2)]
            data.append({"object": "embedding", "index": i, "embedding": vector})
        if mode == "wrong_count":
            data = data[:-1]
        if mode == "reversed":
            data.reverse()
        model = body.get("model") or "fake-embed"
        usage = {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}
        return _json(200, {"object": "list", "data": data, "model": model, "usage": usage})
