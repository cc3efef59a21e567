"""GET/HEAD /api/doc-asset on a real `gno serve`: original bytes with the documented
headers, one byte range (206), 416 for unsatisfiable and multiple ranges, HEAD without a
body, files beside a document, absolute paths for same-host callers only, and every
way out of the collection (``..``, a symlink, an absolute path elsewhere) refused."""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import quote

import pytest
from contract_helpers import assert_valid, run_gno
from rest_helpers import build_corpus, running

httpx = pytest.importorskip("httpx")

PDF_BYTES = b"%PDF-1.4\n" + bytes(range(256)) * 24_000 + b"\n%%EOF\n"  # ~6 MB, binary
REMOTE = {"X-Forwarded-For": "203.0.113.9"}
# A page whose <script src> loads a same-origin script (which the origin's CSP allows) when a
# browser renders it as an XML document: Gecko does so for application/rdf+xml and
# application/mathml+xml, which Chromium downloads instead.
XHTML_PAGE = (
    '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head>'
    '<script src="/api/doc-asset?uri=gno%3A%2F%2Fnotes%2Falpha.md&amp;path=papers%2Frun.mjs"/>'
    "</head><body>page</body></html>"
)
ACTIVE_BESIDE = ("feed.rdf", "formula.mml", "style.xsl", "news.atom", "run.mjs", "notes.txt")


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve processes")


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("rest-doc-asset")
    env = build_corpus(root, vectors=False)
    notes = root / "corpus" / "notes"
    (notes / "papers").mkdir()
    (notes / "papers" / "spec.pdf").write_bytes(PDF_BYTES)
    (notes / "papers" / "figure.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    (notes / "papers" / "page.html").write_text("<script>alert(1)</script>")
    for name in ACTIVE_BESIDE:
        (notes / "papers" / name).write_text(XHTML_PAGE)
    (notes / "naïve café.md").write_text("# Café\n\nUnicode file name.\n")
    (notes / "doomed.md").write_text("# Doomed\n\nDeleted after indexing.\n")
    (notes / "retired.md").write_text("# Retired\n\nInactive after the next sync.\n")
    secret = root / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("host secret\n")
    (notes / "papers" / "escape.txt").symlink_to(secret)  # a symlink out of the collection
    (notes / "papers" / "alias.md").symlink_to(notes / "beta.md")  # one that stays inside
    assert run_gno(env, "update", "--json").returncode == 0
    (notes / "retired.md").unlink()
    assert run_gno(env, "update", "--json").returncode == 0  # retired.md -> inactive
    (notes / "doomed.md").unlink()  # still active in the index, gone from disk
    with running(env) as srv:
        yield srv, notes, secret


def _get(srv: Any, params: dict[str, str], **kw: Any) -> httpx.Response:
    return httpx.get(f"{srv.url}/api/doc-asset", params=params, **kw)


def _error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert_valid("gno://schemas/api-error@1.0", body)
    assert body["error"]["code"] == code
    return body["error"]


def test_whole_document_with_its_headers(setup: Any) -> None:
    srv, notes, _ = setup
    got = _get(srv, {"uri": "gno://notes/papers/spec.pdf"})
    assert got.status_code == 200
    assert hashlib.sha256(got.content).digest() == hashlib.sha256(PDF_BYTES).digest()
    headers = got.headers
    assert headers["content-type"] == "application/pdf"  # the document's source MIME
    assert headers["content-length"] == str(len(PDF_BYTES))
    assert headers["accept-ranges"] == "bytes"
    assert headers["content-disposition"] == "inline; filename*=UTF-8''spec.pdf"
    assert headers["cache-control"] == "no-store"
    assert "content-range" not in headers
    assert headers["x-content-type-options"] == "nosniff"
    md = _get(srv, {"uri": "gno://notes/alpha.md"})
    assert md.headers["content-type"] == "text/markdown"
    assert md.content == (notes / "alpha.md").read_bytes()


def test_unicode_file_name_is_percent_encoded(setup: Any) -> None:
    srv, notes, _ = setup
    got = _get(srv, {"uri": f"gno://notes/{quote('naïve café.md')}"})
    assert got.status_code == 200, got.text
    expected = "inline; filename*=UTF-8''" + quote("naïve café.md", safe="")
    assert got.headers["content-disposition"] == expected
    assert got.content == (notes / "naïve café.md").read_bytes()


@pytest.mark.parametrize(
    ("spec", "start", "end"),
    [
        ("bytes=0-99", 0, 99),
        ("bytes=1000000-", 1000000, len(PDF_BYTES) - 1),
        ("bytes=-500", len(PDF_BYTES) - 500, len(PDF_BYTES) - 1),
        ("bytes=10-99999999999", 10, len(PDF_BYTES) - 1),  # clamped to the end
    ],
)
def test_one_range_is_206(setup: Any, spec: str, start: int, end: int) -> None:
    srv, _, _ = setup
    got = _get(srv, {"uri": "gno://notes/papers/spec.pdf"}, headers={"Range": spec})
    assert got.status_code == 206
    assert got.content == PDF_BYTES[start : end + 1]
    assert got.headers["content-range"] == f"bytes {start}-{end}/{len(PDF_BYTES)}"
    assert got.headers["content-length"] == str(end - start + 1)
    assert got.headers["accept-ranges"] == "bytes"


@pytest.mark.parametrize(
    "spec", [f"bytes={len(PDF_BYTES)}-", "bytes=-0", "bytes=0-1,5-9", "bytes=0-1, -5"]
)
def test_unsatisfiable_or_several_ranges_are_416(setup: Any, spec: str) -> None:
    srv, _, _ = setup
    got = _get(srv, {"uri": "gno://notes/papers/spec.pdf"}, headers={"Range": spec})
    assert got.status_code == 416
    assert got.headers["content-range"] == f"bytes */{len(PDF_BYTES)}"
    assert got.content == b""


def test_a_range_that_is_not_bytes_is_ignored(setup: Any) -> None:
    srv, _, _ = setup
    for spec in ("lines=1-2", "bytes=5-1", "bytes=abc"):
        got = _get(srv, {"uri": "gno://notes/alpha.md"}, headers={"Range": spec})
        assert got.status_code == 200 and "content-range" not in got.headers, spec


def test_head_sends_the_headers_without_a_body(setup: Any) -> None:
    srv, _, _ = setup
    url = f"{srv.url}/api/doc-asset"
    params = {"uri": "gno://notes/papers/spec.pdf"}
    head = httpx.head(url, params=params)
    assert head.status_code == 200 and head.content == b""
    get = httpx.get(url, params=params)
    for name in ("content-type", "content-length", "accept-ranges", "content-disposition"):
        assert head.headers[name] == get.headers[name], name
    ranged = httpx.head(url, params=params, headers={"Range": "bytes=0-9"})
    assert ranged.status_code == 206 and ranged.content == b""
    assert ranged.headers["content-length"] == "10"
    assert ranged.headers["content-range"] == f"bytes 0-9/{len(PDF_BYTES)}"
    assert httpx.head(url, params={"uri": "gno://notes/nope.md"}).status_code == 404


def test_files_beside_a_document(setup: Any) -> None:
    srv, notes, _ = setup
    png = _get(srv, {"uri": "gno://notes/alpha.md", "path": "papers/figure.png"})
    assert png.status_code == 200
    assert png.headers["content-type"] == "image/png"
    assert png.content == (notes / "papers" / "figure.png").read_bytes()
    assert png.headers["content-disposition"] == "inline; filename*=UTF-8''figure.png"
    sibling = _get(srv, {"uri": "gno://notes/papers/spec.pdf", "path": "figure.png"})
    assert sibling.content == png.content
    # an indexed file reached this way keeps its source MIME
    beta = _get(srv, {"uri": "gno://notes/papers/spec.pdf", "path": "../beta.md"})
    assert beta.status_code == 200 and beta.headers["content-type"] == "text/markdown"
    # a symlink that stays inside the collection is followed
    alias = _get(srv, {"uri": "gno://notes/alpha.md", "path": "papers/alias.md"})
    assert alias.status_code == 200 and alias.content == (notes / "beta.md").read_bytes()
    # a page a browser would run is sandboxed
    page = _get(srv, {"uri": "gno://notes/alpha.md", "path": "papers/page.html"})
    assert page.status_code == 200
    assert "sandbox" in page.headers.get_list("content-security-policy")


@pytest.mark.parametrize("name", ACTIVE_BESIDE)
def test_every_type_but_images_media_and_pdf_is_sandboxed(setup: Any, name: str) -> None:
    srv, _, _ = setup
    answer = _get(srv, {"uri": "gno://notes/alpha.md", "path": f"papers/{name}"})
    assert answer.status_code == 200
    assert "sandbox" in answer.headers.get_list("content-security-policy"), answer.headers


def test_images_and_pdf_open_in_the_browser_viewer_unsandboxed(setup: Any) -> None:
    srv, _, _ = setup
    for params in (
        {"uri": "gno://notes/papers/spec.pdf"},  # Chromium's PDF viewer refuses a sandbox
        {"uri": "gno://notes/alpha.md", "path": "papers/figure.png"},
    ):
        answer = _get(srv, params)
        assert answer.status_code == 200
        assert "sandbox" not in answer.headers.get_list("content-security-policy")


def test_escapes_are_forbidden(setup: Any) -> None:
    srv, notes, secret = setup
    escapes = [
        {"uri": "gno://notes/alpha.md", "path": "../misc/readme.md"},  # another collection
        {"uri": "gno://notes/alpha.md", "path": "../../outside/secret.txt"},
        {"uri": "gno://notes/papers/spec.pdf", "path": "../../../../../../etc/passwd"},
        {"uri": "gno://notes/alpha.md", "path": "papers/escape.txt"},  # symlink to outside
        {"path": str(secret)},
        {"path": str(notes / "papers" / "escape.txt")},  # absolute, through the symlink
        {"path": "/etc/passwd"},
    ]
    for params in escapes:
        error = _error(_get(srv, params), 403, "FORBIDDEN")
        assert "secret" not in error["message"] and str(secret) not in error["message"], params


def test_absolute_paths_are_for_same_host_callers(setup: Any) -> None:
    srv, notes, _ = setup
    absolute = {"path": str(notes / "papers" / "spec.pdf")}
    local = _get(srv, absolute, headers={"Range": "bytes=0-3"})
    assert local.status_code == 206 and local.content == b"%PDF"
    assert local.headers["content-type"] == "application/pdf"
    error = _error(_get(srv, absolute, headers=REMOTE), 403, "FORBIDDEN")
    assert str(notes) not in error["message"]
    remote = _get(srv, {"uri": "gno://notes/papers/spec.pdf"}, headers=REMOTE)
    assert remote.status_code == 200 and len(remote.content) == len(PDF_BYTES)


def test_bad_requests_and_missing_documents(setup: Any) -> None:
    srv, _, _ = setup
    _error(_get(srv, {}), 400, "VALIDATION")
    _error(_get(srv, {"path": "papers/spec.pdf"}), 400, "VALIDATION")  # relative needs uri
    _error(_get(srv, {"uri": "notes/alpha.md"}), 400, "VALIDATION")
    # an unknown query key is ignored, as GNO ignores it (cache-busting `?_=1` and the like)
    assert _get(srv, {"uri": "gno://notes/alpha.md", "extra": "1"}).status_code == 200
    _error(_get(srv, {"uri": "gno://notes/nope.md"}), 404, "NOT_FOUND")
    _error(_get(srv, {"uri": "gno://notes/retired.md"}), 404, "NOT_FOUND")  # inactive
    gone = _error(_get(srv, {"uri": "gno://notes/doomed.md"}), 404, "FILE_NOT_FOUND")
    assert "gno://notes/doomed.md" in gone["message"]
    _error(
        _get(srv, {"uri": "gno://notes/alpha.md", "path": "papers/none.png"}), 404, "FILE_NOT_FOUND"
    )
    _error(_get(srv, {"uri": "gno://notes/alpha.md", "path": "papers"}), 404, "FILE_NOT_FOUND")
