"""Text generation over an OpenAI-compatible server (the ``Generator`` port).

Endpoint: ``/v1/chat/completions`` under the model URI's base URL (the rule of
``client.endpoint_url``). Request: one user message with the prompt,
``temperature`` 0, ``seed`` 42, ``max_tokens``, and with a schema
``response_format: {"type": "json_schema", "json_schema": {"name": "answer",
"schema": …}}`` (not ``strict``: OpenAI's strict mode refuses some keywords, such
as string lengths, that llama.cpp's server turns into a grammar). The answer is
``choices[0].message.content``.

Servers may ignore the response format, so with a schema the text is returned
as it came (callers parse defensively); only an answer cut off at
``max_tokens`` (``finish_reason: "length"``) is refused as ``INVALID_OUTPUT``.

Errors (all ``GenerationError``): server unreachable ``MODEL_LOAD_FAILED``; no
answer within ``timeout`` (per socket operation, as in ``urllib``)
``GENERATE_TIMEOUT``; HTTP 4xx/5xx ``GENERATE_FAILED`` with an excerpt of the
body; a body that is not JSON or has no text where the answer should be
``INVALID_OUTPUT``. Nothing is sent at construction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gno.adapters.openai_http.client import HttpFailure, HttpModel
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
            payload = self._client.post(body, timeout=timeout)
        except HttpFailure as exc:
            if exc.timed_out:
                raise GenerationError(GENERATE_TIMEOUT, exc.message) from None
            code = {"unreachable": MODEL_LOAD_FAILED, "status": GENERATE_FAILED}.get(
                exc.kind, INVALID_OUTPUT
            )
            raise GenerationError(code, exc.message) from None
        choice = _first_choice(payload)
        message = choice.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise _invalid("choices[0].message.content is not text")
        if schema is not None and choice.get("finish_reason") == "length":
            raise GenerationError(INVALID_OUTPUT, f"JSON answer cut off at {max_tokens} tokens")
        if on_text is not None:  # not streamed over HTTP: the whole answer at once
            on_text(content)
        return content


def _first_choice(payload: Any) -> dict[str, Any]:
    choices = payload.get("choices") if isinstance(payload, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _invalid("no 'choices'")
    return choices[0]
