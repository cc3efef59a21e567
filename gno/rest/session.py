"""`/api/session`: the Web UI's way through ``GNO_API_TOKEN`` (the model Jupyter and
code-server use).

A browser page cannot add ``X-GNO-Token`` to an ``EventSource``, an ``<img>`` or a link to
`/api/doc-asset`, and keeping the token in page script would hand it to anything that runs
there. So the UI sends the token once, as ``X-GNO-Token`` on ``POST /api/session``, and gets
a session cookie: ``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no cross-site
request carries it), ``Path=/``, no expiry (gone when the browser closes). Its value is
derived from the token (``Gates.session_value``), never the token. The gate
(``security.py``) takes the cookie where it takes the header for the 401 check, but not
for CSRF: a write carrying only the cookie still needs its own (or no) ``Origin``.

- ``POST``: the token gate has already checked the header or cookie; this route also wants
  the header itself (a cookie alone renews nothing) → 204 + ``Set-Cookie``. No body is
  read. Without a token set there is no session: 204, no cookie.
- ``GET``: 204 when the request gets past the token gate (the UI's probe at start).
- ``DELETE``: 204 with a cookie that expires at once; needs no token (it grants nothing).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response

from gno.rest import openapi
from gno.rest.errors import catalog_response
from gno.rest.security import SESSION_PATH, Gates, same_secret

ERROR_SCHEMA = "gno://schemas/api-error@1.0"
ATTRIBUTES = "HttpOnly; SameSite=Strict; Path=/"
ROUTES = (("GET", SESSION_PATH), ("POST", SESSION_PATH), ("DELETE", SESSION_PATH))


def add_routes(api: FastAPI, gates: Gates) -> None:
    async def check(request: Request) -> Response:
        return Response(status_code=204)

    async def open_session(request: Request) -> Response:
        value = gates.session_value()
        if value is None:  # no token set: every request is already let through
            return Response(status_code=204)
        given = request.headers.get("x-gno-token")
        if given is None or not same_secret(given, gates.token or ""):
            return catalog_response("UNAUTHORIZED")
        cookie = f"{gates.session_cookie()}={value}; {ATTRIBUTES}"
        return Response(status_code=204, headers=_no_store({"set-cookie": cookie}))

    async def close_session(request: Request) -> Response:
        cookie = f"{gates.session_cookie()}=; {ATTRIBUTES}; Max-Age=0"
        return Response(status_code=204, headers=_no_store({"set-cookie": cookie}))

    routes = {
        "GET": (check, "session_check", "Whether this request passes the API token gate."),
        "POST": (
            open_session,
            "session_open",
            "Open a Web UI session: the token as X-GNO-Token, a session cookie back.",
        ),
        "DELETE": (close_session, "session_close", "End the Web UI session (clear its cookie)."),
    }
    for method, (endpoint, operation_id, summary) in routes.items():
        api.add_api_route(
            SESSION_PATH,
            endpoint,
            methods=[method],
            status_code=204,
            summary=summary,
            operation_id=operation_id,
            responses=_responses(method),
            openapi_extra={"parameters": _parameters()} if method == "POST" else None,
            response_model=None,
            response_class=Response,
        )


def _no_store(headers: dict[str, str]) -> dict[str, str]:
    return headers | {"cache-control": "no-store"}


def _parameters() -> list[dict[str, Any]]:
    return [
        {
            "name": "X-GNO-Token",
            "in": "header",
            "required": False,
            "schema": {"type": "string"},
            "description": "GNO_API_TOKEN (without it set, the route opens nothing: 204).",
        }
    ]


def _responses(method: str) -> dict[int | str, Any]:
    cookie = {"Set-Cookie": {"schema": {"type": "string"}, "required": False}}
    success = {
        "GET": "The request passed the token gate (or no token is set)",
        "POST": "Token accepted: the session cookie is set (no cookie when no token is set)",
        "DELETE": "The session cookie is cleared",
    }[method]
    answers: dict[int | str, Any] = {
        204: {"description": success, **({"headers": cookie} if method != "GET" else {})}
    }
    if method != "DELETE":
        answers[401] = {
            "description": "A token is set and this request did not give it",
            "content": {"application/json": {"schema": openapi.ref(ERROR_SCHEMA)}},
        }
    return answers
