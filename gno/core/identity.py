"""Identity strings everything else keys off: docids, gno:// URIs, refs and names.

docid = ``#`` + the first 8 hex chars of the source file's SHA-256.
URI   = ``gno://<collection>/<relPath>`` with every path segment percent-encoded
        like JavaScript's encodeURIComponent; ``?index=<name>`` for non-default indexes.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import quote, unquote

from gno.errors import ValidationError

DEFAULT_INDEX = "default"
COLLECTION_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
# A docid is "#" + 8 lowercase hex; a reference may give its first 6 to 8 (GNO's prefix
# form). Longer can never match, uppercase is not a docid: both are invalid, not "not found".
DOCID_RE = re.compile(r"#[a-f0-9]{8}")
DOCID_REF_RE = re.compile(r"#[a-f0-9]{6,8}")
_LINE_SUFFIX_RE = re.compile(r"^(.*):(\d+)$")
# Characters encodeURIComponent leaves alone besides ASCII alphanumerics and "_.-~".
_URI_SAFE = "!*'()"


def docid_for(source_hash: str) -> str:
    return "#" + source_hash[:8]


def is_docid(text: str) -> bool:
    """Exactly ``#`` + 8 lowercase hex (no surrounding space, no trailing newline)."""
    return DOCID_RE.fullmatch(text) is not None


# A path of only these characters encodes to itself: no per-segment quote() (a first page
# of 1,000 journal entries spent 4 ms quoting plain paths). One character class, linear.
_PLAIN_PATH_RE = re.compile(r"[A-Za-z0-9_.~!*'()/-]*")


def encode_path(rel_path: str) -> str:
    return rel_path if _PLAIN_PATH_RE.fullmatch(rel_path) else _quoted_path(rel_path)


@functools.lru_cache(maxsize=8192)  # pure; every search result builds one URI per hit
def _quoted_path(rel_path: str) -> str:
    return "/".join(quote(segment, safe=_URI_SAFE) for segment in rel_path.split("/"))


def make_uri(collection: str, rel_path: str, index: str | None = None) -> str:
    uri = f"gno://{collection}/{encode_path(rel_path)}"
    if index and index_identity(index) != DEFAULT_INDEX:
        uri += "?index=" + quote(index, safe="")
    return uri


@dataclass(frozen=True)
class ParsedUri:
    """A ``gno://`` URI taken apart: collection, decoded path, optional index."""

    collection: str
    rel_path: str  # decoded; "" for a collection-only URI ("gno://notes/")
    index: str | None = None


def parse_uri(uri: str) -> ParsedUri:
    """Parse ``gno://collection/path[?index=name]`` (no ``:line`` suffix here)."""
    if not uri.startswith("gno://"):
        raise ValidationError(f"Not a gno:// URI: {uri}")
    body, index = uri[len("gno://") :], None
    if "?" in body:
        body, query = body.split("?", 1)
        for pair in query.split("&"):
            key, eq, value = pair.partition("=")
            if key != "index":
                continue
            if not eq or not value:
                raise ValidationError(f"Invalid gno:// URI (empty ?index=): {uri}")
            index = unquote(value)
            index_identity(index)  # a bad name is invalid, never "some other index"
    collection, sep, path = body.partition("/")
    if not collection or not sep:
        raise ValidationError(f"Invalid gno:// URI (expected gno://<collection>/<path>): {uri}")
    if "" in path.split("/")[:-1]:  # "//": an empty segment names no file or folder
        raise ValidationError(f"Invalid gno:// URI (empty path segment): {uri}")
    return ParsedUri(normalize_collection_name(collection), unquote(path), index)


@dataclass(frozen=True)
class Ref:
    """A parsed document reference: exactly one of ``docid`` or (collection, rel_path)."""

    raw: str
    docid: str | None = None
    collection: str | None = None
    rel_path: str | None = None
    line: int | None = None
    index: str | None = None


def path_id_ref(value: str) -> str:
    """A document id from a REST path (``/api/docs/{id}/…``) as a ref: a ``#docid`` with the
    ``#`` left out gets it back; a ``gno://`` URI or a collection/path (its slashes sent as
    ``%2F``) is a ref as it is."""
    text = value.strip()
    if text and not text.startswith(("#", "gno://")) and "/" not in text:
        return f"#{text}"
    return text


