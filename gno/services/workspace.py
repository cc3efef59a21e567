"""Workspace reads for editors: title/path suggestions, the note presets, the folder tree."""

from __future__ import annotations

from typing import Any

from gno_contracts.models.autocomplete_input import AutocompleteInput
from gno_contracts.models.browse_tree import BrowseTree
from gno_contracts.models.browse_tree_input import BrowseTreeInput
from gno_contracts.models.doc_autocomplete import DocAutocomplete
from gno_contracts.models.note_presets import NotePresets
from gno_contracts.models.note_presets_input import NotePresetsInput

from gno.app import App
from gno.core.identity import make_uri
from gno.core.note_presets import PRESETS
from gno.errors import NotFoundError

MAX_TREE_FOLDERS = 5000  # folders listed per answer; more sets `truncated`


def autocomplete(app: App, inp: AutocompleteInput) -> DocAutocomplete:
    collection = None
    if inp.collection:
        found = app.config.find(inp.collection)
        if found is None:
            raise NotFoundError(f"Collection not found: {inp.collection}")
        collection = found.name
    docs = app.store().suggest_documents(inp.query.strip(), collection, inp.limit)
    suggestions = []
    for doc in docs:
        item: dict[str, Any] = {
            "docid": doc.docid,
            "uri": make_uri(doc.collection, doc.rel_path, app.paths.index_name),
            "collection": doc.collection,
            "relPath": doc.rel_path,
        }
        if doc.title:
            item["title"] = doc.title
        suggestions.append(item)
    return DocAutocomplete.model_validate({"suggestions": suggestions})


def note_presets(app: App, inp: NotePresetsInput) -> NotePresets:
    return NotePresets.model_validate(
        {
            "presets": [
                {
                    "id": p.id,
                    "name": p.name,
                    "description": p.description,
                    "frontmatter": dict(p.frontmatter),
                    "body": p.body,
                }
                for p in PRESETS
            ]
        }
    )


def _insert(tree: dict[str, Any], parts: list[str]) -> int:
    """Count one document under each folder of its path; returns new folders made."""
    made = 0
    node = tree
    path = ""
    for part in parts:
        path = f"{path}/{part}" if path else part
        children = node.setdefault("_children", {})
        if part not in children:
            children[part] = {"name": part, "path": path, "documentCount": 0}
            made += 1
        node = children[part]
        node["documentCount"] += 1
    return made


def _listed(node: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name in sorted(node.get("_children", {})):
        child = node["_children"][name]
        out.append(
            {
                "name": child["name"],
                "path": child["path"],
                "documentCount": child["documentCount"],
                "children": _listed(child),
            }
        )
    return out


def browse_tree(app: App, inp: BrowseTreeInput) -> BrowseTree:
    names = [c.name for c in app.config.collections]
    if inp.collection:
        found = app.config.find(inp.collection)
        if found is None:
            raise NotFoundError(f"Collection not found: {inp.collection}")
        names = [found.name]
    store = app.store()
    folders, truncated = 0, False
    collections = []
    for name in names:
        root: dict[str, Any] = {}
        docs = store.active_paths(name)
        for doc in docs:
            parts = doc.rel_path.split("/")[:-1]
            if folders >= MAX_TREE_FOLDERS:
                truncated = True
                break
            folders += _insert(root, parts)
        collections.append({"name": name, "documentCount": len(docs), "folders": _listed(root)})
    return BrowseTree.model_validate({"collections": collections, "truncated": truncated})
