"""Remote embeddings over an OpenAI-compatible HTTP server (the ``Embedder`` port).

GNO model URIs of the form ``http(s)://host:port/path#model`` (engine.md §1.7)
name such a server; ``parse_model_uri`` splits them into ``url`` and ``model``.

Endpoint rule: the request goes to ``<url>/embeddings`` when ``url`` ends with
``/v1`` (``http://127.0.0.1:8080/v1#model``), to ``url`` itself when it already
ends with ``/v1/embeddings``, and to ``<url>/v1/embeddings`` otherwise
(``http://host:port#model``). A trailing ``/`` is ignored.

Request: ``POST`` JSON ``{"model": model, "input": [texts...]}`` (``model`` is
left out when the URI has no ``#model``), at most ``batch_size`` texts per
request, with ``Authorization: Bearer <key>`` when ``api_key`` (or the
``GNO_HTTP_API_KEY`` environment variable) is set. Vectors are read from
``data[i].embedding``, put back in input order by ``data[i].index``, checked
(count, numbers, one width) and L2-normalized here.

Dimensions: learned at construction from one probe request (the text
``"dimension probe"``), so a server that is down or misconfigured fails when the
embedder is built, like a missing GGUF file for the local adapter, and
``dimensions`` stays a plain attribute. Constructing the object therefore costs
one round trip.

Truncation: inputs are sent whole. ``max_tokens`` is a conservative 2048 that
only informs callers; the server applies its own limit (some truncate, some,
like llama.cpp's server, answer an error for an input larger than their batch,
which surfaces here as ``EMBED_FAILED`` for that input, never as a crash).

Errors (all raised as ``EmbeddingError``):

- the server cannot be reached (refused, DNS, timeout, reset): ``MODEL_LOAD_FAILED``,
  naming the URL and the cause;
- the server answers HTTP 4xx/5xx: ``EMBED_FAILED`` with the status and at most
  200 characters of the body;
- the answer is not the expected JSON (not JSON, wrong shape, wrong count, mixed
  or changed widths, a vector wider than ``MAX_DIMENSIONS``, zero or non-finite
  vectors): ``EMBED_FAILED`` ``"invalid response: …"``.

Size: an answer may hold at most ``MAX_DIMENSIONS`` (16,384, four times the widest
common embedding model) numbers per input at ``NUMBER_BYTES`` each, plus
``ENVELOPE_BYTES``; a longer body is refused while it is read. Decoded JSON numbers
cost some twenty times their text, so this, not the client's general 64 MiB cap, is
what keeps a hostile server from making one batch cost gigabytes.

HTTP plumbing (timeouts, proxies, error excerpts) is shared with the other HTTP
adapters in ``client.py``. Standard library only, so importing this module stays cheap.
"""

from __future__ import annotations

import math
from typing import Any

from gno.adapters.openai_http.client import HttpFailure, JsonClient, endpoint_url
from gno.ports import EMBED_FAILED, MODEL_LOAD_FAILED, EmbeddingError

DEFAULT_MAX_TOKENS = 2048
PROBE_TEXT = "dimension probe"
MAX_DIMENSIONS = 16_384
NUMBER_BYTES = 40  # "-1.2345678901234567e-05, " with room for pretty-printing
ENVELOPE_BYTES = 64 << 10  # object, model, usage, and per-item index/object keys


def answer_limit(count: int) -> int:
    """The most bytes an honest answer for ``count`` inputs can take."""
    return ENVELOPE_BYTES + count * (MAX_DIMENSIONS * NUMBER_BYTES + 256)


def embeddings_endpoint(url: str) -> str:
    """The embeddings URL for a base URL (see the module docstring for the rule)."""
    return endpoint_url(url, "embeddings")


def _invalid(why: str) -> EmbeddingError:
    return EmbeddingError(EMBED_FAILED, f"invalid response: {why}")


def _normalize(vector: list[float]) -> list[float]:
    norm = math.sqrt(math.fsum(x * x for x in vector))
    if not math.isfinite(norm) or norm == 0.0:
        raise _invalid("zero or non-finite vector")
    return [x / norm for x in vector]


def _parse_vectors(payload: Any, count: int) -> list[list[float]]:
    """``count`` raw vectors from an OpenAI embeddings response, in input order."""
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
        raise _invalid("no 'data' list")
    data = payload["data"]
    if len(data) != count:
        raise _invalid(f"expected {count} embeddings, got {len(data)}")
    slots: list[list[float] | None] = [None] * count
    for position, item in enumerate(data):
        if not isinstance(item, dict):
            raise _invalid(f"data[{position}] is not an object")
        index = item.get("index", position)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise _invalid(f"data[{position}] has a bad index {index!r}")
        if slots[index] is not None:
            raise _invalid(f"index {index} appears twice")
        vector = item.get("embedding")
        if isinstance(vector, list) and len(vector) > MAX_DIMENSIONS:
            raise _invalid(f"data[{position}].embedding is wider than {MAX_DIMENSIONS}")
        if (
            not isinstance(vector, list)
            or not vector
            or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector)
        ):
            raise _invalid(f"data[{position}].embedding is not a list of numbers")
        slots[index] = [float(x) for x in vector]
    vectors = [v for v in slots if v is not None]  # all filled: count distinct valid indexes
    widths = sorted({len(v) for v in vectors})
    if len(widths) > 1:
        raise _invalid(f"mixed vector widths {widths}")
    return vectors


class HttpEmbedder:
    """An ``Embedder`` over an OpenAI-compatible ``/v1/embeddings`` endpoint."""

    def __init__(
        self,
        url: str,
        model: str | None,
        *,
        timeout: float = 30.0,
        batch_size: int = 32,
        api_key: str | None = None,
    ) -> None:
        self.url = url
        self.model = model or None
        self.model_id = f"{url}#{model}" if model else url
        self.timeout = float(timeout)
        self.batch_size = max(1, int(batch_size))
        self.max_tokens: int = DEFAULT_MAX_TOKENS
        try:
            self._client = JsonClient(embeddings_endpoint(url), timeout=timeout, api_key=api_key)
        except ValueError:
            raise EmbeddingError(MODEL_LOAD_FAILED, f"not an http(s) URL: {url!r}") from None
        self.dimensions: int = 0
        self.dimensions = len(self._request([PROBE_TEXT])[0])

    def embed_batch(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = self._request(list(texts[start : start + self.batch_size]))
            if batch and len(batch[0]) != self.dimensions:
                raise _invalid(f"vector width {len(batch[0])}, expected {self.dimensions}")
            vectors.extend(batch)
        return vectors

    def close(self) -> None:
        """Nothing to release (one connection per request)."""

    @property
    def endpoint(self) -> str:
        return self._client.endpoint

    @endpoint.setter
    def endpoint(self, value: str) -> None:
        self._client.endpoint = value

    def _request(self, texts: list[str]) -> list[list[float]]:
        body: dict[str, Any] = {"input": texts}
        if self.model:
            body = {"model": self.model, **body}
        try:
            payload = self._client.post(body, limit=answer_limit(len(texts)))
        except HttpFailure as exc:
            code = MODEL_LOAD_FAILED if exc.kind == "unreachable" else EMBED_FAILED
            raise EmbeddingError(code, exc.message) from None
        return [_normalize(v) for v in _parse_vectors(payload, len(texts))]
