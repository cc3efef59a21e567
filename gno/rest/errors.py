"""The REST error envelope ``{"error": {"code", "message", "details"?}}``.

Engine errors keep their wire code and HTTP status (``gno/errors.py``); errors
of the HTTP layer itself take their wording from ``CATALOG``. A message never
carries a stack trace, and server paths are masked (for a caller on another
host, every absolute path is).
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.responses import Response

from gno.errors import GnoError, error_body

CATALOG: dict[str, tuple[int, str]] = {
    "NOT_FOUND": (404, "No such route"),
    "METHOD_NOT_ALLOWED": (405, "Method not allowed on this route"),
    "CSRF_VIOLATION": (403, "Forbidden"),
    "FORBIDDEN": (403, "Forbidden"),
    "UNAUTHORIZED": (401, "Missing or invalid X-GNO-Token"),
    "PAYLOAD_TOO_LARGE": (413, "Request body too large"),
    "REQUEST_TIMEOUT": (408, "Request not received in time"),  # written by rest/deadlines.py
    "UNAVAILABLE": (503, "The server is shutting down"),
    "RUNTIME": (500, "Internal error; the server log has the details"),
    "INVALID_JSON": (400, "Request body is not valid JSON"),
    "NOT_AN_OBJECT": (400, "Request body must be a JSON object"),
}
# Wire codes the REST surface spells like GNO's REST API.
REST_CODES = {"JOB_CONFLICT": "CONFLICT"}
_ANY_ABS_PATH = re.compile(r"(?<![\w.:/~])/[^\s'\"`,;)]+")
MAX_MESSAGE = 500


def error_response(status: int, code: str, message: str, details: Any = None) -> Response:
    return Response(
        json.dumps(
            error_body(code, message, details), ensure_ascii=False, separators=(",", ":")
        ).encode(),
        status_code=status,
        media_type="application/json",
    )


def catalog_response(key: str) -> Response:
    status, message = CATALOG[key]
    code = "VALIDATION" if key in ("INVALID_JSON", "NOT_AN_OBJECT") else key
    return error_response(status, code, message)


def mask_paths(text: str, server_paths: list[str], remote: bool) -> str:
    for path in sorted(server_paths, key=len, reverse=True):
        if path and path != "/":
            text = text.replace(path, "<path>")
    if remote:
        text = _ANY_ABS_PATH.sub("<path>", text)
    return text[:MAX_MESSAGE]


def gno_error_response(exc: GnoError, server_paths: list[str], remote: bool) -> Response:
    details = exc.details
    if remote and details:
        details = json.loads(mask_paths(json.dumps(details), server_paths, True))
    return error_response(
        exc.http_status,
        REST_CODES.get(exc.code, exc.code),
        mask_paths(exc.message, server_paths, remote),
        details,
    )
