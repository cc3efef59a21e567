"""The OpenAPI document says what the routes with a path parameter really take.

Every ``{param}`` of every path is declared (``in: path``, required, with a schema). A route
that takes a path parameter and a JSON body gets its target from the path: the body schema
neither requires nor documents that field, and a real `gno serve` agrees with the document
(a body valid against it is not refused as invalid; an open body that names another target
acts on the path's; a closed body that carries the path's field is refused). The
``/api/doc/{id}/…`` routes answer an id that is no reference 404, as GNO does (400 stays on
``…/section-targets/resolve``); ``GET /api/impact`` lists only the dependents of its
repeated ``collection``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from contract_helpers import MISC, NOTES, gno_env, run_gno, write_tree
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from rest_helpers import Server, running

# One body per route with a path parameter and a JSON body: valid against the published
# body schema, without the field the path fills in. {id} is the document of ``DOC`` (else
# notes/beta.md); the resolve body gets a real target (``_body``).
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("PATCH", "/api/collections/{collection}"): {"models": {}},
    ("PUT", "/api/collections/{collection}/egress-policy"): {"policy": "local_only"},
    ("POST", "/api/collections/{collection}/embeddings/clear"): {"mode": "stale"},
    ("POST", "/api/doc/{id}/section-targets"): {"anchor": "alpha"},
    ("POST", "/api/doc/{id}/section-targets/resolve"): {"target": None},
    ("PUT", "/api/docs/{id}"): {"tags": ["project"]},
    ("POST", "/api/docs/{id}/deactivate"): {},
    ("POST", "/api/docs/{id}/duplicate"): {"name": "beta-copy"},
    ("POST", "/api/docs/{id}/refactor-plan"): {"operation": "rename", "name": "gamma"},
    ("POST", "/api/docs/{id}/rename"): {
        "name": "b2",
        "schemaVersion": "1.0",
        "planDigest": "0" * 64,
        "confirmation": "apply",
    },
    ("POST", "/api/docs/{id}/move"): {
        "folderPath": "sub",
        "schemaVersion": "1.0",
        "planDigest": "0" * 64,
        "confirmation": "apply",
    },
    ("POST", "/api/traces/{traceId}/judgments"): {"label": "relevant", "targetRef": "#0000dead"},
}
DOC = {
    "/api/doc/{id}/section-targets": "notes/alpha.md",
    "/api/doc/{id}/section-targets/resolve": "notes/alpha.md",
    "/api/docs/{id}/deactivate": "misc/readme.md",
}
DEPENDS = "---\nrelations:\n  depends_on: [gno://notes/beta.md]\n---\nUses beta.\n"


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    from gno.rest.apidoc import document as build

    return build()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("path-params")
    env = gno_env(root)
    notes = write_tree(root / "corpus" / "notes", NOTES)
    misc = write_tree(root / "corpus" / "misc", MISC | {"cites.md": DEPENDS})
    steps = [
        ["init"],
        ["collection", "add", str(notes), "--name", "notes"],
        ["collection", "add", str(misc), "--name", "misc"],
        ["update"],
    ]
    for args in steps:
        done = run_gno(env, *args)
        assert done.returncode == 0, done.stderr
    with running(env) as srv:
        yield srv


def _validator(document: dict[str, Any], schema: dict[str, Any]) -> Draft202012Validator:
    """The component ``schema`` with its ``#/components/…`` refs read in ``document``."""
    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource("urn:doc", resource)
    ref = f"urn:doc#/components/schemas/{schema['title']}"
    return Draft202012Validator({"$ref": ref}, registry=registry)


def _body_schema(document: dict[str, Any], op: dict[str, Any]) -> dict[str, Any]:
    ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    return dict(document["components"]["schemas"][ref.rsplit("/", 1)[-1]])


def test_every_path_parameter_is_declared(document: dict[str, Any]) -> None:
    with_body = set()
    for path, item in document["paths"].items():
        names = re.findall(r"{(\w+)}", path)
        for method, op in item.items():
            declared = {p["name"]: p for p in op.get("parameters", []) if p["in"] == "path"}
            assert sorted(declared) == sorted(names), (method, path)
            for param in declared.values():
                assert param["required"] is True and param["schema"], (method, path)
            if names and "requestBody" in op:
                with_body.add((method.upper(), path))
                schema = _body_schema(document, op)
                for name in names:
                    assert name not in schema.get("required", []), (method, path, name)
                    assert name not in schema.get("properties", {}), (method, path, name)
    assert with_body == set(BODIES)


def _docid(server: Server, ref: str = "notes/beta.md") -> str:
    answer = httpx.get(f"{server.url}/api/doc", params={"uri": f"gno://{ref}"})
    return str(answer.json()["docid"]).lstrip("#")


def _url(template: str, server: Server) -> str:
    docid = _docid(server, DOC.get(template, "notes/beta.md"))
    fill = {"collection": "notes", "id": docid, "traceId": "no-such-trace"}
    return server.url + re.sub(r"{(\w+)}", lambda m: fill[m.group(1)], template)


