"""The OpenAPI document's schemas are the contract schemas themselves.

Each JSON Schema of ``gno_contracts/schemas`` becomes a component named by
its title; its ``$defs`` become components ``<Title>_<Def>`` (titles repeat
across schemas, e.g. CollectionEntry) with every local ``$ref`` rewritten, so
OpenAPI 3.1 tools (Swagger UI, schemathesis) see exactly what the CLI and MCP
validate against.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from gno.services.wire import contract_schema as contract_schema  # routes read it here

REF_PREFIX = "#/components/schemas/"


def _rewrite(node: Any, title: str) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                out[key] = f"{REF_PREFIX}{title}_{value.removeprefix('#/$defs/')}"
            else:
                out[key] = _rewrite(value, title)
        return out
    if isinstance(node, list):
        return [_rewrite(v, title) for v in node]
    return node


def components(schema_ids: set[str]) -> dict[str, Any]:
    """``components.schemas`` for these contract schemas (and their ``$defs``)."""
    found: dict[str, Any] = {}
    for schema_id in sorted(schema_ids):
        schema = copy.deepcopy(contract_schema(schema_id))
        title = schema["title"]
        for name, sub in schema.pop("$defs", {}).items():
            found[f"{title}_{name}"] = _rewrite(sub, title)
        for key in ("$schema", "$id"):
            schema.pop(key, None)
        found[title] = _rewrite(schema, title)
    return found


def ref(schema_id: str) -> dict[str, str]:
    return {"$ref": f"{REF_PREFIX}{contract_schema(schema_id)['title']}"}


def body_name(schema_id: str) -> str:
    return f"{contract_schema(schema_id)['title']}Body"


def body_ref(schema_id: str, path_params: tuple[str, ...]) -> dict[str, str]:
    """The request body of a route: its input schema, or, when the path fills some of its
    fields, the body component without them (``body_components``)."""
    if not path_params:
        return ref(schema_id)
    return {"$ref": f"{REF_PREFIX}{body_name(schema_id)}"}


def body_components(bodies: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """``<Title>Body`` for each input schema whose route fills ``fields`` from its path.

    The path names the target (GNO's bodies never carry it, surfaces.md §4.2), so those
    fields are neither required nor documented in the body: an open schema ignores them
    there as it ignores any undocumented key, a closed one refuses them (routes.endpoint)."""
    found: dict[str, Any] = {}
    for schema_id, fields in sorted(bodies.items()):
        schema = components({schema_id})[contract_schema(schema_id)["title"]]
        props = schema.get("properties", {})
        schema["properties"] = {k: v for k, v in props.items() if k not in fields}
        if "required" in schema:
            schema["required"] = [k for k in schema["required"] if k not in fields]
            if not schema["required"]:
                del schema["required"]
        schema["title"] = body_name(schema_id)
        found[body_name(schema_id)] = schema
    return found


def query_parameters(schema_id: str, path: str, siblings: list[str]) -> list[dict[str, Any]]:
    """Each top-level property of an input schema as a path or query parameter.

    A path parameter never takes a value that names a fixed sibling route: the fixed
    route answers it (GET /api/jobs/active is no job called "active"), so the document
    says so rather than promise a job for it."""
    return _parameters(schema_id, path, siblings, body=False)


def path_parameters(schema_id: str, path: str, siblings: list[str]) -> list[dict[str, Any]]:
    """The path parameters of a route that also takes a JSON body (the body holds the rest)."""
    return _parameters(schema_id, path, siblings, body=True)


def _parameters(schema_id: str, path: str, siblings: list[str], body: bool) -> list[dict[str, Any]]:
    schema = contract_schema(schema_id)
    required = set(schema.get("required", []))
    path_params = re.findall(r"{(\w+)}", path)
    params = []
    for name, prop in schema.get("properties", {}).items():
        place = "path" if name in path_params else "query"
        if body and place == "query":
            continue  # a body field
        prop = {k: v for k, v in prop.items() if k != "description"}
        if taken := _fixed_values(path, name, siblings) if place == "path" else []:
            prop["not"] = {"enum": taken}
        param: dict[str, Any] = {
            "name": name,
            "in": place,
            "required": place == "path" or name in required,
            "schema": prop,
        }
        if description := schema["properties"][name].get("description"):
            param["description"] = description
        params.append(param)
    return params


def _fixed_values(path: str, name: str, siblings: list[str]) -> list[str]:
    """The literal segments that sibling routes put where ``{name}`` stands in ``path``."""
    head, _, tail = path.partition("{" + name + "}")
    return sorted(
        p[len(head) : len(p) - len(tail)]
        for p in siblings
        if p != path
        and p.startswith(head)
        and p.endswith(tail)
        and "{" not in p
        and "/" not in p[len(head) : len(p) - len(tail)]
    )
