"""The REST API against its own OpenAPI document, fuzzed by schemathesis.

Every operation, every check schemathesis has, ≥ 100 positive and ≥ 100
negative examples each: no 5xx but a documented 503 (no model), every status documented, every body valid
against the contract schema, schema-invalid input refused with 4xx, and
schema-valid input accepted or refused with a documented semantic code. In-process (``from_asgi``) on a real indexed
corpus with vectors from a tiny model; with ``--base-url`` the same test runs
against that already running server instead. The examples are the same on every run
(derandomized); ``GNO_OPENAPI_SEED=<n>`` draws others from that seed, to look for what the
pinned ones miss and replay it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402
from rest_helpers import build_corpus  # noqa: E402
from schemathesis import checks as st_checks  # noqa: E402
from schemathesis.generation import GenerationMode  # noqa: E402

EXAMPLES = 100
# schemathesis' positive_data_acceptance wants every schema-valid request accepted, but
# dates, the query grammar, tags and paths are checked beyond JSON Schema. Instead:
# a schema-valid request is accepted, or refused with one of these documented codes.
SEMANTIC_REFUSALS = {
    400: {"VALIDATION", "INVALID_PATH", "PATH_NOT_FOUND", "HAS_REFERENCES"}
    | {"MEMORY_FENCED_REPLAY", "MEMORY_FENCED_DERIVED"}
    # context routes answer GNO's lowercase codes (spec/context.md)
    | {"invalid_input", "invalid_goal", "invalid_budget", "invalid_filter", "invalid_uri"}
    | {"identity_mismatch"},
    403: {"FORBIDDEN"},  # doc-asset: a path outside every collection, or absolute from afar
    404: {"NOT_FOUND", "FILE_NOT_FOUND", "no_evidence"},
    409: {"DUPLICATE", "CONFLICT", "LOCKED", "READ_ONLY", "STALE_PLAN"}
    | {"MEMORY_SUPERSEDE_CONFLICT", "chunk_coordinate_mismatch"}
    | {"index_changed_during_compile", "index_changed_during_verify"},
    422: {"SECTION_UNRESOLVABLE"},  # section targets: no such heading, another document
    429: {"QUEUE_FULL", "RATE_LIMITED"},
    503: {"UNAVAILABLE", "MODEL_UNAVAILABLE"},  # e.g. a --base-url server without a model
}
# schemathesis' not_a_server_error would count those documented 503s as crashes; run()
# checks for 5xx itself.
ALL_CHECKS = [
    st_checks.status_code_conformance,
    st_checks.content_type_conformance,
    st_checks.response_headers_conformance,
    st_checks.response_schema_conformance,
    st_checks.negative_data_rejection,
    st_checks.use_after_free,
    st_checks.ensure_resource_availability,
    st_checks.ignored_auth,
    st_checks.missing_required_header,
    st_checks.unsupported_method,
]


@pytest.fixture(scope="module")
def api_schema(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    base_url = request.config.getoption("--base-url")
    if base_url:
        yield schemathesis.openapi.from_url(f"{base_url.rstrip('/')}/openapi.json")
        return
    root = tmp_path_factory.mktemp("rest-openapi")
    env = build_corpus(root)
    saved = dict(os.environ)
    os.environ.update({k: v for k, v in env.items() if k.startswith("GNO_")})
    # A fuzzed POST /api/models/pull runs for real: every role is a local file, so it
    # completes at once and never reaches the network.
    os.environ.pop("HF_HUB_OFFLINE", None)
    for role in ("RERANK", "EXPAND", "GEN"):
        os.environ[f"GNO_{role}_MODEL"] = f"file:{root / f'no-{role.lower()}.gguf'}"
    os.environ["HOME"] = str(root)  # a fuzzed "~" path is the (refused) home itself
    cwd = Path.cwd()
    os.chdir(root)  # fuzzed relative collection paths stay inside the temp dir
    from gno.app import App
    from gno.paths import resolve_paths
    from gno.rest.app import ServeOptions, create_app

    owner = App(resolve_paths())
    # No file watcher: fuzzed collection adds must not start background syncs.
    api = create_app(owner, options=ServeOptions(mcp=None, watch=False, drain_on_shutdown=False))

    async def from_loopback(scope: Any, receive: Any, send: Any) -> None:
        # Starlette's test client calls itself "testclient": no address, so the egress
        # check (spec/egress.md) would judge it a remote caller. It stands for a local one.
        if scope["type"] == "http":
            scope = {**scope, "client": ("127.0.0.1", 50000)}
        await api(scope, receive, send)

    try:
        yield schemathesis.openapi.from_asgi("/openapi.json", from_loopback)
    finally:
        api.state.runtime.drain()
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(saved)


def _routes() -> list[tuple[str, str]]:
    from gno.rest.assets import ROUTES
    from gno.rest.routes import routes
    from gno.rest.session import ROUTES as SESSION_ROUTES

    return [(r.method, r.path) for r in routes()] + list(ROUTES) + list(SESSION_ROUTES)


@pytest.mark.parametrize("mode", ["positive", "negative"])
@pytest.mark.parametrize(("method", "path"), _routes(), ids=lambda v: str(v))
def test_every_operation_honours_its_contract(
    api_schema: Any, method: str, path: str, mode: str
) -> None:
    from hypothesis import given
    from hypothesis.errors import Unsatisfiable

    operation = api_schema[path][method]
    # GET /api/jobs/active is no job called "active": the document excludes such values
    # from {jobId}, so only negative cases can name them.
    fixed_siblings = {p for m, p in _routes() if m == method and "{" not in p}
    strategy = operation.as_strategy(generation_mode=GenerationMode(mode))

    seed = os.environ.get("GNO_OPENAPI_SEED")

    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=seed is None,
        database=None,
    )
    def run(case: Any) -> None:
        if case.formatted_path in fixed_siblings:
            return  # a schema-invalid id that names a fixed route is that route's request
        response = case.call_and_validate(checks=ALL_CHECKS)
        if response.status_code >= 500 and method == "HEAD":
            assert response.status_code == 503  # no body to read a code from
        elif response.status_code >= 500:
            code = response.json()["error"]["code"]
            assert code in SEMANTIC_REFUSALS.get(response.status_code, set()), (
                f"server error {response.status_code} {code}: {response.text[:300]}"
            )
        if mode == "positive" and response.status_code == 416:
            assert path == "/api/doc-asset"  # a Range past the end, or several: no body
        elif mode == "positive" and response.status_code >= 400 and method == "HEAD":
            assert response.status_code in SEMANTIC_REFUSALS  # HEAD: no body, no code
        elif mode == "positive" and response.status_code >= 400:
            code = response.json()["error"]["code"]
            assert code in SEMANTIC_REFUSALS.get(response.status_code, set()), (
                f"schema-valid request refused with {response.status_code} {code}"
            )

    if seed is not None:
        run = hypothesis_seed(int(seed))(run)
    try:
        run()
    except Unsatisfiable:  # nothing the route takes can be schema-invalid (no parameters)
        assert mode == "negative"
        pytest.skip("no schema-invalid request exists for this route")
