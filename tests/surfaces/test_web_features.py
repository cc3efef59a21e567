"""The Web UI offers a page or panel only when the registry declares the REST routes behind it."""

from __future__ import annotations

import pytest
from gno_contracts.operations import OPERATIONS

from gno import web


@pytest.mark.parametrize(
    ("method", "path", "key"),
    [
        ("get", "/api/doc/{id}/links", "GET /api/doc/{}/links"),
        ("GET", "/api/doc/:id/links", "GET /api/doc/{}/links"),
        ("POST", "/api/graph/query", "POST /api/graph/query"),
    ],
)
def test_route_keys_ignore_the_parameter_spelling(method: str, path: str, key: str) -> None:
    assert web._route_key(method, path) == key


def test_features_follow_the_registry_routes() -> None:
    routes = {web._route_key(op.rest.method, op.rest.path) for op in OPERATIONS if op.rest}
    features = web.available_features()
    for name, needs in web.FEATURES.items():
        assert (name in features) == all(r in routes for r in needs), name


def test_the_shell_names_exactly_the_available_features() -> None:
    html = web.shell_html(("graph", "changes")).decode()
    assert '<meta name="gno-features" content="graph changes">' in html
    assert web.shell_html(()).decode().count('name="gno-features" content=""') == 1


def test_optional_pages_are_routed_only_with_their_feature() -> None:
    from fastapi import FastAPI

    api = FastAPI()
    web.add_routes(api)
    paths = {getattr(r, "path", None) for r in api.routes}
    features = web.available_features()
    for page in set(web.FEATURE_PAGES.values()):
        wanted = any(f in features for f, p in web.FEATURE_PAGES.items() if p == page)
        assert (page in paths) == wanted, page
    assert set(web.PAGES) <= paths
