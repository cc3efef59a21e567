"""JSON over HTTP to an OpenAI-compatible server, shared by the HTTP adapters.

Standard library only, so importing an HTTP adapter stays cheap. One connection
per request. Proxies from the environment are honoured except for loopback
hosts. ``timeout`` applies to each socket operation (connect, each read), as in
``urllib``, and bounds the whole request too: a server that drips its answer a byte at a
time is cut when ``timeout`` seconds have passed since the request began (``opener.py``).
An answer streamed as events has ``EVENT_STREAM_SECONDS`` (10 minutes) in all unless the
caller gives a ``timeout``. Redirects are never followed: a 3xx is a ``status`` failure.

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
over 64 MiB (or the smaller ``limit`` a caller passes to ``post``) is ``invalid``: the
server cannot make gno hold an unbounded answer. JSON nested too deep to decode is
``invalid`` as well, never a ``RecursionError``.
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

from gno.adapters.openai_http.opener import Deadline, build_opener, open_with_deadline

API_KEY_ENV = "GNO_HTTP_API_KEY"
EXCERPT_CHARS = 200
_ERROR_BODY_BYTES = 4096
EVENT_LINE_BYTES = 1 << 20  # one SSE line
EVENT_STREAM_BYTES = 16 << 20  # a whole streamed answer
RESPONSE_BYTES = 64 << 20  # a whole JSON answer (a batch of embeddings is the largest)
EVENT_STREAM_SECONDS = 600.0  # a streamed answer, when the caller sets no timeout


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


def decode_json(raw: bytes | str) -> Any:
    """``json.loads``, with JSON nested deeper than the decoder's recursion limit (a few
    KB of ``[`` are enough) refused as ``ValueError`` like any other undecodable body."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("JSON nested too deep") from None


def excerpt(raw: bytes) -> str:
    """A one-line excerpt of a body; the ``error.message`` of a JSON error if any."""
    text = raw.decode("utf-8", errors="replace")
    try:
        doc = decode_json(text)
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
        self._opener = build_opener(direct=is_loopback(parsed.hostname))

    def post(
        self, body: dict[str, Any], *, timeout: float | None = None, limit: int | None = None
    ) -> Any:
        """The decoded JSON answer to ``body``; a body over ``limit`` bytes (default
        ``RESPONSE_BYTES``) is ``invalid``."""
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(
            self.endpoint, data=data, headers=self.headers, method="POST"
        )
        wait = self.timeout if timeout is None else timeout
        deadline = Deadline(wait)
        try:
            with self._failures(wait, deadline):
                response = open_with_deadline(self._opener, request, wait, deadline)
                with response:
                    raw = _bounded(response, RESPONSE_BYTES if limit is None else limit)
        finally:
            deadline.cancel()
        return _decoded(raw, "not JSON")

    def events(
        self, body: dict[str, Any], *, timeout: float | None = None, limit: int | None = None
    ) -> Iterator[Any]:
        """POST ``body`` with ``stream: true``; yield each event's JSON as it arrives (a JSON
        body instead of events is capped as ``post`` caps it)."""
        data = json.dumps({**body, "stream": True}, ensure_ascii=False).encode("utf-8")
        headers = self.headers | {"Accept": "text/event-stream"}
        request = urllib.request.Request(self.endpoint, data=data, headers=headers, method="POST")
        wait = self.timeout if timeout is None else timeout
        deadline = Deadline(EVENT_STREAM_SECONDS if timeout is None else timeout)
        try:
            with self._failures(wait, deadline):
                response = open_with_deadline(self._opener, request, wait, deadline)
            with response:
                if "text/event-stream" not in (response.headers.get("Content-Type") or ""):
                    with self._failures(wait, deadline):
                        raw = _bounded(response, RESPONSE_BYTES if limit is None else limit)
                    yield _decoded(raw, "not JSON")
                    return
                yield from self._read_events(response, wait, deadline)
        finally:
            deadline.cancel()

    def _read_events(self, response: Any, wait: float, deadline: Deadline) -> Iterator[Any]:
        """SSE framing: ``data:`` lines joined by newlines, dispatched at a blank line;
        comments, ``event:``, ``id:`` and ``retry:`` lines are ignored."""
        total = 0
        lines: list[str] = []
        while True:
            with self._failures(wait, deadline):
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
                yield _decoded(text.encode("utf-8"), "event is not JSON")
            if not raw:
                return

    @contextmanager
    def _failures(self, timeout: float, deadline: Deadline) -> Iterator[None]:
        """Network and HTTP errors as ``HttpFailure``, as ``post`` maps them. Once the
        deadline has cut the socket, whatever the read made of it (an error, a short
        body, an end of stream) is a timeout."""
        try:
            yield
        except urllib.error.HTTPError as exc:
            raise self._status(exc) from None
        except urllib.error.URLError as exc:
            raise self._unreachable(deadline if deadline.expired else exc.reason, timeout) from None
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise self._unreachable(deadline if deadline.expired else exc, timeout) from None
        if deadline.expired:
            raise self._unreachable(deadline, timeout)

    def _status(self, exc: urllib.error.HTTPError) -> HttpFailure:
        try:
            detail = excerpt(exc.read(_ERROR_BODY_BYTES))
        except (OSError, http.client.HTTPException):
            detail = ""
        finally:
            exc.close()
        message = f"{self.endpoint} answered HTTP {exc.code} {exc.reason}"
        if 300 <= exc.code < 400:
            return HttpFailure("status", f"{message} (gno follows no redirects)")
        return HttpFailure("status", f"{message}: {detail}" if detail else message)

    def _unreachable(self, cause: object, timeout: float) -> HttpFailure:
        timed_out = isinstance(cause, TimeoutError | Deadline) or "timed out" in str(cause)
        if isinstance(cause, Deadline):
            why = f"timed out after {cause.seconds} s (the whole answer)"
        elif timed_out:
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


def _bounded(response: Any, limit: int) -> bytes:
    """The whole body, refused beyond ``limit`` bytes (read no further than one byte
    more): a server cannot make gno hold an unbounded answer."""
    raw = bytes(response.read(limit + 1))
    if len(raw) > limit:
        raise HttpFailure("invalid", f"invalid response: body over {limit} bytes")
    return raw


def _decoded(raw: bytes, what: str) -> Any:
    try:
        return decode_json(raw)
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, nested too deep
        raise HttpFailure("invalid", f"invalid response: {what} ({excerpt(raw)!r})") from exc


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
