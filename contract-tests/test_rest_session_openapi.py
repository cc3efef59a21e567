"""`/api/session` fuzzed by schemathesis on a server with GNO_API_TOKEN set: there it
answers 401 UNAUTHORIZED or sets its HttpOnly cookie, which the main run
(test_rest_openapi.py, no token) never reaches. Every answer checked against the OpenAPI
document and the checks of that run; no 5xx."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.generation import GenerationMode  # noqa: E402
from test_rest_openapi import ALL_CHECKS, EXAMPLES  # noqa: E402

SESSION_TOKEN = "fuzz-session-token"


@pytest.fixture(scope="module")
def token_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The document of a server with GNO_API_TOKEN set (no index needed): `/api/session`
    answers 401 or sets its cookie there."""
    from contract_helpers import gno_env, run_gno

    root = tmp_path_factory.mktemp("rest-openapi-token")
    env = gno_env(root)
    assert run_gno(env, "init", "--json").returncode == 0
    saved = dict(os.environ)
    os.environ.update({k: v for k, v in env.items() if k.startswith("GNO_")})
    from gno.app import App
    from gno.paths import resolve_paths
    from gno.rest.app import ServeOptions, create_app
    from gno.rest.security import Gates

    options = ServeOptions(
        gates=Gates(token=SESSION_TOKEN), mcp=None, watch=False, drain_on_shutdown=False
    )
    api = create_app(App(resolve_paths()), options=options)
    try:
        yield schemathesis.openapi.from_asgi("/openapi.json", api)
    finally:
        api.state.runtime.drain()
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.parametrize("mode", ["positive", "negative"])
@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
def test_the_session_routes_honour_their_contract_behind_a_token(
    token_schema: Any, method: str, mode: str
) -> None:
    from hypothesis import given
    from hypothesis.errors import Unsatisfiable

    from gno.rest.security import SESSION_PATH

    operation = token_schema[SESSION_PATH][method]
    seen: set[int] = set()

    @given(case=operation.as_strategy(generation_mode=GenerationMode(mode)))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def run(case: Any) -> None:
        given_token = (case.headers or {}).get("X-GNO-Token", "")
        if mode == "positive" and method == "POST" and len(given_token) % 2:
            case.headers["X-GNO-Token"] = SESSION_TOKEN  # the cookie path too
        response = case.call_and_validate(checks=ALL_CHECKS)
        seen.add(response.status_code)
        assert response.status_code in (204, 401), response.text[:300]
        if response.status_code == 401:
            assert method != "DELETE"  # ending a session grants nothing: no token needed
            assert response.json()["error"]["code"] == "UNAUTHORIZED"
        elif method == "POST":
            assert any("HttpOnly" in c for c in response.headers["set-cookie"])

    try:
        run()
    except Unsatisfiable:
        assert mode == "negative"
        pytest.skip("no schema-invalid request exists for this route")
    if mode == "positive" and method == "POST":
        assert seen == {204, 401}  # both the refusal and the cookie were checked
