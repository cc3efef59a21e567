"""``ask --verify`` over answers built to be expensive: a model's answer of ``maxAnswerTokens``
(4,096: about a million characters) made of citation markers must be verified in one pass
(offsets in UTF-16 are not recounted from the answer's start for each marker), and the
rejected citations a claim lists are capped as the answer's are (256)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gno_contracts.models.ask_input import AskInput

from gno.core.claims import MAX_CLAIMS
from gno.services.ask import ask
from tests.fake_openai import FakeOpenAI
from tests.services.test_ask_verify_paths import _all, _scripted, gen, indexed  # noqa: F401

QUERY = "tail sampling latency"


@contextmanager
def within(seconds: int) -> Iterator[None]:
    """A bound, not a timing: the quadratic scan took about 11 s for a 512-token answer of
    markers, about 64 times that for 4,096 tokens."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"not done within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _verified(app: Any, tokens: int) -> dict[str, Any]:
    inp = AskInput(query=QUERY, verify=True, maxAnswerTokens=tokens)
    return ask(app, inp).model_dump(mode="json", exclude_unset=True)


def test_an_answer_of_markers_is_verified_in_one_pass(
    indexed: Any,  # noqa: F811
    gen: FakeOpenAI,  # noqa: F811
) -> None:
    app, _ = indexed
    gen.chat_reply = _scripted("[1]" * (4096 * 256 // 3), _all("supported"))
    with within(90):
        claims = _verified(app, 4096)["verification"]["claims"]
    assert claims["abstentionReason"] == "no_substantive_claims"
    assert len(claims["rejectedCitations"]) == MAX_CLAIMS  # every marker an orphan


def test_a_claim_lists_at_most_256_rejected_citations(
    indexed: Any,  # noqa: F811
    gen: FakeOpenAI,  # noqa: F811
) -> None:
    app, _ = indexed
    gen.chat_reply = _scripted("Tail sampling " + "[9999]" * 20_000 + ".", _all("supported"))
    with within(90):
        payload = _verified(app, 512)
    claims = payload["verification"]["claims"]
    (claim,) = claims["claims"]
    assert claim["status"] == "insufficient"
    assert len(claim["rejectedCitations"]) == MAX_CLAIMS
    assert {r["reason"] for r in claim["rejectedCitations"]} == {"out_of_capsule"}
    assert claims["abstentionReason"] == "citation_hygiene_failed"
