"""Routes whose ``{id}`` names a document match the path as the client sent it.

A document ref holds slashes (``notes/x.md``, ``gno://notes/x.md``); in a path the client
sends them as ``%2F``. The server decodes the path before routing, so matching the decoded
path would see ``/api/doc/notes/x.md/links`` and find no route (or, for a ref ending in
``/links``, the wrong split). These routes match the undecoded path (ASGI ``raw_path``)
segment by segment instead: ``{id}`` is exactly one segment as sent, decoded only after
matching, and each literal segment must decode to itself. So
``/api/doc/notes%2Fsub%2Flinks/links`` is the links of ``notes/sub/links`` and a ref is
never split at a slash the client did not send as ``/`` (spec/rest.md, "Document ids in
paths"). The ref itself is checked where it always was: it only names a document of the
index, so ``..``, an absolute path or a NUL reaches no file.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote_to_bytes

from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import Scope

# The path parameters that are document refs: one raw segment each.
REF_PARAMS = frozenset({"id"})
# What the OpenAPI document adds to such a parameter's description.
REF_NOTE = (
    " One path segment: a `/` inside the ref is sent as `%2F` (`notes%2Fx.md`, "
    "`gno%3A%2F%2Fnotes%2Fx.md`). The path is matched as sent, so a ref ending in "
    "`/links` stays one id and an unencoded `/` in it matches no route (404)."
)


def takes_refs(path: str) -> bool:
    return any("{" + name + "}" in path for name in REF_PARAMS)


def _raw_segments(scope: Scope) -> list[bytes]:
    """The route path as sent, split at its real slashes (without the mount's root)."""
    raw = scope.get("raw_path")
    if not isinstance(raw, bytes):  # a host without raw_path: the decoded path, as before
        raw = scope["path"].encode("utf-8")
    root = scope.get("root_path", "").encode("utf-8")
    if root and raw.startswith(root + b"/"):
        raw = raw[len(root) :]
    return raw.split(b"/")


def _decoded(segment: bytes) -> str:
    # As the server decodes a path: UTF-8, an undecodable byte replaced.
    return unquote_to_bytes(segment).decode("utf-8", "replace")


def match_raw(template: str, segments: list[bytes]) -> dict[str, str] | None:
    """The path parameters of ``template`` in the raw ``segments``, or None."""
    parts = template.split("/")
    if len(parts) != len(segments):
        return None
    params: dict[str, str] = {}
    for part, segment in zip(parts, segments, strict=True):
        if part.startswith("{") and part.endswith("}"):
            if not segment:
                return None  # an empty segment is no id (`/api/doc//links`)
            params[part[1:-1]] = _decoded(segment)
        elif _decoded(segment) != part:  # `doc%2Fx` is no `doc`
            return None
    return params


class RefRoute(APIRoute):
    """An API route whose ``{id}`` may hold a ref with encoded slashes."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http":
            return Match.NONE, {}
        found = match_raw(self.path, _raw_segments(scope))
        if found is None:
            return Match.NONE, {}
        path_params: dict[str, Any] = {**scope.get("path_params", {}), **found}
        child: Scope = {"endpoint": self.endpoint, "path_params": path_params, "route": self}
        if self.methods and scope["method"] not in self.methods:
            return Match.PARTIAL, child
        return Match.FULL, child
