"""JSON over HTTP to an OpenAI-compatible server, shared by the HTTP adapters.

Standard library only, so importing an HTTP adapter stays cheap. One connection
per request. Proxies from the environment are honoured except for loopback
hosts. ``timeout`` applies to each socket operation (connect, each read), as in
``urllib``.

Every failure is an ``HttpFailure`` whose ``kind`` lets each adapter map it to
its port's error code:

- ``unreachable``: refused, DNS, reset, timed out (``timed_out`` tells the last);
  the message names the endpoint and the cause;
- ``status``: HTTP 4xx/5xx, with the status and at most 200 characters of the
  body (the ``error.message`` of a JSON error body when there is one);
- ``invalid``: a 200 answer that is not JSON; messages start with
  ``invalid response: ``, as adapters phrase their own shape checks.

``JsonClient.events`` asks for server-sent events instead (``stream: true``) and
yields each ``data:`` payload as it arrives, decoded from JSON, until ``[DONE]`` or
the end of the body; a server that ignores ``stream`` and answers one JSON body
yields that body once. A line longer than 1 MiB, a stream over 16 MiB or a JSON body
over 64 MiB is ``invalid``: the server cannot make gno hold an unbounded answer.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import os
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

API_KEY_ENV = "GNO_HTTP_API_KEY"
EXCERPT_CHARS = 200
_ERROR_BODY_BYTES = 4096
EVENT_LINE_BYTES = 1 << 20  # one SSE line
EVENT_STREAM_BYTES = 16 << 20  # a whole streamed answer
RESPONSE_BYTES = 64 << 20  # a whole JSON answer (a batch of embeddings is the largest)


class HttpFailure(Exception):
    def __init__(self, kind: str, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.kind = kind  # "unreachable" | "status" | "invalid"
        self.message = message
        self.timed_out = timed_out


def endpoint_url(url: str, path: str) -> str:
    """The URL of an API path (``embeddings``, ``chat/completions``…) for a base URL:
    ``url`` itself when it already ends with ``/v1/<path>``, ``<url>/<path>`` when it
    ends with ``/v1``, else ``<url>/v1/<path>``. A trailing ``/`` is ignored."""
    base = url.rstrip("/")
    if base.endswith(f"/v1/{path}"):
        return base
    if base.endswith("/v1"):
        return f"{base}/{path}"
    return f"{base}/v1/{path}"


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def excerpt(raw: bytes) -> str:
    """A one-line excerpt of a body; the ``error.message`` of a JSON error if any."""
    text = raw.decode("utf-8", errors="replace")
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        err = doc.get("error")
        message = err.get("message") if isinstance(err, dict) else err
        if isinstance(message, str) and message.strip():
            text = message
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


class JsonClient:
    """POSTs JSON to one endpoint and returns the decoded JSON answer."""

    def __init__(self, endpoint: str, *, timeout: float, api_key: str | None = None) -> None:
        self.endpoint = endpoint
        self.timeout = float(timeout)
        parsed = urllib.parse.urlsplit(endpoint)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"not an http(s) URL: {endpoint!r}")
        key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
        self.headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "gno",
        }
        if key:
            self.headers["Authorization"] = f"Bearer {key}"
        handlers = [urllib.request.ProxyHandler({})] if is_loopback(parsed.hostname) else []
        self._opener = urllib.request.build_opener(*handlers)

    def post(self, body: dict[str, Any], *, timeout: float | None = None) -> Any:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(
            self.endpoint, data=data, headers=self.headers, method="POST"
        )
        raw = self._send(request, self.timeout if timeout is None else timeout)
        try:
            return json.loads(raw)
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
            raise HttpFailure("invalid", f"invalid response: not JSON ({excerpt(raw)!r})") from exc

    def events(self, body: dict[str, Any], *, timeout: float | None = None) -> Iterator[Any]:
        """POST ``body`` with ``stream: true``; yield each event's JSON as it arrives."""
        data = json.dumps({**body, "stream": True}, ensure_ascii=False).encode("utf-8")
        headers = self.headers | {"Accept": "text/event-stream"}
        request = urllib.request.Request(self.endpoint, data=data, headers=headers, method="POST")
        wait = self.timeout if timeout is None else timeout
        with self._failures(wait):
            response = self._opener.open(request, timeout=wait)
        with response:
            if "text/event-stream" not in (response.headers.get("Content-Type") or ""):
                with self._failures(wait):
                    raw = _bounded(response)
                try:
                    yield json.loads(raw)
                except ValueError as exc:
                    why = f"invalid response: not JSON ({excerpt(raw)!r})"
                    raise HttpFailure("invalid", why) from exc
                return
            yield from self._read_events(response, wait)

    def _read_events(self, response: Any, wait: float) -> Iterator[Any]:
        """SSE framing: ``data:`` lines joined by newlines, dispatched at a blank line;
        comments, ``event:``, ``id:`` and ``retry:`` lines are ignored."""
        total = 0
        lines: list[str] = []
        while True:
            with self._failures(wait):
                raw = response.readline(EVENT_LINE_BYTES + 1)
            total += len(raw)
            if len(raw) > EVENT_LINE_BYTES or total > EVENT_STREAM_BYTES:
                raise HttpFailure("invalid", "invalid response: event stream over its size cap")
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if raw and line.startswith("data:"):
                lines.append(line[5:].removeprefix(" "))
                continue
            if line and raw:
                continue  # another field or a comment
            if lines:  # a blank line (or the end of the body) ends the event
                text = "\n".join(lines)
                lines = []
                if text.strip() == "[DONE]":
                    return
                try:
                    yield json.loads(text)
                except ValueError as exc:
                    why = f"invalid response: event is not JSON ({excerpt(text.encode())!r})"
                    raise HttpFailure("invalid", why) from exc
            if not raw:
                return

    @contextmanager
    def _failures(self, timeout: float) -> Iterator[None]:
        """Network and HTTP errors as ``HttpFailure``, as ``post`` maps them."""
        try:
            yield
        except urllib.error.HTTPError as exc:
            raise self._status(exc) from None
        except urllib.error.URLError as exc:
            raise self._unreachable(exc.reason, timeout) from None
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise self._unreachable(exc, timeout) from None

    def _status(self, exc: urllib.error.HTTPError) -> HttpFailure:
        try:
            detail = excerpt(exc.read(_ERROR_BODY_BYTES))
        except (OSError, http.client.HTTPException):
            detail = ""
        finally:
            exc.close()
        message = f"{self.endpoint} answered HTTP {exc.code} {exc.reason}"
        return HttpFailure("status", f"{message}: {detail}" if detail else message)

    def _send(self, request: urllib.request.Request, timeout: float) -> bytes:
        with self._failures(timeout), self._opener.open(request, timeout=timeout) as response:
            return _bounded(response)

    def _unreachable(self, cause: object, timeout: float) -> HttpFailure:
        timed_out = isinstance(cause, TimeoutError) or "timed out" in str(cause)
        if timed_out:
            why = f"timed out after {timeout} s"
        elif isinstance(cause, ConnectionRefusedError):
            why = "connection refused"
        elif isinstance(cause, socket.gaierror):
            why = f"cannot resolve host ({cause.strerror or cause})"
        elif isinstance(cause, OSError) and cause.strerror:
            why = cause.strerror
        else:
            why = str(cause) or type(cause).__name__
        return HttpFailure(
            "unreachable", f"cannot reach {self.endpoint}: {why}", timed_out=timed_out
        )


