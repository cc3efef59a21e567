"""Config-level operations: init, collection add/list/remove/rename, cleanup."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from gno_contracts.models.cleanup_input import CleanupInput
from gno_contracts.models.cleanup_result import CleanupResult
from gno_contracts.models.clear_embeddings import ClearEmbeddings, Mode
from gno_contracts.models.clear_embeddings_input import ClearEmbeddingsInput
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.collection_change import CollectionChange, CollectionEntry
from gno_contracts.models.collection_list import CollectionList
from gno_contracts.models.collection_list_input import CollectionListInput
from gno_contracts.models.collection_remove_input import CollectionRemoveInput
from gno_contracts.models.collection_rename_input import CollectionRenameInput
from gno_contracts.models.init_input import InitInput
from gno_contracts.models.init_result import InitResult
from gno_contracts.models.mcp_remove_result import McpRemoveResult
from gno_contracts.models.remove_collection_input import RemoveCollectionInput

from gno.app import App
from gno.config import TOKENIZERS, Collection, Config, load_config, validate_language
from gno.core.globs import DEFAULT_EXCLUDES, DEFAULT_PATTERN, compile_globs, normalize_extension
from gno.core.identity import make_uri, normalize_collection_name
from gno.errors import (
    DuplicateError,
    HasReferencesError,
    InvalidPathError,
    NotFoundError,
    PathNotFoundError,
    UnavailableError,
    ValidationError,
)
from gno.ingest.roots import is_system_root
from gno.paths import expand_home
from gno.services.index_guard import config_change
from gno.services.model_settings import collection_embed_model
from gno.services.sync_paths import check_file_name


def check_root(path: str) -> str:
    """Absolute, existing, not a system or home folder itself."""
    check_file_name(path)
    absolute = os.path.abspath(expand_home(path))
    real = os.path.realpath(absolute)
    if is_system_root(absolute):
        raise InvalidPathError(
            f"Refusing to index {absolute}: choose a specific folder, not a system or home root"
        )
    if not os.path.exists(real):
        raise PathNotFoundError(f"Path does not exist: {absolute}")
    if not os.path.isdir(real):
        raise InvalidPathError(f"Not a directory: {absolute}")
    return absolute


def default_name(path: str) -> str:
    name = re.sub(r"[^a-z0-9_-]+", "-", Path(path).name.lower()).strip("-_") or "notes"
    return name[:64]


def _entry(c: Collection) -> dict[str, Any]:
    """The collection as the wire's closed entry: keys index.yml may hold beside those
    (``readOnly``, a user's own) stay in the file; answering them failed the output model
    (an "Internal error" after a rename had been saved)."""
    return {k: v for k, v in c.to_dict().items() if k in CollectionEntry.model_fields}


def _config_or_empty(app: App) -> Config:
    try:
        return load_config(app.paths.config_file)
    except FileNotFoundError:
        return Config()


def _build_collection(inp: Any, name: str | None, path: str) -> Collection:
    root = check_root(path)
    pattern = inp.pattern or DEFAULT_PATTERN
    compile_globs(pattern)
    return Collection(
        name=normalize_collection_name(name or default_name(root)),
        path=root,
        pattern=pattern,
        include=[normalize_extension(e) for e in inp.include or [] if e.strip()],
        exclude=list(DEFAULT_EXCLUDES)
        if inp.exclude is None
        else [e for e in inp.exclude if e.strip()],
        update_cmd=getattr(inp, "updateCmd", None) or None,
        language_hint=validate_language(
            getattr(inp, "languageHint", None) or getattr(inp, "language", None)
        ),
        extra=collection_embed_model(getattr(inp, "embedModel", None)),
    )


def _add(app: App, config: Config, collection: Collection) -> None:
    if config.find(collection.name):
        raise DuplicateError(f"Collection already exists: {collection.name}")
    config.collections.append(collection)
    app.save_config(config)


def init(app: App, inp: InitInput) -> InitResult:
    with config_change(app):
        return _init(app, inp)


def _init(app: App, inp: InitInput) -> InitResult:
    created = not app.paths.config_file.exists() or not app.paths.db_path.exists()
    config = _config_or_empty(app)
    tokenizer = inp.tokenizer.value if inp.tokenizer else None
    if (
        tokenizer
        and app.paths.config_file.exists()
        and tokenizer != config.raw.get("ftsTokenizer", tokenizer)
    ):
        raise ValidationError(
            "The FTS tokenizer is fixed when the index is created; use a new --index to change it"
        )
    if tokenizer:
        config.raw["ftsTokenizer"] = tokenizer
        config.fts_tokenizer = TOKENIZERS[tokenizer]  # what a new index is created with
    collection = None
    if inp.path:
        collection = _build_collection(inp, inp.name, inp.path)
        existing = config.find(collection.name)
        if existing and os.path.realpath(existing.path) != os.path.realpath(collection.path):
            raise DuplicateError(f"Collection already exists with another path: {collection.name}")
        if not existing:
            config.collections.append(collection)
    if created or inp.path or tokenizer:
        app.save_config(config)
    store = app.store(create=True)
    result: dict[str, Any] = {
        "schemaVersion": "1.0",
        "configPath": str(app.paths.config_file),
        "dataDir": str(app.paths.data_dir),
        "dbPath": str(app.paths.db_path),
        "indexName": app.paths.index_name,
        "created": created,
        "ftsTokenizer": store.get_meta("fts_tokenizer") or "",
    }
    if collection:
        result["collection"] = _entry(config.find(collection.name) or collection)
    return InitResult.model_validate(result)


def collection_list(app: App, inp: CollectionListInput) -> CollectionList:
    return CollectionList.model_validate([_entry(c) for c in app.config.collections])


def collection_add(app: App, inp: CollectionAddInput) -> CollectionChange:
    collection = _build_collection(inp, inp.name, inp.path)
    with config_change(app):
        app.store()  # open first: saving then writes index.yml and its mirror as one step
        _add(app, app.config, collection)
    return CollectionChange.model_validate(
        {
            "schemaVersion": "1.0",
            "action": "added",
            "collection": _entry(collection),
            "note": "Run `gno update` to index it.",
        }
    )


def _references(config: Config, name: str) -> list[str]:
    return [
        c.scope_key
        for c in config.contexts
        if (c.scope_type == "collection" and c.scope_key.rstrip(":") == name)
        or (c.scope_type == "prefix" and c.scope_key.startswith(f"gno://{name}/"))
    ]


def collection_remove(app: App, inp: CollectionRemoveInput) -> CollectionChange:
    with config_change(app):
        config = app.config
        name = inp.collection.lower()
        collection = config.find(name)
        if collection is None:
            raise NotFoundError(f"Collection not found: {inp.collection}")
        if refs := _references(config, name):
            raise HasReferencesError(
                f"Contexts still reference collection {name}: {', '.join(refs)}"
            )
        config.collections.remove(collection)
        app.store()
        app.save_config(config)  # mirrors it: the collection's documents become inactive
    return CollectionChange.model_validate(
        {
            "schemaVersion": "1.0",
            "action": "removed",
            "collection": _entry(collection),
            "note": "Its documents are inactive and leave the index with `gno cleanup`.",
        }
    )


def remove_collection(app: App, inp: RemoveCollectionInput) -> McpRemoveResult:
    """gno_remove_collection: like `collection remove`, answered in the MCP shape."""
    removed = collection_remove(app, CollectionRemoveInput(collection=inp.collection))
    return McpRemoveResult(
        removed=True,
        collection=removed.collection.name,
        configUpdated=True,
        indexedDataRetained=True,
        note=removed.note or "",
    )


def clear_collection_embeddings(app: App, inp: ClearEmbeddingsInput) -> ClearEmbeddings:
    """Delete a collection's vectors: of every model but the one it embeds with (stale: its
    own model when it has one, else the active one) or all. Embedded text stays cached, so
    `gno embed` restores unchanged chunks without the model."""
    collection = app.config.find(inp.collection)
    if collection is None:
        raise NotFoundError(f"Collection not found: {inp.collection}")
    store = app.store()
    if not store.load_vec():
        raise UnavailableError("Clearing vectors needs sqlite-vec: pip install 'gno[models]'")
    mode = str(getattr(inp.mode, "value", inp.mode) or "stale")
    from gno.services.embed_models import collection_embed_uris

    own = collection_embed_uris(app).get(collection.name) or app.embed_model_uri()
    active = store.latest_embed_model(own)
    deleted = protected = 0
    models: list[str] = []
    for model_id, uri in store.embed_model_uris().items():
        if mode == "stale" and model_id == active:
            continue
        removed, kept = store.clear_collection_vectors(model_id, collection.name)
        deleted, protected = deleted + removed, protected + kept
        if removed:
            models.append(uri)
    return ClearEmbeddings(
        collection=collection.name,
        mode=Mode(mode),
        deletedVectors=deleted,
        deletedModels=sorted(set(models)),
        protectedSharedVectors=protected,
    )


def collection_rename(app: App, inp: CollectionRenameInput) -> CollectionChange:
    with config_change(app):
        return _rename(app, inp)


def _rename(app: App, inp: CollectionRenameInput) -> CollectionChange:
    config = app.config
    old = config.find(inp.oldName)
    if old is None:
        raise NotFoundError(f"Collection not found: {inp.oldName}")
    new_name = normalize_collection_name(inp.newName)
    if config.find(new_name):
        raise DuplicateError(f"Collection already exists: {new_name}")
    store = app.store()
    old_name, old.name = old.name, new_name
    for ctx in config.contexts:
        if ctx.scope_type == "collection" and ctx.scope_key.rstrip(":") == old_name:
            ctx.scope_key = f"{new_name}:"
        elif ctx.scope_type == "prefix" and ctx.scope_key.startswith(f"gno://{old_name}/"):
            ctx.scope_key = f"gno://{new_name}/" + ctx.scope_key[len(f"gno://{old_name}/") :]
    # Every row's URI, records' and inactive documents' too (a sync's doc_states skips
    # records: they kept gno://<old name>/… in the index, seen by graph, diff and sections).
    uris = [(doc_id, make_uri(new_name, rel)) for doc_id, rel in store.document_paths(old_name)]
    # One transaction: an index.yml that cannot be saved (a read-only folder, a full disk)
    # rolls the rows back, never an index renamed under a config that still has the old name.
    with store.write():
        store.rename_collection_rows(old_name, new_name, uris)
        app.save_config(config)
    return CollectionChange.model_validate(
        {
            "schemaVersion": "1.0",
            "action": "renamed",
            "collection": _entry(old),
            "previousName": old_name,
        }
    )


def cleanup(app: App, inp: CleanupInput) -> CleanupResult:
    """Deletes inactive documents, those of collections no longer configured included."""
    with config_change(app):
        store = app.store()
        store.inactivate_collections_except([c.name for c in app.config.collections])
        counts = store.cleanup()
    return CleanupResult.model_validate({"schemaVersion": "1.0", **counts})
