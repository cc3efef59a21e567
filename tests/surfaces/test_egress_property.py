"""The egress property end to end (issue 18, "Done when"): no sequence of policy changes
lets content of a ``local_only`` collection reach a non-loopback caller.

Hypothesis draws sequences of policy changes (tightening, confirmed relaxations, stale or
missing confirmations) of both collections, interleaved with reads from a non-loopback
address of this machine against a real ``gno serve`` app (uvicorn on that address, API
token set): REST search with and without a collection, document, listing and file bytes,
and the SDK's remote transport (get, multi-get, search). After every read: while ``notes`` is ``local_only``
the secret of ``notes`` is in no answer (status, headers or body); when the policies allow
the caller's zone the secret does arrive (so the property is not vacuous); and every read
left exactly one receipt."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from gno_contracts.models.egress_policy_set_input import EgressPolicySetInput
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gno.app import App
from gno.core.egress import zone_of
from gno.errors import ConflictError, EgressDeniedError, ValidationError
from gno.paths import resolve_paths
from gno.services import egress
from tests.surfaces.egress_peers import non_loopback_address, served_on
from tests.surfaces.test_egress_rest import SECRET, TOKEN, home  # noqa: F401 (fixture)

READS: tuple[tuple[str, str, dict[str, Any] | None], ...] = (
    ("POST", "/api/search", {"query": "zebra"}),
    ("POST", "/api/search", {"query": "hunter2", "collection": "notes"}),
    ("GET", "/api/doc?uri=gno://notes/plan.md", None),
    ("SDK", "multi_get", {"refs": ["gno://notes/plan.md"]}),
    ("GET", "/api/docs?collection=notes", None),
    ("GET", "/api/doc-asset?uri=gno://notes/plan.md", None),
    ("SDK", "get", {"ref": "gno://notes/plan.md"}),
    ("SDK", "search", {"query": "hunter2"}),
)
# Reads that name only notes: they carry the secret whenever notes' policy allows the zone.
NOTES_ONLY = frozenset({1, 2, 3, 5, 6})


@pytest.fixture
def server(home: App) -> Iterator[tuple[str, App]]:  # noqa: F811
    from gno.rest.app import ServeOptions, create_app
    from gno.rest.security import Gates

    options = ServeOptions(gates=Gates(token=TOKEN), mcp=None, watch=False, web_ui=False)
    api = create_app(App(resolve_paths()), options=options)
    with served_on(api, non_loopback_address()) as url:
        yield url, home


def _set(app: App, collection: str, policy: str, confirm: str) -> None:
    current = egress.states(app, [collection])[0]
    fields: dict[str, Any] = {"collection": collection, "policy": policy}
    if confirm == "right":
        fields["confirmRevision"] = current.revision
    elif confirm == "stale":
        fields["confirmRevision"] = current.revision + 1
    with contextlib.suppress(ConflictError, ValidationError):  # refused: nothing changes
        egress.egress_policy_set(app, EgressPolicySetInput.model_validate(fields))


def _read(url: str, read: tuple[str, str, dict[str, Any] | None]) -> str:
    """Everything the caller got back, as text (a denial's too)."""
    method, path, body = read
    if method == "SDK":
        from gno import Gno

        with Gno(url=url, token=TOKEN) as client:
            try:
                answer = getattr(client, path)(**(body or {}))
            except EgressDeniedError as denied:
                return f"{denied} {denied.details}"
            return answer.model_dump_json()
    with httpx.Client(base_url=url, headers={"X-GNO-Token": TOKEN}, timeout=30) as http:
        answer = http.request(method, path, json=body)
        return f"{answer.status_code} {dict(answer.headers)} {answer.text}"


step = st.one_of(
    st.tuples(
        st.just("set"),
        st.sampled_from(["notes", "shared"]),
        st.sampled_from(["local_only", "lan", "remote"]),
        st.sampled_from(["right", "stale", "none"]),
    ),
    st.tuples(st.just("read"), st.integers(0, len(READS) - 1)),
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(step, min_size=1, max_size=12))
def test_no_policy_sequence_lets_local_only_content_reach_a_non_loopback_caller(
    server: tuple[str, App], steps: list[tuple[Any, ...]]
) -> None:
    url, app = server
    store = app.store()
    store.conn.execute("DELETE FROM egress_policies")  # each example starts from no policy
    store.purge_egress_audits()
    zone = zone_of(url.split("//")[1].rsplit(":", 1)[0].strip("[]"))
    allowed_for_zone = {"lan": {"lan", "remote"}, "remote": {"remote"}}[zone]
    for item in steps:
        if item[0] == "set":
            _set(app, item[1], item[2], item[3])
            continue
        policy = egress.states(app, ["notes"])[0].policy
        before = store.egress_audit_counts()[0]
        text = _read(url, READS[item[1]])
        assert store.egress_audit_counts()[0] == before + 1, READS[item[1]]  # exactly once
        if policy == "local_only" or policy not in allowed_for_zone:
            assert SECRET not in text, (policy, READS[item[1]])
        elif item[1] in NOTES_ONLY:
            assert SECRET in text, (policy, READS[item[1]], text[:400])