def _bounded(response: Any) -> bytes:
    """The whole body, refused beyond ``RESPONSE_BYTES`` (read no further than one byte
    more): a server cannot make gno hold an unbounded answer."""
    raw = bytes(response.read(RESPONSE_BYTES + 1))
    if len(raw) > RESPONSE_BYTES:
        raise HttpFailure("invalid", f"invalid response: body over {RESPONSE_BYTES} bytes")
    return raw


class HttpModel:
    """What the generator and reranker adapters share: the model's name and id, and a
    client for their API path. A URL that is not http(s) fails at construction with the
    port's ``MODEL_LOAD_FAILED`` error; nothing is sent."""

    path: ClassVar[str]  # e.g. "completions"

    def __init__(
        self, url: str, model: str | None, *, timeout: float = 30.0, api_key: str | None = None
    ) -> None:
        self.model = model or None
        self.model_id = f"{url}#{model}" if model else url
        try:
            self._client = JsonClient(
                endpoint_url(url, self.path), timeout=timeout, api_key=api_key
            )
        except ValueError:
            raise self.load_error(f"not an http(s) URL: {url!r}") from None

    def load_error(self, message: str) -> Exception:
        """The port's error for a model that cannot be reached (subclasses name it)."""
        raise NotImplementedError

    @property
    def endpoint(self) -> str:
        return self._client.endpoint