def _target(server: Server) -> dict[str, Any]:
    url = f"{server.url}/api/doc/{_docid(server, 'notes/alpha.md')}/section-targets"
    created = httpx.post(url, json={"anchor": "alpha"}, timeout=30)
    assert created.status_code == 200, created.text
    return dict(created.json()["target"])


def _body(server: Server, method: str, path: str) -> dict[str, Any]:
    body = dict(BODIES[(method, path)])
    if "target" in body:
        body["target"] = _target(server)
    return body


@pytest.mark.parametrize(("method", "path"), sorted(BODIES), ids=str)
def test_server_takes_the_documented_body(
    document: dict[str, Any], server: Server, method: str, path: str
) -> None:
    schema = _body_schema(document, document["paths"][path][method.lower()])
    body = _body(server, method, path)
    valid = _validator(document, schema)
    assert not list(valid.iter_errors(body)), "the test's body is valid per the document"
    answer = httpx.request(method, _url(path, server), json=body, timeout=30)
    # Accepted, or refused for what the request means (no such trace, a stale plan…),
    # never as a body the document calls valid but the server calls invalid.
    assert answer.status_code < 400 or answer.json()["error"]["code"] != "VALIDATION", (
        answer.status_code,
        answer.text,
    )
    (name,) = re.findall(r"{(\w+)}", path)
    with_field = {**body, name: "misc"}
    if schema.get("additionalProperties") is False:  # closed: an unknown key is invalid
        assert list(valid.iter_errors(with_field))
        refused = httpx.request(method, _url(path, server), json=with_field, timeout=30)
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["code"] == "VALIDATION"
        assert name in refused.json()["error"]["message"]


def test_open_body_naming_another_target_acts_on_the_path(server: Server) -> None:
    answer = httpx.post(
        f"{server.url}/api/collections/notes/embeddings/clear",
        json={"collection": "misc", "mode": "all"},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["stats"]["collection"] == "notes"


@pytest.mark.parametrize(
    ("method", "sub", "status", "code"),
    [
        ("GET", "links", 404, "NOT_FOUND"),
        ("GET", "backlinks", 404, "NOT_FOUND"),
        ("GET", "similar", 404, "NOT_FOUND"),
        ("GET", "sections", 404, "NOT_FOUND"),
        ("POST", "section-targets", 404, "NOT_FOUND"),
        ("POST", "section-targets/resolve", 400, "VALIDATION"),  # GNO: 400 or 422, no 404
    ],
)
@pytest.mark.parametrize("bad_id", ["zzz", "%23", "not%20a%20ref"])
def test_doc_id_that_is_no_ref(
    server: Server, method: str, sub: str, status: int, code: str, bad_id: str
) -> None:
    body = {"anchor": "alpha"} if sub == "section-targets" else {"target": _target(server)}
    url = f"{server.url}/api/doc/{bad_id}/{sub}"
    answer = httpx.get(url) if method == "GET" else httpx.post(url, json=body)
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["code"] == code


def test_bare_docid_reads_alike_on_sections_and_links(server: Server) -> None:
    docid = _docid(server)
    for given in (docid, docid[:6], docid[:7]):
        sections = httpx.get(f"{server.url}/api/doc/{given}/sections")
        links = httpx.get(f"{server.url}/api/doc/{given}/links")
        assert sections.status_code == links.status_code, (given, sections.text, links.text)


def _dependents(server: Server, *collections: str) -> httpx.Response:
    params = [("ref", "notes/beta.md"), *(("collection", c) for c in collections)]
    return httpx.get(f"{server.url}/api/impact", params=params, timeout=30)


def test_impact_collection_limits_the_dependents(server: Server) -> None:
    every = _dependents(server)
    assert every.status_code == 200, every.text
    seen = {d["document"]["collection"] for d in every.json()["impacted"]}
    assert seen == {"notes", "misc"}  # alpha.md links beta; misc/cites.md depends on it
    for wanted in (["misc"], ["notes"], ["MISC", "notes"]):
        answer = _dependents(server, *wanted)
        assert answer.status_code == 200, answer.text
        listed = answer.json()["impacted"]
        assert {d["document"]["collection"] for d in listed} == {w.lower() for w in wanted}
        assert answer.json()["meta"]["returnedNodes"] == 1 + len(listed)
        assert answer.json()["meta"]["maxNodes"] == 100  # the caps as before
    missing = _dependents(server, "misc", "nope")
    assert missing.status_code == 404, missing.text
    assert missing.json()["error"]["code"] == "NOT_FOUND"


def test_impact_collection_answers_are_cached_apart(server: Server) -> None:
    first = _dependents(server, "misc").json()["impacted"]
    assert [d["document"]["collection"] for d in _dependents(server).json()["impacted"]] != [
        d["document"]["collection"] for d in first
    ]
    assert _dependents(server, "misc").json()["impacted"] == first
