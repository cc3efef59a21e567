"""Reranking over an OpenAI-compatible completions endpoint (the ``Reranker`` port).

OpenAI-compatible servers have no standard rerank API, so (as GNO does, engine.md
§9.3) each document is scored by asking the model to complete a fixed prompt::

    <Instruct>: <INSTRUCTION>
    <Query>: <query>
    <Document>: <document>
    <Score>:

at ``/v1/completions`` with ``max_tokens`` 10, ``temperature`` 0 and ``stop``
``["\\n", "<"]``. The first number in ``choices[0].text`` is the score, mapped to
[0, 1]: a value already in [0, 1] is kept, one in [−10, 10] becomes
``(x + 5) / 10`` clamped, anything larger in size goes through a sigmoid. The
mapping keeps the scores comparable between documents; the pipeline normalizes
them afterwards like any reranker's.

Identical documents in one call are scored once; distinct ones are sent in
parallel (a few at a time). An answer of ten tokens is small: a body over
``ANSWER_BYTES`` (1 MiB) is refused while it is read, so four answers in flight
cannot cost the client more than a few MiB. Errors (all ``RerankError``):
unreachable server ``MODEL_LOAD_FAILED``; HTTP 4xx/5xx, a body that is not JSON or
too large, or a text without a number ``RERANK_FAILED``.
"""

from __future__ import annotations

import math
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from gno.adapters.openai_http.client import HttpFailure, HttpModel
from gno.ports import MODEL_LOAD_FAILED, RERANK_FAILED, RerankError

INSTRUCTION = (
    "Rate how well the document answers the search query, from 0 (unrelated) to 1 "
    "(answers it fully). Reply with the number only."
)
MAX_TOKENS = 10
PARALLEL = 4
ANSWER_BYTES = 1 << 20
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def score_prompt(query: str, document: str) -> str:
    return f"<Instruct>: {INSTRUCTION}\n<Query>: {query}\n<Document>: {document}\n<Score>:"


def parse_score(text: str) -> float | None:
    """The first number of a completion mapped to [0, 1], or None when there is none."""
    match = _NUMBER.search(text)
    if match is None:
        return None
    value = float(match.group())
    if not math.isfinite(value):
        return None
    if 0.0 <= value <= 1.0:
        return value
    if -10.0 <= value <= 10.0:
        return min(1.0, max(0.0, (value + 5.0) / 10.0))
    return 1.0 / (1.0 + math.exp(-max(-700.0, min(700.0, value))))


class HttpReranker(HttpModel):
    """A ``Reranker`` over an OpenAI-compatible ``/v1/completions`` endpoint."""

    path = "completions"

    def load_error(self, message: str) -> Exception:
        return RerankError(MODEL_LOAD_FAILED, message)

    def rerank(self, query: str, documents: list[str]) -> list[float]:
        if not documents:
            return []
        distinct = list(dict.fromkeys(documents))
        with ThreadPoolExecutor(max_workers=min(PARALLEL, len(distinct))) as pool:
            scores = dict(
                zip(distinct, pool.map(lambda d: self._score(query, d), distinct), strict=True)
            )
        return [scores[document] for document in documents]

    def _score(self, query: str, document: str) -> float:
        body: dict[str, Any] = {
            "prompt": score_prompt(query, document),
            "max_tokens": MAX_TOKENS,
            "temperature": 0,
            "stop": ["\n", "<"],
        }
        if self.model:
            body = {"model": self.model, **body}
        try:
            payload = self._client.post(body, limit=ANSWER_BYTES)
        except HttpFailure as exc:
            code = MODEL_LOAD_FAILED if exc.kind == "unreachable" else RERANK_FAILED
            raise RerankError(code, exc.message) from None
        choices = payload.get("choices") if isinstance(payload, dict) else None
        text = choices[0].get("text") if choices and isinstance(choices[0], dict) else None
        if not isinstance(text, str):
            raise RerankError(RERANK_FAILED, "invalid response: no choices[0].text")
        score = parse_score(text)
        if score is None:
            raise RerankError(RERANK_FAILED, f"invalid response: no score in {text[:40]!r}")
        return score
