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
# GNO's SPA pages (surfaces §4.2) that have operations behind them today; the others
# (`/edit`, `/ask`, `/graph`, …) arrive with their operations, so no page is a dead end.
PAGES = ("/", "/search", "/browse", "/doc", "/collections")


def add_routes(api: FastAPI) -> None:
    """The page routes (after every API route) and the static assets."""
    from starlette.responses import FileResponse, Response
    from starlette.staticfiles import StaticFiles

    shell = STATIC_DIR / "index.html"

    async def page() -> Response:
        return FileResponse(shell, media_type="text/html", headers={"cache-control": "no-cache"})

    for path in PAGES:
        api.add_api_route(path, page, methods=["GET"], include_in_schema=False)
    api.mount(ASSETS_PATH, StaticFiles(directory=STATIC_DIR), name="web-assets")