def parse_ref(ref: str) -> Ref:
    """``#docid`` | ``gno://coll/path[:N]`` | ``coll/path[:N]``."""
    text = ref.strip()
    if not text:
        raise ValidationError("Reference cannot be empty")
    if text.startswith("#"):
        if not DOCID_REF_RE.fullmatch(text):
            raise ValidationError(
                f"Invalid docid: {text} (expected # followed by 6 to 8 lowercase hex)"
            )
        return Ref(raw=ref, docid=text)
    line = None
    match = _LINE_SUFFIX_RE.match(text)
    if match:
        text, line = match.group(1), int(match.group(2))
        if line < 1:
            raise ValidationError(f"Line number must be >= 1 in reference: {ref}")
    if text.startswith("gno://"):
        parsed = parse_uri(text)
        if not parsed.rel_path:
            raise ValidationError(f"Reference names a collection, not a document: {ref}")
        return Ref(ref, None, parsed.collection, parsed.rel_path, line, parsed.index)
    collection, sep, path = text.partition("/")
    if not sep or not collection or not path:
        raise ValidationError(
            f"Invalid reference: {ref} (use #docid, gno://collection/path or collection/path)"
        )
    return Ref(ref, None, normalize_collection_name(collection), path, line)


CONTEXT_SCOPE_TYPES = ("global", "collection", "prefix")


def validate_context_scope(scope_type: str, scope_key: str) -> None:
    """A context's scope (engine.md §1.5): global ``/``, collection ``<name>:``, prefix
    ``gno://<collection>/<path prefix>``. Anything else is invalid."""
    if scope_type == "global":
        if scope_key != "/":
            raise ValidationError(f"Global context scope must be '/', not {scope_key!r}")
    elif scope_type == "collection":
        name = scope_key[:-1] if scope_key.endswith(":") else None
        if not name or COLLECTION_NAME_RE.fullmatch(name) is None:
            raise ValidationError(
                f"Collection context scope must be '<collection>:' (lowercase name), not {scope_key!r}"
            )
    elif scope_type == "prefix":
        if not scope_key.startswith("gno://") or "?" in scope_key:
            raise ValidationError(
                f"Prefix context scope must be gno://<collection>/<prefix>, not {scope_key!r}"
            )
        parsed = parse_uri(scope_key)
        if scope_key[len("gno://") :].split("/", 1)[0] != parsed.collection:
            raise ValidationError(
                f"Prefix context scope must name a lowercase collection: {scope_key!r}"
            )
    else:
        raise ValidationError(
            f"Context scopeType must be global, collection or prefix, not {scope_type!r}"
        )


def normalize_collection_name(name: str) -> str:
    lowered = name.strip().lower()
    if not COLLECTION_NAME_RE.match(lowered):
        raise ValidationError(
            f"Invalid collection name: {name!r} (use 1-64 of a-z, 0-9, '_' and '-', starting with a letter or digit)"
        )
    return lowered


def _index_char_ok(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LMN" or ch in " ._-"


@functools.lru_cache(maxsize=64)
def index_identity(name: str) -> str:
    """Validate an index name and return its identity (NFC + case fold)."""
    # surrogatepass: a byte that is not UTF-8 in argv arrives as a lone surrogate, refused
    # below as not a letter (a strict encode raised UnicodeEncodeError: "Internal error").
    utf16_units = len(name.encode("utf-16-le", "surrogatepass")) // 2
    problems = []
    if not 1 <= utf16_units <= 64:
        problems.append("must be 1-64 characters")
    elif not all(_index_char_ok(ch) for ch in name):
        problems.append("may only contain letters, marks, numbers, spaces, '.', '_' and '-'")
    elif unicodedata.category(name[0])[0] not in "LN":
        problems.append("must start with a letter or number")
    elif name[-1] in " .":
        problems.append("must not end with a space or '.'")
    elif ".." in name:
        problems.append("must not contain '..'")
    shown = repr(name if len(name) <= 80 else name[:80] + "…")  # a 10 KB name is not echoed
    if problems:
        raise ValidationError(f"Invalid index name {shown}: {problems[0]}")
    identity = unicodedata.normalize("NFC", name.lower().upper().lower())
    if len(identity.encode()) > 242:
        raise ValidationError(f"Invalid index name {shown}: too long once encoded")
    return identity
