"""`GET /api/events`: the document change stream (server-sent events).

A stream, not a JSON answer, so it is the one route not built from the registry.
Each client gets ``retry:`` and a ``: connected`` comment at once, then GNO's
``document-changed`` events (``document-event@1.0``) after every job that changed
documents, and a keep-alive comment when nothing happened for a while. The stream
ends when the server shuts down (``Resident.stop_background``); while it does, a
new connection is 503 UNAVAILABLE.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from gno.rest import openapi
from gno.rest.errors import catalog_response
from gno.rest.security import same_host

PATH = "/api/events"
EVENT_SCHEMA = "gno://schemas/document-event@1.0"
ERROR_SCHEMA = "gno://schemas/api-error@1.0"
SUMMARY = "Server-sent document change events for live UIs."


class EventStream(StreamingResponse):
    media_type = "text/event-stream"  # also what OpenAPI documents for the 200 answer


def add_events_route(api: FastAPI, runtime: Any) -> None:
    async def events(request: Request) -> Response:
        bus = runtime.events
        sub = bus.subscribe(local=same_host(request.scope))
        if sub is None:
            return catalog_response("UNAVAILABLE")

        async def stream() -> AsyncIterator[str]:
            try:
                yield f"retry: {bus.retry_ms}\n: connected\n\n"
                while True:
                    text = await sub.next(bus.keepalive)
                    if text is None:
                        return
                    yield text
            finally:  # client gone, dropped, or shutdown
                bus.unsubscribe(sub)

        return EventStream(
            stream(), headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        )

    api.add_api_route(
        PATH,
        events,
        methods=["GET"],
        summary=SUMMARY,
        operation_id="events",
        response_model=None,
        response_class=EventStream,
        responses=_responses(),
    )


def _responses() -> dict[int | str, Any]:
    return {
        200: {
            "description": (
                "An SSE stream: `retry:`, comments (`: connected`, `: keep-alive`) and "
                "`event: document-changed` / `event: collection-changed` messages whose "
                "`data:` line is a DocumentEvent (gno://schemas/document-event@1.0)."
            ),
            "content": {
                "text/event-stream": {
                    "schema": {"type": "string"},
                    "x-gno-event-schema": openapi.ref(EVENT_SCHEMA),
                }
            },
        },
        503: {
            "description": "The server is shutting down",
            "content": {"application/json": {"schema": openapi.ref(ERROR_SCHEMA)}},
        },
    }
