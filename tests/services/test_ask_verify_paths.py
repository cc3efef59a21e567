"""Every abstention path of ``ask --verify`` with scripted answers from a loopback
OpenAI-compatible server (tests/fake_openai.py) on a real index: no substantive claim,
an orphan citation, evidence that went stale or missing between the Capsule's compile and
its verification, and a verifier that fails or answers garbage. Each withholds the answer."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gno_contracts.models.ask_input import AskInput
from jsonschema import Draft202012Validator

from gno.services.ask import ask
from tests.conftest import sync
from tests.fake_openai import FakeOpenAI
from tests.services.test_ask import ASK_SCHEMA, VERIFIER
from tests.services.test_context_capsule import FILES

QUERY = "tail sampling latency"


@pytest.fixture
def gen(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(mode="ok") as server:
        monkeypatch.setenv("GNO_GEN_MODEL", f"{server.url}/v1#fake-gen")
        yield server


@pytest.fixture
def indexed(make_app: Any) -> tuple[Any, Path]:
    app, root = make_app(FILES)
    sync(app)
    return app, root


def _scripted(answer: str, verifier: Callable[[list[dict[str, Any]]], str]) -> Any:
    """The answer for the answer prompt; ``verifier(claims)`` for the verifier prompt."""

    def reply(body: dict[str, Any]) -> str:
        prompt = str(body["messages"][-1]["content"])
        if VERIFIER.search(prompt):
            return verifier(json.loads(prompt.split(">>\n", 1)[1].rsplit("\n<<", 1)[0])["claims"])
        return answer

    return reply


def _all(verdict: str) -> Callable[[list[dict[str, Any]]], str]:
    return lambda claims: json.dumps(
        {"verdicts": [{"claim": c["claim"], "verdict": verdict} for c in claims]}
    )


def _verified(app: Any, **fields: Any) -> dict[str, Any]:
    payload = ask(app, AskInput(query=QUERY, verify=True, **fields)).model_dump(
        mode="json", exclude_unset=True
    )
    Draft202012Validator(ASK_SCHEMA).validate(payload)
    claims = payload["verification"]["claims"]
    assert ("answer" in payload) == (claims["answerStatus"] == "verified")
    assert payload["meta"]["abstained"] is claims["abstained"]
    return payload


def test_the_scripted_supported_answer_is_released(indexed: Any, gen: FakeOpenAI) -> None:
    """The control: the same script with every claim supported is released."""
    app, _ = indexed
    gen.chat_reply = _scripted("Tail sampling keeps slow traces [1].", _all("supported"))
    payload = _verified(app)
    assert payload["verification"]["claims"]["answerStatus"] == "verified"


@pytest.mark.parametrize("answer", ["", "...", "[1]", "—  —\n\n"])
def test_no_substantive_claims(indexed: Any, gen: FakeOpenAI, answer: str) -> None:
    app, _ = indexed
    gen.chat_reply = _scripted(answer, _all("supported"))
    claims = _verified(app)["verification"]["claims"]
    assert claims["abstentionReason"] == "no_substantive_claims"
    assert claims["coverage"]["totalClaims"] == 0 and claims["abstentionText"]


def test_orphan_citation_fails_hygiene(indexed: Any, gen: FakeOpenAI) -> None:
    app, _ = indexed
    gen.chat_reply = _scripted("Tail sampling keeps slow traces [1].\n[1]", _all("supported"))
    payload = _verified(app)
    claims = payload["verification"]["claims"]
    assert claims["claims"][0]["status"] == "supported"  # the claim itself is backed
    assert [r["reason"] for r in claims["rejectedCitations"]] == ["orphan_citation"]
    assert claims["abstentionReason"] == "citation_hygiene_failed"


@pytest.mark.parametrize(
    ("change", "reason"), [("edit", "evidence_stale"), ("delete", "evidence_missing")]
)
def test_evidence_changed_after_compile(
    indexed: Any, gen: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, change: str, reason: str
) -> None:
    """A source edited (or deleted) and synced between the Capsule's compile and its
    verification: a citation of that evidence is rejected and the answer withheld."""
    import gno.services.ask_verify as ask_verify

    app, root = indexed
    real = ask_verify.compile_capsule
    cited: list[str] = []

    def compile_then_change(app: Any, inp: Any) -> dict[str, Any]:
        capsule = real(app, inp)
        uri = capsule["evidence"][0]["uri"]
        cited.append(uri)
        path = root / uri.removeprefix("gno://notes/")
        if change == "edit":
            path.write_text("# Rewritten\n\nNothing of the old text remains.\n")
        else:
            path.unlink()
        sync(app)
        return capsule

    monkeypatch.setattr(ask_verify, "compile_capsule", compile_then_change)
    gen.chat_reply = _scripted("Tail sampling keeps slow traces [1].", _all("supported"))
    payload = _verified(app)
    claims = payload["verification"]["claims"]
    assert cited and claims["claims"][0]["rejectedCitations"][0]["reason"] == reason
    assert claims["claims"][0]["status"] == "insufficient"
    assert claims["abstentionReason"] == "citation_hygiene_failed"
    fresh = payload["verification"]["freshness"]
    assert fresh["contentStatus"] == ("stale" if change == "edit" else "missing")


@pytest.mark.parametrize(
    ("verifier", "why"),
    [
        (lambda claims: "not json at all", "invalid_output"),
        (lambda claims: json.dumps({"verdicts": []}), None),  # parsed, but decides nothing
    ],
)
def test_a_verifier_that_decides_nothing_leaves_claims_uncertain(
    indexed: Any, gen: FakeOpenAI, verifier: Any, why: str | None
) -> None:
    app, _ = indexed
    gen.chat_reply = _scripted("Tail sampling keeps slow traces [1].", verifier)
    payload = _verified(app)
    claims = payload["verification"]["claims"]
    semantic = payload["verification"]["semantic"]
    assert claims["claims"][0]["status"] == "uncertain"
    assert claims["abstentionReason"] == "coverage_below_threshold"
    if why is not None:
        assert (semantic["status"], semantic["reason"]) == ("failed", why)
    assert semantic["modelCalls"] == 1


def test_a_verifier_server_error_fails_closed(indexed: Any, gen: FakeOpenAI) -> None:
    app, _ = indexed
    gen.chat_reply = lambda body: "Tail sampling keeps slow traces [1]."
    gen.routes[("POST", "/v1/chat/completions")] = _failing_verifier(gen)
    payload = _verified(app)
    semantic = payload["verification"]["semantic"]
    assert (semantic["status"], semantic["reason"]) == ("failed", "generation_failed")
    assert payload["verification"]["claims"]["claims"][0]["status"] == "uncertain"
    assert payload["verification"]["claims"]["abstentionReason"] == "coverage_below_threshold"


def _failing_verifier(gen: FakeOpenAI) -> Any:
    """The chat route, answering HTTP 500 to the verifier prompt only."""
    from tests.fake_openai import Reply

    normal = gen.routes[("POST", "/v1/chat/completions")]

    def route(body: dict[str, Any]) -> Reply:
        if VERIFIER.search(str(body["messages"][-1]["content"])):
            return Reply(500, b'{"error": {"message": "verifier crashed"}}')
        return normal(body)

    return route


def test_verifier_bounds(indexed: Any, gen: FakeOpenAI) -> None:
    """At most 256 claims, 32 of them sent to the verifier (the rest stay uncertain), and a
    verifier prompt over 256 KiB is not sent at all (input_limit_exceeded)."""
    app, _ = indexed
    seen: list[int] = []

    def count_claims(claims: list[dict[str, Any]]) -> str:
        seen.append(len(claims))
        return _all("supported")(claims)

    gen.chat_reply = _scripted(" ".join(f"Claim {n} holds [1]." for n in range(300)), count_claims)
    payload = _verified(app)
    claims = payload["verification"]["claims"]
    semantic = payload["verification"]["semantic"]
    assert claims["coverage"]["totalClaims"] == 256 and seen == [32]
    assert (semantic["candidateClaims"], semantic["verifiedClaims"]) == (256, 32)
    assert claims["coverage"]["supportedClaims"] == 32
    # The citations of the 44 sentences past the cap belong to no claim: orphans.
    assert claims["abstentionReason"] == "citation_hygiene_failed"
    assert sum(r["reason"] == "orphan_citation" for r in claims["rejectedCitations"]) == 44

    seen.clear()
    long_claim = "Tail sampling keeps " + "very " * 2000 + "slow traces [1]."
    gen.chat_reply = _scripted(" ".join([long_claim] * 32), count_claims)
    payload = _verified(app, maxAnswerTokens=4096)  # ~10,000 words: more than 512 tokens hold
    semantic = payload["verification"]["semantic"]
    assert (semantic["status"], semantic["reason"]) == ("unavailable", "input_limit_exceeded")
    assert seen == [] and semantic["modelCalls"] == 0
    assert payload["verification"]["claims"]["answerStatus"] == "abstained"


@pytest.mark.parametrize(
    "verdicts",
    [
        # the same claim judged twice, one verdict contradicting the other: GNO refuses
        # an output that does not judge each claim once
        [{"claim": 1, "verdict": "supported"}, {"claim": 1, "verdict": "contradicted"}],
        [{"claim": True, "verdict": "supported"}],  # JSON true is no claim number
    ],
)
def test_a_verdict_list_that_is_not_one_per_claim_supports_nothing(
    indexed: Any, gen: FakeOpenAI, verdicts: list[dict[str, Any]]
) -> None:
    app, _ = indexed
    gen.chat_reply = _scripted(
        "Tail sampling keeps slow traces [1].", lambda claims: json.dumps({"verdicts": verdicts})
    )
    payload = _verified(app)
    claims = payload["verification"]["claims"]
    assert claims["claims"][0]["status"] == "uncertain"
    assert claims["abstentionReason"] == "coverage_below_threshold"


def test_each_claim_is_judged_against_the_evidence_it_cites(indexed: Any, gen: FakeOpenAI) -> None:
    """The verifier sees which evidence each claim cites and is told to judge the claim
    against that evidence only: a claim citing a passage that does not say it is not
    'supported' because another passage in the prompt does (GNO lists the evidence
    beside each claim)."""
    app, _ = indexed
    sent: list[tuple[str, dict[str, Any]]] = []

    def verifier(body: dict[str, Any]) -> str:
        prompt = str(body["messages"][-1]["content"])
        if not VERIFIER.search(prompt):
            return "Tail sampling keeps slow traces [1]. Head sampling decides at the start [2]."
        block = json.loads(prompt.split(">>\n", 1)[1].rsplit("\n<<", 1)[0])
        sent.append((prompt, block))
        return json.dumps({"verdicts": [{"claim": 1, "verdict": "supported"}]})

    gen.chat_reply = verifier
    payload = ask(app, AskInput(query="tail and head sampling", verify=True)).model_dump(
        mode="json", exclude_unset=True
    )
    evidence = payload["verification"]["capsule"]["evidence"]
    assert len(evidence) >= 2
    ((prompt, block),) = sent
    assert "only the evidence it cites" in prompt
    assert [c["evidence"] for c in block["claims"]] == [
        [evidence[0]["evidenceId"]],
        [evidence[1]["evidenceId"]],
    ]
