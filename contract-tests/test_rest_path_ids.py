"""A document ref in a REST path (`/api/doc/{id}/…`, `/api/docs/{id}[/…]`) may hold slashes
sent as `%2F`: the routes match the path as sent, `{id}` is one segment (spec/rest.md
"Document ids in paths"). Every such route takes `collection%2Fsub%2Fnote.md`, a full
`gno%3A%2F%2F…` URI and a docid alike; a ref ending in `/links` stays one id; `..`, absolute
paths, NUL and overlong ids name no file and keep their codes. A real `gno serve`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from contract_helpers import NOTES, gno_env, run_gno, write_tree
from rest_helpers import Server, running

SUB = "# Sub links\n\nSee [[Alpha Notes]].\n\n## Part\ntext\n"
# One document per route, so a write (deactivate, duplicate) leaves the others as they were.
ROUTES: list[tuple[str, str, dict[str, Any] | None, int]] = [
    ("GET", "/api/doc/{id}/links", None, 200),
    ("GET", "/api/doc/{id}/backlinks", None, 200),
    ("GET", "/api/doc/{id}/sections", None, 200),
    ("GET", "/api/doc/{id}/similar", None, 503),  # resolved; no vectors in this index
    ("POST", "/api/doc/{id}/section-targets", {"anchor": "part"}, 200),
    ("POST", "/api/doc/{id}/section-targets/resolve", {"target": None}, 200),
    ("PUT", "/api/docs/{id}", {"tags": ["x"], "expectedSourceHash": "0" * 64}, 409),
    ("POST", "/api/docs/{id}/refactor-plan", {"operation": "rename", "name": "gamma.md"}, 200),
    ("POST", "/api/docs/{id}/rename", {"name": "b2.md", "planDigest": "0" * 64}, 409),
    ("POST", "/api/docs/{id}/move", {"folderPath": "zz", "planDigest": "0" * 64}, 409),
    ("POST", "/api/docs/{id}/duplicate", {}, 200),
    ("POST", "/api/docs/{id}/deactivate", {}, 200),
]
FORMS = ["path", "uri", "docid"]
APPLY = {"schemaVersion": "1.0", "confirmation": "apply"}


def _rel(route: str, form: str) -> str:
    slug = route.strip("/").replace("/", "-").replace("{id}", "d")
    return f"sub/{slug}-{form}.md"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("path-ids")
    env = gno_env(root)
    # Each its own content: a docid is a content hash's prefix, copies would share one.
    files = {(rel := _rel(r[1], f)): f"{SUB}{rel}\n" for r in ROUTES for f in FORMS}
    notes = write_tree(root / "corpus" / "notes", NOTES | files | {"sub/links.md": SUB})
    (root / "corpus" / "outside.md").write_text("# Outside\nkeep\n", encoding="utf-8")
    for args in (["init"], ["collection", "add", str(notes), "--name", "notes"], ["update"]):
        done = run_gno(env, *args)
        assert done.returncode == 0, done.stderr
    with running(env) as srv:
        yield srv


def _docid(server: Server, ref: str) -> str:
    answer = httpx.get(f"{server.url}/api/doc", params={"uri": f"gno://{ref}"})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["docid"]).lstrip("#")


def _encoded(server: Server, rel: str, form: str) -> str:
    if form == "path":
        return "notes%2F" + rel.replace("/", "%2F")
    if form == "uri":
        return "gno%3A%2F%2Fnotes%2F" + rel.replace("/", "%2F")
    return _docid(server, f"notes/{rel}")


def _body(server: Server, template: str, body: dict[str, Any] | None, rel: str) -> Any:
    if body is None:
        return None
    if "target" in body:  # a real target of this document
        made = httpx.post(
            f"{server.url}/api/doc/{_docid(server, f'notes/{rel}')}/section-targets",
            json={"anchor": "part"},
        )
        assert made.status_code == 200, made.text
        return {"target": made.json()["target"]}
    return {**body, **APPLY} if "planDigest" in body else body


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("method", "template", "body", "status"), ROUTES, ids=lambda v: str(v))
def test_every_ref_route_takes_an_encoded_ref(
    server: Server, method: str, template: str, body: Any, status: int, form: str
) -> None:
    rel = _rel(template, form)
    url = server.url + template.replace("{id}", _encoded(server, rel, form))
    answer = httpx.request(method, url, json=_body(server, template, body, rel), timeout=30)
    assert answer.status_code == status, (url, answer.text)
    # The document the id names answered, not another one nor "No such route" (a copy
    # is named after it; /similar found it and then its missing vectors).
    if template.endswith("/sections"):
        assert [s["anchor"] for s in answer.json()["sections"]] == ["sub-links", "part"]
    elif template.endswith("/similar"):
        assert "has no embeddings" in answer.json()["error"]["message"], answer.text
    else:
        assert f"notes/{rel.removesuffix('.md')}" in answer.text, answer.text


def test_a_ref_ending_in_links_stays_one_id(server: Server) -> None:
    base = f"{server.url}/api/doc"
    links = httpx.get(f"{base}/notes%2Fsub%2Flinks.md/links")
    assert links.status_code == 200, links.text
    assert links.json()["links"][0]["resolvedUri"] == "gno://notes/alpha.md"
    backlinks = httpx.get(f"{base}/gno%3A%2F%2Fnotes%2Fsub%2Flinks.md/backlinks")
    assert backlinks.json()["meta"]["uri"] == "gno://notes/sub/links.md", backlinks.text
    # `notes/sub/links.md/links` is a document of its own (none), never the links of links.md.
    for sub in ("links", "backlinks", "sections"):
        whole = httpx.get(f"{base}/notes%2Fsub%2Flinks.md%2Flinks/{sub}")
        assert whole.status_code == 404, whole.text
        assert whole.json()["error"]["message"] == "Document not found: notes/sub/links.md/links"
    for path in ("notes/sub/links.md/links", "notes%2Fsub/links.md/links", "/links"):
        plain = httpx.get(f"{base}/{path}")  # a slash sent as `/` splits: no route
        assert plain.status_code == 404 and plain.json()["error"]["message"] == "No such route"


TRAVERSAL = [
    "notes%2F..%2F..%2Foutside.md",
    "notes%2F..%2Foutside.md",
    "gno%3A%2F%2Fnotes%2F..%2Foutside.md",
    "%2Fetc%2Fpasswd",
    "notes%2F%2Fetc%2Fpasswd",
    "notes%2Fa%00b.md",
    "..%2F..",
]


@pytest.mark.parametrize("bad", TRAVERSAL)
def test_traversal_names_no_file(server: Server, bad: str) -> None:
    outside = Path(server_root(server)) / "corpus" / "outside.md"
    for method, template, body, _ in ROUTES:
        url = server.url + template.replace("{id}", bad)
        sent = {"content": "# pwned\n"} if method == "PUT" else body
        if sent and "target" in sent:
            sent = {"target": {"uri": "gno://notes/outside.md", "anchor": "x"}}
        elif sent and "planDigest" in sent:
            sent = {**sent, **APPLY}
        answer = httpx.request(method, url, json=sent, timeout=30)
        code = answer.json()["error"]["code"]
        documented = {(404, "NOT_FOUND"), (400, "VALIDATION")}
        assert (answer.status_code, code) in documented, (url, answer.text)
        assert answer.json()["error"]["message"] != "No such route", url  # refused as a ref
        if template.startswith("/api/doc/") and not template.endswith("/resolve"):
            assert (answer.status_code, code) == (404, "NOT_FOUND"), (url, answer.text)
    assert outside.read_text(encoding="utf-8") == "# Outside\nkeep\n"
    assert not list(outside.parent.glob("outside*.md"))[1:]  # no copy beside it


def test_overlong_id_is_refused(server: Server) -> None:
    long = "notes%2F" + "a" * 4100 + ".md"
    for method, template, body, _ in ROUTES:
        sent = {**body, **APPLY} if body and "planDigest" in body else body
        answer = httpx.request(method, server.url + template.replace("{id}", long), json=sent)
        assert answer.status_code == 400, (template, answer.text)
        assert answer.json()["error"]["code"] == "VALIDATION"
        assert answer.json()["error"]["message"].startswith("Invalid request: id: ")


def server_root(server: Server) -> str:
    answer = httpx.get(f"{server.url}/api/collections")
    return str(Path(answer.json()[0]["path"]).parent.parent)
