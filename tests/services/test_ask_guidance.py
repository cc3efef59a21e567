"""Configured contexts reach ``ask`` (plain and ``--verify``) as trusted guidance in its own
block of the prompt, never as a numbered source or citable evidence (issue 21 item 1)."""

from __future__ import annotations

from typing import Any

from gno_contracts.models.ask_input import AskInput
from gno_contracts.models.context_add_input import ContextAddInput

from gno.services.ask import ask
from gno.services.contexts import context_add
from tests.fake_openai import FakeOpenAI
from tests.services.test_ask import _prompt, app, gen  # noqa: F401 (fixtures)

GUIDANCE = "Prefer the collector runbooks over blog posts."


def _between(prompt: str, start: str, end: str) -> str:
    return prompt[prompt.rindex(start) : prompt.rindex(end)]


def test_guidance_is_its_own_block_never_a_source(app: Any, gen: FakeOpenAI) -> None:  # noqa: F811
    context_add(app, ContextAddInput(scope="/", text=GUIDANCE))
    gen.chat_reply = lambda body: "Tail sampling keeps slow traces [1]."
    result = ask(app, AskInput(query="tail sampling", answer=True))
    prompt = _prompt(gen)
    assert GUIDANCE in _between(prompt, "<configured_guidance>", "</configured_guidance>")
    assert GUIDANCE not in _between(prompt, "<retrieved_sources>", "</retrieved_sources>")
    assert all(GUIDANCE not in s.uri for s in result.citations or [])

    verified = ask(app, AskInput(query="tail sampling", verify=True))
    # The last request is the verifier's; the answer prompt is the one with guidance.
    answer_prompt = next(
        str(r.body["messages"][-1]["content"])
        for r in reversed(gen.requests)
        if "<configured_guidance>" in str(r.body["messages"][-1]["content"])
    )
    assert GUIDANCE in _between(answer_prompt, "<configured_guidance>", "</configured_guidance>")
    capsule = verified.verification.capsule  # type: ignore[union-attr]
    texts = [c.text for c in capsule.guidance.configuredContexts]
    assert texts == [GUIDANCE]
    assert all(GUIDANCE not in e.text for e in capsule.evidence)
