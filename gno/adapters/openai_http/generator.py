"""Text generation over an OpenAI-compatible server (the ``Generator`` port).

Endpoint: ``/v1/chat/completions`` under the model URI's base URL (the rule of
``client.endpoint_url``). Request: one user message with the prompt,
``temperature`` 0, ``seed`` 42, ``max_tokens``, and with a schema
``response_format: {"type": "json_schema", "json_schema": {"name": "answer",
"schema": …}}`` (not ``strict``: OpenAI's strict mode refuses some keywords, such
as string lengths, that llama.cpp's server turns into a grammar). The answer is
``choices[0].message.content``.

With ``on_text`` and no schema the answer is streamed: ``stream: true``, and each
server-sent event's ``choices[0].delta.content`` is handed to ``on_text`` as it
arrives (a server that ignores ``stream`` and answers one JSON body is read as
above and handed over whole). An ``error`` event is ``GENERATE_FAILED``.

Servers may ignore the response format, so with a schema the text is returned
as it came (callers parse defensively); only an answer cut off at
``max_tokens`` (``finish_reason: "length"``) is refused as ``INVALID_OUTPUT``.

A server may ignore ``max_tokens`` as well: an answer longer than ``max_tokens`` tokens
could be (``TOKEN_CHARS`` characters each) is ``INVALID_OUTPUT``, and a JSON body past what
such an answer could take (``answer_bytes``) is refused while it is read, so a 50 MB answer
to a 512-token question is never held, parsed, verified or printed.

Errors (all ``GenerationError``): server unreachable ``MODEL_LOAD_FAILED``; no
answer within ``timeout`` (per socket operation, as in ``urllib``)
``GENERATE_TIMEOUT``; HTTP 4xx/5xx ``GENERATE_FAILED`` with an excerpt of the
body; a body that is not JSON or has no text where the answer should be
``INVALID_OUTPUT``. Nothing is sent at construction.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from gno.adapters.openai_http.client import HttpFailure, HttpModel, excerpt
from gno.ports import (
    DEFAULT_GENERATE_TOKENS,
    GENERATE_FAILED,
    GENERATE_SEED,
    GENERATE_TEMPERATURE,
    GENERATE_TIMEOUT,
    INVALID_OUTPUT,
    MODEL_LOAD_FAILED,
    GenerationError,
)

TOKEN_CHARS = 256  # longer than any tokenizer's longest token (runs of spaces, "====…")
ENVELOPE_BYTES = 64 << 10  # a chat completion's JSON around its text: ids, usage, finish


def answer_bytes(max_tokens: int) -> int:
    """The largest JSON chat completion an answer of ``max_tokens`` tokens can make: every
    character escaped (``\\uXXXX``, 6 bytes), plus the envelope."""
    return ENVELOPE_BYTES + 6 * TOKEN_CHARS * max_tokens


def _check_length(chars: int, max_tokens: int) -> None:
    if chars > TOKEN_CHARS * max_tokens:
        raise _invalid(f"an answer longer than {max_tokens} tokens can be")


def _invalid(why: str) -> GenerationError:
    return GenerationError(INVALID_OUTPUT, f"invalid response: {why}")


class HttpGenerator(HttpModel):
    """A ``Generator`` over an OpenAI-compatible ``/v1/chat/completions`` endpoint."""

    path = "chat/completions"

    def load_error(self, message: str) -> Exception:
        return GenerationError(MODEL_LOAD_FAILED, message)

    def generate(
        self,
        prompt: str,
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = DEFAULT_GENERATE_TOKENS,
        timeout: float | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> str:
        body: dict[str, Any] = {
            "messages": [{"role": "user", "content": prompt}],
            "temperature": GENERATE_TEMPERATURE,
            "seed": GENERATE_SEED,
            "max_tokens": max_tokens,
        }
        if self.model:
            body = {"model": self.model, **body}
        if schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": schema},
            }
        try:
            if on_text is not None and schema is None:
                return self._streamed(body, timeout, max_tokens, on_text)
            payload = self._client.post(body, timeout=timeout, limit=answer_bytes(max_tokens))
        except HttpFailure as exc:
            raise _failure(exc) from None
        return _answer(payload, schema, max_tokens, on_text)

    def _streamed(
        self,
        body: dict[str, Any],
        timeout: float | None,
        max_tokens: int,
        on_text: Callable[[str], None],
    ) -> str:
        pieces: list[str] = []
        held = 0
        events = self._client.events(body, timeout=timeout, limit=answer_bytes(max_tokens))
        for event in events:
            if not isinstance(event, dict):
                raise _invalid("an event is not a JSON object")
            if "error" in event:
                raise GenerationError(GENERATE_FAILED, f"stream error: {_excerpt(event)}")
            choices = event.get("choices")
            if not choices:  # e.g. the closing usage event (choices: [])
                continue
            choice = _first_choice(event)
            if "message" in choice:  # the server answered at once, not as a stream
                return _answer(event, None, max_tokens, on_text)
            delta = choice.get("delta")
            piece = delta.get("content") if isinstance(delta, dict) else None
            if piece is None:  # a role-only or a final event
                continue
            if not isinstance(piece, str):
                raise _invalid("choices[0].delta.content is not text")
            if piece:
                held += len(piece)
                _check_length(held, max_tokens)  # before the piece is shown
                pieces.append(piece)
                on_text(piece)
        return "".join(pieces)


def _failure(exc: HttpFailure) -> GenerationError:
    if exc.timed_out:
        return GenerationError(GENERATE_TIMEOUT, exc.message)
    code = {"unreachable": MODEL_LOAD_FAILED, "status": GENERATE_FAILED}.get(
        exc.kind, INVALID_OUTPUT
    )
    return GenerationError(code, exc.message)


def _excerpt(event: dict[str, Any]) -> str:
    return excerpt(json.dumps(event, ensure_ascii=False).encode("utf-8"))


def _answer(
    payload: Any,
    schema: dict[str, Any] | None,
    max_tokens: int,
    on_text: Callable[[str], None] | None,
) -> str:
    """The text of one chat completion answered whole."""
    choice = _first_choice(payload)
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise _invalid("choices[0].message.content is not text")
    _check_length(len(content), max_tokens)
    if schema is not None and choice.get("finish_reason") == "length":
        raise GenerationError(INVALID_OUTPUT, f"JSON answer cut off at {max_tokens} tokens")
    if on_text is not None:  # answered whole: handed over at once
        on_text(content)
    return content


def _first_choice(payload: Any) -> dict[str, Any]:
    choices = payload.get("choices") if isinstance(payload, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _invalid("no 'choices'")
    return choices[0]
