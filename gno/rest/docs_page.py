"""`/docs`: Swagger UI for `/openapi.json`, served whole by gno (works offline).

Swagger UI's files come from the ``swagger-ui-bundle-v2`` package (pinned in
constraints.txt) and are served under ``/docs/assets/``; the page starts it from
``/docs/init.js``. Nothing on the page names another host, and it has no inline script,
so the page runs under the listener's CSP (``script-src 'self'``); ``validatorUrl: null``
keeps Swagger UI from asking validator.swagger.io about the spec.
"""

from __future__ import annotations

import html
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.staticfiles import StaticFiles

from gno.rest.byteranges import IgnoreInvalidRange

DOCS_PATH = "/docs"
ASSETS_PATH = "/docs/assets"
INIT_PATH = "/docs/init.js"

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title} — API</title>
<link rel="stylesheet" href="{assets}/swagger-ui.css">
<link rel="icon" type="image/png" href="{assets}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{assets}/swagger-ui-bundle.js"></script>
<script src="{init}"></script>
</body>
</html>
"""

INIT = """window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
});
"""


def swagger_ui_dir() -> str:
    from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

    return str(swagger_ui_path)


def add_docs(api: Any, title: str) -> None:
    """`/docs`, its initializer and Swagger UI's files on ``api`` (a FastAPI app)."""
    page = PAGE.format(title=html.escape(title), assets=ASSETS_PATH, init=INIT_PATH)

    async def docs(_: Request) -> Response:
        return HTMLResponse(page)

    async def init(_: Request) -> Response:
        return Response(INIT, media_type="text/javascript")

    api.add_route(DOCS_PATH, docs, methods=["GET"], include_in_schema=False)
    api.add_route(INIT_PATH, init, methods=["GET"], include_in_schema=False)
    files = IgnoreInvalidRange(StaticFiles(directory=swagger_ui_dir()))
    api.mount(ASSETS_PATH, files, name="swagger-ui")
