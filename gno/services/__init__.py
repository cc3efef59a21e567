"""Services: one typed handler per registry operation, ``handler(app, Input) -> Output``.

Surfaces look handlers up here by operation id; modules are imported only when
their operation runs, so ``gno search`` loads nothing it does not use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, cast

from pydantic import BaseModel

HANDLERS: dict[str, str] = {
    "search": "gno.services.search:search",
    "get": "gno.services.documents:get",
    "multi_get": "gno.services.documents:multi_get",
    "ls": "gno.services.documents:ls",
    "status": "gno.services.status:status",
    "peek": "gno.services.status:peek",
    "collection_list": "gno.services.collections:collection_list",
    "collection_add": "gno.services.collections:collection_add",
    "collection_remove": "gno.services.collections:collection_remove",
    "collection_rename": "gno.services.collections:collection_rename",
    "update": "gno.services.sync:update",
    "init": "gno.services.collections:init",
    "cleanup": "gno.services.collections:cleanup",
    "embed": "gno.services.embed:embed",
    "vsearch": "gno.services.embed:vsearch",
    "index": "gno.services.embed:index",
    "query": "gno.services.query:query",
    "query_diagnose": "gno.services.diagnose:diagnose",
    "models_list": "gno.services.models:models_list",
    "models_path": "gno.services.models:models_path",
    "models_clear": "gno.services.models:models_clear",
    "add_collection": "gno.services.jobs:add_collection",
    "remove_collection": "gno.services.collections:remove_collection",
    "index_status": "gno.services.status:index_status",
    "clear_collection_embeddings": "gno.services.collections:clear_collection_embeddings",
    "job_status": "gno.services.jobs:job_status",
    "job_list": "gno.services.jobs:job_list",
    "mcp_install": "gno.services.mcp_install:mcp_install",
    "mcp_status": "gno.services.mcp_install:mcp_status",
    "mcp_uninstall": "gno.services.mcp_install:mcp_uninstall",
    "models_pull": "gno.services.models:models_pull",
    "models_status": "gno.services.downloads:models_status",
    "models_use": "gno.services.models:models_use",
    "health": "gno.services.status:health",
    "capabilities": "gno.services.status:capabilities",
    "job_active": "gno.services.jobs:job_active",
    "resident_status": "gno.services.status:resident_status",
}


def handler(op_id: str) -> Callable[..., Any]:
    module, _, name = HANDLERS[op_id].partition(":")
    return cast(Callable[..., Any], getattr(importlib.import_module(module), name))


def model(ref: str) -> type[BaseModel]:
    """``"module:Class"`` from the registry -> the generated pydantic class."""
    module, _, name = ref.partition(":")
    found = getattr(importlib.import_module(f"gno_contracts.models.{module}"), name)
    return cast(type[BaseModel], found)
