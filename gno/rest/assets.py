"""GET and HEAD /api/doc-asset: a document's original bytes, streamed, with one byte range.

Not a registry operation: the answer is the file itself, not JSON. Which file:

- ``uri`` alone: the source file of that active document;
- ``uri`` + relative ``path``: a file beside it (``path`` is relative to the
  document's folder), e.g. an image a Markdown note shows;
- absolute ``path``: a file inside a configured collection root, for callers on
  this host only (a remote caller never names host paths).

Symlinks are resolved first and the real file must lie inside the collection's
real root, else 403 FORBIDDEN. Only what the collection may index is served: a path
with a hidden segment (``.env``, ``.git/config``) or one its exclude rules leave out
(``node_modules/…`` by default) is 403 FORBIDDEN too, unless it is an indexed document.
The file is stat'ed before it is opened and only a regular file is opened (non-blocking):
a FIFO or device under a root is 404 FILE_NOT_FOUND and never blocks a reader. The lookup borrows a reader (so 429/503 apply like
any read); the bytes are then streamed in chunks from a file opened before the
answer starts, with no reader held. Errors use the JSON envelope, except 416,
which is bare with ``Content-Range: bytes */size``.
"""

from __future__ import annotations

import mimetypes
import os
import stat
import sys
import traceback
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from typing import IO, Any
from urllib.parse import quote

import anyio
from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from gno.app import App
from gno.core.identity import index_identity, parse_uri
from gno.core.wire_values import unusable_value
from gno.errors import FileMissingError, ForbiddenError, GnoError, NotFoundError, ValidationError
from gno.paths import expand_home
from gno.rest import openapi
from gno.rest.byteranges import Unsatisfiable, parse_range
from gno.rest.errors import catalog_response, gno_error_response
from gno.rest.security import same_host
from gno.services.input_check import schema_problem

PATH = "/api/doc-asset"
INPUT_SCHEMA = "gno://schemas/api-doc-asset-input@1.0"
ERROR_SCHEMA = "gno://schemas/api-error@1.0"
ROUTES = (("GET", PATH), ("HEAD", PATH))
CHUNK_BYTES = 256 * 1024
# Types a browser shows in a viewer of its own that runs no script of the file (and that a
# sandbox would break: Chromium refuses to open a sandboxed PDF). Every other answer is served
# sandboxed (no script, an opaque origin): which types run as a page differs between browsers
# (Gecko renders application/rdf+xml and application/mathml+xml as XML documents whose XHTML
# <script src> would load a same-origin script, which this origin's CSP allows), so a list of
# the active ones is never complete.
PASSIVE_PREFIXES = ("image/", "audio/", "video/")
PASSIVE_TYPES = frozenset({"application/pdf"})
ACTIVE_IMAGES = frozenset({"image/svg+xml"})


def sandboxed(mime: str) -> bool:
    """Whether an answer of this Content-Type gets ``Content-Security-Policy: sandbox``."""
    base = mime.split(";")[0].strip().lower()
    if base in ACTIVE_IMAGES:
        return True
    return not (base in PASSIVE_TYPES or base.startswith(PASSIVE_PREFIXES))


NOT_SERVED = "The file is not part of the collection (hidden, or left out by its exclude rules)"


@dataclass
class Asset:
    file: IO[bytes]
    size: int
    mime: str
    name: str


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _collection_may_serve(app: App, collection: str, root: str, real: str) -> bool:
    """An active document of the collection, or a file its walk could reach: no hidden
    segment and nothing its exclude rules leave out (the pattern is not applied, so the
    image beside a note is served)."""
    from gno.core.globs import FileRules

    rel = os.path.relpath(real, root).replace(os.sep, "/")
    doc = app.store().document_by_path(collection, rel)
    if doc is not None and doc.active:
        return True
    if any(part.startswith(".") for part in rel.split("/")):
        return False
    coll = app.config.find(collection)
    if coll is None:
        return False
    rules = FileRules.build(coll.pattern, coll.include, coll.exclude, ())
    return not _folder_excluded(rules, rel)


def _folder_excluded(rules: Any, rel: str) -> bool:
    parts = rel.split("/")
    return rules.excluded(rel) or any(
        rules.dir_excluded("/".join(parts[: i + 1]), part) for i, part in enumerate(parts[:-1])
    )


