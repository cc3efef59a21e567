"""Documents as MCP resources: ``gno://<collection>/<path>[?index=<name>]``.

Reading goes through ``get`` (same resolution, same index check), so a
resource and ``gno_get`` can never disagree. URIs are parsed strictly: a path
segment that is ``.``, ``..`` or empty, decoded or not, is refused before any
lookup.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

from gno_contracts.models.get_input import GetInput

from gno.app import App
from gno.core.identity import make_uri, parse_uri
from gno.errors import InvalidPathError, ValidationError

PAGE = 500
MIME = "text/markdown"


@dataclass(frozen=True)
class Resource:
    uri: str
    name: str  # relPath
    title: str | None


def list_resources(app: App, offset: int = 0) -> tuple[list[Resource], int | None]:
    """One page of active documents and the offset of the next page (None at the end)."""
    docs, total = app.store().list_documents(None, None, PAGE, offset)
    page = [
        Resource(make_uri(d.collection, d.rel_path, app.paths.index_name), d.rel_path, d.title)
        for d in docs
    ]
    following = offset + len(page)
    return page, following if following < total else None


def check_uri(uri: str) -> None:
    if not uri.startswith("gno://"):
        raise ValidationError(f"Not a gno:// URI: {uri}")
    body = uri[len("gno://") :].split("?", 1)[0]
    collection, _, path = body.partition("/")
    segments = [unquote(s) for s in path.split("/")]
    if not collection or not path or any(s in ("", ".", "..") or "\\" in s for s in segments):
        raise InvalidPathError(f"Invalid document URI: {uri}")


def read_resource(app: App, uri: str) -> str:
    """The document's mirror with line numbers, under a comment naming where it came from."""
    from gno.services.documents import get

    check_uri(uri)
    parse_uri(uri)  # raises on a malformed index parameter
    doc = get(app, GetInput(ref=uri, lineNumbers=True, includeAbsPath=True))
    source = doc.source
    header = [f"<!-- {doc.uri}", f"     docid: {doc.docid}"]
    if source.absPath:
        header.append(f"     source: {source.absPath}")
    header.append(f"     mime: {source.mime}")
    if doc.language:
        header.append(f"     language: {doc.language}")
    return "\n".join(header) + "\n-->\n\n" + doc.content
