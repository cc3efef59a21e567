"""The Web UI: a small single-page app served by `gno serve` from the package itself.

Plain ES modules, CSS and one HTML shell under ``static/``: no build step, no Node toolchain,
no CDN, so the pages work offline and what is committed is what runs. The browser talks only
to gno's own REST API and `/api/events` on the same origin, under the same gates (loopback,
CSRF, token) and a Content-Security-Policy that allows scripts from this origin only.

Every page path answers the same shell (``index.html``); ``app.js`` routes on
``location.pathname``. Assets are served under ``/assets/`` with revalidation (ETag), so a
new gno version is picked up without a stale cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

STATIC_DIR = Path(__file__).with_name("static")
ASSETS_PATH = "/assets"
# GNO's SPA pages (surfaces §4.2). The core pages are always there; every other page, and
# every panel of a page, names the REST routes it needs and is served and shown only when
# the registry has them, so no page or button is a dead end while the operations arrive.
PAGES = ("/", "/search", "/browse", "/doc", "/collections")
FEATURES: dict[str, tuple[str, ...]] = {
    "links": ("GET /api/doc/{}/links", "GET /api/doc/{}/backlinks"),
    "similar": ("GET /api/doc/{}/similar",),
    "graph": ("GET /api/graph", "POST /api/graph/query"),
    "changes": ("GET /api/changes", "GET /api/diff"),
    "edit": ("PUT /api/docs/{}",),
    "capture": ("POST /api/capture",),
    "presets": ("GET /api/note-presets",),
    "refactor": (
        "POST /api/docs/{}/refactor-plan",
        "POST /api/docs/{}/rename",
        "POST /api/docs/{}/move",
    ),
    "ask": ("POST /api/ask",),
    "traces": ("GET /api/traces", "GET /api/traces/{}"),
}
FEATURE_PAGES = {
    "graph": "/graph",
    "changes": "/changes",
    "edit": "/edit",
    "capture": "/edit",
    "ask": "/ask",
    "traces": "/traces",
}
_FEATURES_SLOT = '<meta name="gno-features" content="">'


def _route_key(method: str, path: str) -> str:
    """``GET /api/doc/{}/links`` whatever the parameter is called (``:id``, ``{id}``)."""
    parts = ["{}" if p.startswith((":", "{")) else p for p in path.split("/")]
    return f"{method.upper()} {'/'.join(parts)}"


def available_features() -> tuple[str, ...]:
    """The optional features whose REST routes the registry declares, in a stable order."""
    from gno_contracts.operations import OPERATIONS

    routes = {_route_key(op.rest.method, op.rest.path) for op in OPERATIONS if op.rest is not None}
    return tuple(name for name, needs in FEATURES.items() if all(r in routes for r in needs))


def shell_html(features: tuple[str, ...]) -> bytes:
    """``index.html`` telling ``app.js`` which optional pages and panels exist."""
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    if _FEATURES_SLOT not in html:
        raise RuntimeError("index.html lost its gno-features slot")
    slot = f'<meta name="gno-features" content="{" ".join(features)}">'
    return html.replace(_FEATURES_SLOT, slot).encode("utf-8")


def add_routes(api: FastAPI) -> None:
    """The page routes (after every API route) and the static assets."""
    from starlette.responses import Response
    from starlette.staticfiles import StaticFiles

    from gno.rest.byteranges import IgnoreInvalidRange

    features = available_features()
    shell = shell_html(features)

    async def page() -> Response:
        return Response(shell, media_type="text/html", headers={"cache-control": "no-cache"})

    pages = PAGES + tuple(dict.fromkeys(FEATURE_PAGES[f] for f in features if f in FEATURE_PAGES))
    for path in pages:
        api.add_api_route(path, page, methods=["GET"], include_in_schema=False)
    assets = IgnoreInvalidRange(StaticFiles(directory=STATIC_DIR))
    api.mount(ASSETS_PATH, assets, name="web-assets")