def _real_roots(app: App) -> dict[str, str]:
    return {c.name: os.path.realpath(expand_home(c.path)) for c in app.config.collections}


def _document(app: App, uri: str) -> Any:
    if not uri.startswith("gno://"):
        raise ValidationError(f"uri must be a gno:// URI: {uri}")
    parsed = parse_uri(uri)
    if parsed.index and index_identity(parsed.index) != app.paths.index_identity:
        raise ValidationError(f"{uri} belongs to index {parsed.index!r}, not this server's")
    doc = app.store().document_by_path(parsed.collection, parsed.rel_path)
    if doc is None or not doc.active:
        raise NotFoundError(f"Document not found: {uri}")
    return doc


def locate(
    app: App, uri: str | None, path: str | None, local: bool
) -> tuple[str, str, str, str | None]:
    """(real file, collection, name to show, source MIME when it is the uri's document)
    for the query, or the 4xx that refuses it."""
    if uri is None and path is None:
        raise ValidationError("Give uri (a gno:// URI), path, or both")
    if path is not None and "\x00" in path:
        raise ValidationError("path contains a NUL character")
    absolute = path is not None and os.path.isabs(path)
    if path is not None and not absolute and uri is None:
        raise ValidationError("A relative path needs uri: it is relative to that document")
    roots = _real_roots(app)
    if absolute:
        assert path is not None
        if not local:
            raise ForbiddenError("Absolute paths are accepted only from this host; use uri")
        real = os.path.realpath(path)
        owners = sorted((r for r in roots.items() if _inside(real, r[1])), key=lambda r: -len(r[1]))
        if not owners:
            raise ForbiddenError("The path is outside every collection root")
        owner, owner_root = owners[0]
        if not _collection_may_serve(app, owner, owner_root, real):
            raise ForbiddenError(NOT_SERVED)
        return real, owner, os.path.basename(path), None
    assert uri is not None
    doc = _document(app, uri)
    root = roots.get(doc.collection)
    if root is None:
        raise NotFoundError(f"Collection not configured: {doc.collection}")
    own = os.path.join(root, doc.rel_path)
    target = own if path is None else os.path.join(os.path.dirname(own), path)
    real = os.path.realpath(target)
    if not _inside(real, root):
        raise ForbiddenError("The path leads outside the document's collection")
    if path is not None and not _collection_may_serve(app, doc.collection, root, real):
        raise ForbiddenError(NOT_SERVED)
    mime = str(doc.mime) if path is None else None
    return real, doc.collection, os.path.basename(os.path.normpath(target)), mime


def _mime(app: App, real: str, collection: str) -> str:
    """The indexed source MIME when the file is a document, else a guess from its name."""
    root = _real_roots(app).get(collection)
    if root is not None:
        doc = app.store().document_by_path(collection, os.path.relpath(real, root))
        if doc is not None:
            return str(doc.mime)
    return mimetypes.guess_type(real)[0] or "application/octet-stream"


def open_asset(app: App, uri: str | None, path: str | None, local: bool) -> Asset:
    real, collection, name, mime = locate(app, uri, path, local)
    missing = FileMissingError(f"The source file is gone from disk: {uri or name}")
    try:
        before = os.stat(real)
    except OSError:
        raise missing from None
    if not stat.S_ISREG(before.st_mode):  # a FIFO would block open() until a writer comes
        raise FileMissingError(f"Not a regular file: {uri or name}")
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)  # swapped for a FIFO meanwhile: O_NONBLOCK returns at once
    except PermissionError:
        raise ForbiddenError("The file is not readable by the server") from None
    except OSError:
        raise missing from None
    file = os.fdopen(fd, "rb", buffering=0)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        file.close()
        raise FileMissingError(f"Not a regular file: {uri or name}")
    return Asset(file, info.st_size, mime or _mime(app, real, collection), name)


async def _chunks(file: IO[bytes], start: int, length: int) -> AsyncIterator[bytes]:
    try:
        offset, end = start, start + length
        while offset < end:
            size = min(CHUNK_BYTES, end - offset)
            chunk = await anyio.to_thread.run_sync(os.pread, file.fileno(), size, offset)
            if not chunk:  # the file shrank meanwhile: stop short
                return
            offset += len(chunk)
            yield chunk
    finally:
        file.close()


