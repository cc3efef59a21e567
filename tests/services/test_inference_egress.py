"""Collection content sent to a model endpoint off this machine (engine.md §9.5, action
``remote_inference``; spec/egress.md): a fake OpenAI-compatible server on a non-loopback
address of this machine stands for it. Chunks of a ``local_only`` collection are never
embedded there, passages of it never reranked there, sources of it never put into a gen
prompt there — the fake server's request log proves nothing was sent — and all of it goes
once the policy allows the endpoint's zone. The same server on 127.0.0.1 is this machine:
nothing is judged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from gno_contracts.models.ask_input import AskInput
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.egress_policy_set_input import EgressPolicySetInput
from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.query_input import QueryInput

from gno.app import App
from gno.core.egress import zone_of
from gno.errors import EgressDeniedError
from gno.services import inference_egress
from gno.services.ask import ask
from gno.services.collections import collection_add
from gno.services.egress import egress_policy_set, states
from gno.services.embed import embed
from gno.services.query import query
from tests.conftest import sync, write_tree
from tests.fake_openai import FakeOpenAI
from tests.surfaces.egress_peers import non_loopback_address

SECRET = "hunter2"


@pytest.fixture
def remote() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(mode="ok", host=non_loopback_address()) as server:
        yield server


@pytest.fixture
def home(make_app: Any) -> App:
    app, root = make_app({"plan.md": f"# Plan\n\nThe zebra password is {SECRET}.\n"})
    shared = write_tree(root.parent / "src-shared", {"open.md": "# Open\n\nzebra crossing\n"})
    collection_add(app, CollectionAddInput(path=str(shared), name="shared"))
    sync(app)
    return app


def relax(app: App, collection: str, target: str) -> None:
    revision = states(app, [collection])[0].revision
    egress_policy_set(
        app,
        EgressPolicySetInput.model_validate(
            {"collection": collection, "policy": target, "confirmRevision": revision}
        ),
    )


def sent(server: FakeOpenAI) -> str:
    return json.dumps([r.body for r in server.requests])


def test_endpoint_zones() -> None:
    assert inference_egress.endpoint_zone("hf:org/repo/model.gguf") is None
    assert inference_egress.endpoint_zone("file:/models/x.gguf") is None
    assert inference_egress.endpoint_zone("http://127.0.0.1:8080/v1#m") is None
    assert inference_egress.endpoint_zone("http://localhost:8080#m") is None
    assert inference_egress.endpoint_zone("http://[::1]:8080#m") is None
    assert inference_egress.endpoint_zone("http://192.168.1.9:8080/v1#m") == "lan"
    assert inference_egress.endpoint_zone("https://203.0.113.7/v1#m") == "remote"
    assert inference_egress.endpoint_zone("http://no-such-host.invalid/v1#m") == "remote"


def test_embedding_keeps_local_only_chunks_from_an_endpoint_off_the_machine(
    home: App, remote: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GNO_EMBED_MODEL", f"{remote.url}/v1#fake-embed")
    with pytest.raises(EgressDeniedError) as refused:
        embed(home, EmbedInput())  # both collections local_only: nothing at all is sent
    assert SECRET not in refused.value.message and remote.requests == []
    relax(home, "shared", "remote")
    done = embed(home, EmbedInput())
    assert done.embedded >= 1 and done.errors >= 1  # notes' chunks stay unembedded
    assert "crossing" in sent(remote) and SECRET not in sent(remote)
    relax(home, "notes", "remote")
    assert embed(home, EmbedInput()).embedded >= 1
    assert SECRET in sent(remote)


def test_rerank_skips_passages_of_a_local_only_collection(
    home: App, remote: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GNO_RERANK_MODEL", f"{remote.url}/v1#fake-rerank")
    found = query(home, QueryInput(query="zebra", explain=True))
    assert {r.uri for r in found.results} >= {"gno://notes/plan.md"}  # results still come
    assert remote.count("/v1/completions") == 0 and SECRET not in sent(remote)
    assert found.meta.reranked is False
    relax(home, "notes", "remote")
    relax(home, "shared", "remote")
    query(home, QueryInput(query="zebra password"))
    assert remote.count("/v1/completions") >= 1 and SECRET in sent(remote)


def test_an_answer_never_sends_local_only_sources_to_an_endpoint_off_the_machine(
    home: App, remote: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GNO_GEN_MODEL", f"{remote.url}/v1#fake-gen")
    with pytest.raises(EgressDeniedError) as refused:
        ask(home, AskInput(query="zebra password", answer=True))
    assert SECRET not in refused.value.message
    assert refused.value.details and refused.value.details["collections"] == ["notes"]
    with pytest.raises(EgressDeniedError):  # the verified answer (a closed Capsule) too
        ask(home, AskInput(query="zebra password", answer=True, verify=True))
    assert remote.count("/v1/chat/completions") == 0
    relax(home, "notes", "remote")
    answered = ask(home, AskInput(query="zebra password", answer=True))
    assert answered.answer is not None and SECRET in sent(remote)


def test_a_loopback_endpoint_is_this_machine(home: App, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(mode="ok") as local:
        assert zone_of(local.host) == "loopback"
        monkeypatch.setenv("GNO_EMBED_MODEL", f"{local.url}/v1#fake-embed")
        assert embed(home, EmbedInput()).embedded >= 2
        assert SECRET in sent(local)
