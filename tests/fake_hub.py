"""A fake Hugging Face hub for download tests: a real HTTP server on 127.0.0.1.

Point ``huggingface_hub`` at it with ``HF_ENDPOINT=<hub.url>`` (read at import, so
use it from a fresh process). It speaks the part of the hub API that
``hf_hub_download`` and ``HfApi.list_repo_files`` use:

- ``HEAD``/``GET /<org>/<repo>/resolve/<revision>/<path>``: ``X-Repo-Commit``,
  ``ETag`` (the SHA-256 of the content, as the hub gives for LFS files),
  ``Content-Length``, ``Accept-Ranges``; ``GET`` honours ``Range: bytes=N-`` (206).
  Unknown repos and files answer 404 with ``X-Error-Code`` ``RepoNotFound`` /
  ``EntryNotFound`` like the hub, so the client raises its specific errors;
- ``GET /api/models/<org>/<repo>/tree/<revision>``: the file listing as JSON.

    with FakeHub() as hub:
        hub.add("org/repo", "model-Q8_0.gguf", data)
        hub.fault("org/repo", "model-Q8_0.gguf", "corrupt")
        hub.count("GET", "org/repo", "model-Q8_0.gguf")

Faults per file: ``head500`` / ``get500`` (that request answers HTTP 500),
``corrupt`` (the bytes served are not a GGUF file; ETag and size match what is
served, so only gno's own check can notice), ``tamper`` (one byte past the header
flipped: size and header fine, SHA-256 differs from the ETag); the hostile ones:
``oversize`` (``HEAD`` announces the true size, ``GET`` sends 64 MiB more and says so in
its ``Content-Length``), ``endless`` (``GET`` sends the file, then zeros until the client
hangs up, with no ``Content-Length``), ``redirect_loop`` (``HEAD`` and ``GET`` redirect to
themselves forever). ``hold`` makes the file's ``GET`` wait for the returned event before
sending its body.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

FAULTS = ("head500", "get500", "corrupt", "tamper", "oversize", "endless", "redirect_loop")
EXTRA_BYTES = 64 << 20  # what ``oversize`` sends past the announced size


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]


class FakeHub:
    def __init__(self) -> None:
        self.repos: dict[str, dict[str, bytes]] = {}
        self.faults: dict[tuple[str, str], str] = {}
        self.holds: dict[tuple[str, str], threading.Event] = {}
        self.requests: list[Request] = []
        self._seen = threading.Condition()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # content ---------------------------------------------------------------------
    def add(self, repo: str, path: str, data: bytes) -> None:
        self.repos.setdefault(repo, {})[path] = data

    def fault(self, repo: str, path: str, kind: str | None) -> None:
        if kind is None:
            self.faults.pop((repo, path), None)
            return
        if kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}")
        self.faults[(repo, path)] = kind

    def hold(self, repo: str, path: str) -> threading.Event:
        """The file's GET blocks until the returned event is set."""
        event = threading.Event()
        self.holds[(repo, path)] = event
        return event

    @staticmethod
    def commit(repo: str) -> str:
        return hashlib.sha1(repo.encode()).hexdigest()

    # observation -----------------------------------------------------------------
    def count(self, method: str, repo: str, path: str | None = None) -> int:
        """Requests of ``method`` for a file (``path``) or the repo's listing (no ``path``)."""
        if path is None:
            prefix = f"/api/models/{repo}/tree/"
            return sum(r.method == method and r.path.startswith(prefix) for r in self.requests)
        return sum(
            r.method == method
            and r.path.startswith(f"/{repo}/resolve/")
            and r.path.endswith(f"/{path}")
            for r in self.requests
        )

    def wait_until(self, done: Callable[[], bool], timeout: float = 60) -> bool:
        """Block until ``done()`` holds after some request (False if ``timeout`` passes first)."""
        with self._seen:
            return self._seen.wait_for(done, timeout=timeout)

    # lifecycle -------------------------------------------------------------------
    def start(self) -> FakeHub:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_HEAD(self) -> None:
                hub._handle(self, head=True)

            def do_GET(self) -> None:
                hub._handle(self, head=False)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        for event in self.holds.values():
            event.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # HTTP ------------------------------------------------------------------------
    def _handle(self, h: BaseHTTPRequestHandler, *, head: bool) -> None:
        path = unquote(urlsplit(h.path).path)
        with self._seen:
            self.requests.append(Request(h.command, path, dict(h.headers.items())))
            self._seen.notify_all()
        if path.startswith("/api/models/") and "/tree/" in path:
            repo = path.removeprefix("/api/models/").split("/tree/", 1)[0]
            return self._listing(h, repo)
        if "/resolve/" in path:
            repo, _, rest = path.lstrip("/").partition("/resolve/")
            _revision, _, filename = rest.partition("/")
            return self._file(h, repo, filename, head=head)
        return self._reply(h, 404, b"not found", {"X-Error-Code": "RepoNotFound"})

    def _listing(self, h: BaseHTTPRequestHandler, repo: str) -> None:
        files = self.repos.get(repo)
        if files is None:
            return self._reply(h, 404, b"{}", {"X-Error-Code": "RepoNotFound"})
        entries = []
        for path, data in sorted(files.items()):
            sha = hashlib.sha256(data).hexdigest()
            entries.append(
                {
                    "type": "file",
                    "oid": hashlib.sha1(data).hexdigest(),
                    "size": len(data),
                    "path": path,
                    "lfs": {"oid": sha, "size": len(data), "pointerSize": 134},
                }
            )
        body = json.dumps(entries).encode()
        self._reply(h, 200, body, {"Content-Type": "application/json"})

    def _file(self, h: BaseHTTPRequestHandler, repo: str, filename: str, *, head: bool) -> None:
        files = self.repos.get(repo)
        commit = {"X-Repo-Commit": self.commit(repo)}
        if files is None:
            return self._reply(h, 404, b"", {"X-Error-Code": "RepoNotFound"}, head=head)
        if filename not in files:
            return self._reply(h, 404, b"", commit | {"X-Error-Code": "EntryNotFound"}, head=head)
        fault = self.faults.get((repo, filename))
        if fault == ("head500" if head else "get500"):
            return self._reply(h, 500, b"internal error", {}, head=head)
        if fault == "redirect_loop":
            return self._reply(h, 302, b"", {"Location": h.path}, head=head)
        data, etag = self._served(files[filename], fault)
        headers = commit | {"ETag": f'"{etag}"', "Accept-Ranges": "bytes"}
        start = _range_start(h.headers.get("Range"))
        if head:
            return self._reply(h, 200, data, headers, head=True)
        if (event := self.holds.get((repo, filename))) is not None:
            event.wait(timeout=60)
        if fault == "oversize":
            return self._reply(h, 200, data + bytes(EXTRA_BYTES), headers)
        if fault == "endless":
            return self._endless(h, data, headers)
        if start:
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
            return self._reply(h, 206, data[start:], headers)
        self._reply(h, 200, data, headers)

    @staticmethod
    def _served(original: bytes, fault: str | None) -> tuple[bytes, str]:
        """(bytes sent, ETag announced) for a file under a fault."""
        sha = hashlib.sha256(original).hexdigest()
        if fault == "corrupt":
            junk = b"<html>this is not a model</html>" * (len(original) // 33 + 1)
            junk = junk[: len(original)]
            return junk, hashlib.sha256(junk).hexdigest()
        if fault == "tamper":
            flipped = bytearray(original)
            flipped[-1] ^= 0xFF  # tensor data, far from the header
            return bytes(flipped), sha
        return original, sha

    @staticmethod
    def _reply(
        h: BaseHTTPRequestHandler,
        status: int,
        body: bytes,
        headers: dict[str, str],
        *,
        head: bool = False,
    ) -> None:
        try:
            h.send_response(status)
            for name, value in headers.items():
                h.send_header(name, value)
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            if not head:
                h.wfile.write(body)
        except OSError:  # the client went away
            pass

    @staticmethod
    def _endless(h: BaseHTTPRequestHandler, data: bytes, headers: dict[str, str]) -> None:
        """The file, then zeros for as long as the client reads (the body ends at close)."""
        h.close_connection = True
        try:
            h.send_response(200)
            for name, value in headers.items():
                h.send_header(name, value)
            h.send_header("Connection", "close")
            h.end_headers()
            h.wfile.write(data)
            zeros = bytes(1 << 20)
            while True:
                h.wfile.write(zeros)
        except OSError:  # the client hung up: what it should do
            pass


def _range_start(value: str | None) -> int:
    if not value or not value.startswith("bytes="):
        return 0
    first = value.removeprefix("bytes=").split("-", 1)[0]
    return int(first) if first.isdigit() else 0