def _headers(asset: Asset, length: int) -> dict[str, str]:
    headers = {
        "content-type": asset.mime,
        "content-length": str(length),
        "accept-ranges": "bytes",
        "content-disposition": f"inline; filename*=UTF-8''{quote(asset.name, safe='')}",
        "cache-control": "no-store",
    }
    if sandboxed(asset.mime):
        headers["content-security-policy"] = "sandbox"
    return headers


def endpoint(runtime: Any) -> Any:
    server_paths = [
        str(p)
        for p in (
            runtime.owner.paths.config_file.parent,
            runtime.owner.paths.data_dir,
            runtime.owner.paths.cache_dir,
        )
    ]

    def lookup(args: dict[str, Any], local: bool) -> Asset:
        with runtime.readers.reader() as app:
            return open_asset(app, args.get("uri"), args.get("path"), local)

    async def serve(request: Request) -> Response:
        local = same_host(request.scope)
        args: dict[str, Any] = dict(request.query_params)
        try:
            if problem := unusable_value(args):
                raise ValidationError(f"Invalid request: {problem}")
            if problem := schema_problem(INPUT_SCHEMA, args):
                raise ValidationError(problem)
            asset = await anyio.to_thread.run_sync(partial(lookup, args, local))
        except GnoError as exc:
            return gno_error_response(exc, server_paths, remote=not local)
        except Exception:  # a bug: never a trace for the caller
            traceback.print_exc(file=sys.stderr)
            return catalog_response("RUNTIME")
        try:
            wanted = parse_range(request.headers.get("range"), asset.size)
        except Unsatisfiable:
            asset.file.close()
            return Response(
                status_code=416,
                headers={"content-range": f"bytes */{asset.size}", "cache-control": "no-store"},
            )
        start, length, status = 0, asset.size, 200
        headers = _headers(asset, asset.size)
        if wanted is not None:
            start, length, status = wanted.start, wanted.length, 206
            headers |= {
                "content-length": str(length),
                "content-range": wanted.content_range(asset.size),
            }
        if request.method == "HEAD":
            asset.file.close()
            return Response(status_code=status, headers=headers)
        return StreamingResponse(_chunks(asset.file, start, length), status, headers)

    return serve


def add_routes(api: FastAPI, runtime: Any) -> None:
    serve = endpoint(runtime)
    for method, path in ROUTES:
        api.add_api_route(
            path,
            serve,
            methods=[method],
            summary="Stream a document's original bytes (one byte range; HEAD: headers only).",
            operation_id="doc_asset" if method == "GET" else "doc_asset_head",
            responses=_responses(method),
            openapi_extra={"parameters": _parameters()},
            response_model=None,
            response_class=Response,  # no JSON body documented for the file
        )


def _parameters() -> list[dict[str, Any]]:
    params = openapi.query_parameters(INPUT_SCHEMA, PATH, [])
    params.append(
        {
            "name": "Range",
            "in": "header",
            "required": False,
            "schema": {"type": "string"},
            "description": "One range: bytes=a-b, bytes=a- or bytes=-n. Several: 416.",
        }
    )
    return params


def _responses(method: str) -> dict[int | str, Any]:
    body = (
        {}
        if method == "HEAD"
        else {"content": {"*/*": {"schema": {"type": "string", "format": "binary"}}}}
    )
    common = {
        "Content-Length": {"schema": {"type": "integer"}, "required": True},
        "Accept-Ranges": {"schema": {"type": "string", "const": "bytes"}, "required": True},
        "Content-Disposition": {"schema": {"type": "string"}, "required": True},
        "Cache-Control": {"schema": {"type": "string", "const": "no-store"}, "required": True},
    }
    content_range = {"Content-Range": {"schema": {"type": "string"}, "required": True}}
    error = {
        "description": "Error envelope",
        "content": {"application/json": {"schema": openapi.ref(ERROR_SCHEMA)}},
    }
    return {
        200: {"description": "The whole file", "headers": common} | body,
        206: {"description": "One byte range", "headers": common | content_range} | body,
        416: {
            "description": "Range not satisfiable, or several ranges (no body)",
            "headers": content_range,
        },
        **{status: error for status in (400, 401, 403, 404, 429, 503)},
    }
