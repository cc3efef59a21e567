"""Configured contexts (``gno context add | list | check | rm``), kept in ``index.yml``.

A context is trusted guidance attached to a scope: global ``/``, a collection
``<name>:`` or a URI prefix ``gno://<collection>/<path>``. It never changes matching or
ranking; search results carry it as ``context``, Capsules as ``guidance.configuredContexts``
(never as evidence). Several texts per scope are allowed; an exact duplicate is not.
"""

from __future__ import annotations

import unicodedata

from gno_contracts.models.context_add_input import ContextAddInput
from gno_contracts.models.context_change import ContextChange
from gno_contracts.models.context_check import ContextCheck
from gno_contracts.models.context_check_input import ContextCheckInput
from gno_contracts.models.context_list import ContextList
from gno_contracts.models.context_list_input import ContextListInput
from gno_contracts.models.context_rm_input import ContextRmInput

from gno.app import App
from gno.config import ContextEntry
from gno.core.identity import validate_context_scope
from gno.errors import DuplicateError, NotFoundError, ValidationError
from gno.services.index_guard import config_change


def normalize_text(text: str) -> str:
    """BOM stripped, CRLF/CR -> LF, NFC, trimmed (GNO's rule for context text)."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text).strip()


def scope_type(scope: str) -> str:
    """The scope's type from its spelling; ValidationError (exit 1) when it is none."""
    kind = "global" if scope == "/" else "prefix" if scope.startswith("gno://") else "collection"
    validate_context_scope(kind, scope)
    return kind


def _text(raw: str) -> str:
    text = normalize_text(raw)
    if not text:
        raise ValidationError("Context text cannot be empty")
    return text


def context_add(app: App, inp: ContextAddInput) -> ContextChange:
    kind = scope_type(inp.scope)
    text = _text(inp.text)
    with config_change(app):
        config = app.config
        if kind == "collection" and config.find(inp.scope[:-1]) is None:
            raise NotFoundError(f"Collection not found: {inp.scope[:-1]}")
        if any(c.scope_key == inp.scope and c.text == text for c in config.contexts):
            raise DuplicateError(f"Context already exists for {inp.scope}")
        config.contexts.append(ContextEntry(kind, inp.scope, text))
        app.store()  # open first: saving then writes index.yml and its mirror as one step
        app.save_config(config)
    return ContextChange.model_validate(
        {"action": "added", "scope": inp.scope, "scopeType": kind, "text": text}
    )


def context_list(app: App, inp: ContextListInput) -> ContextList:
    return ContextList.model_validate(
        [{"scope": c.scope_key, "text": c.text} for c in app.config.contexts]
    )


def context_rm(app: App, inp: ContextRmInput) -> ContextChange:
    """Remove one context: by scope alone only when that scope has exactly one text."""
    kind = scope_type(inp.scope)
    with config_change(app):
        config = app.config
        matches = [
            c
            for c in config.contexts
            if c.scope_key == inp.scope and (inp.text is None or c.text == _text(inp.text))
        ]
        if not matches:
            raise NotFoundError(f"No context for {inp.scope}")
        if len(matches) > 1:
            raise ValidationError(
                f"{len(matches)} contexts for {inp.scope}: name the text to remove"
            )
        config.contexts.remove(matches[0])
        app.store()
        app.save_config(config)
    return ContextChange.model_validate(
        {"action": "removed", "scope": inp.scope, "scopeType": kind, "text": matches[0].text}
    )


def context_check(app: App, inp: ContextCheckInput) -> ContextCheck:
    """Every context's scope is valid and names a configured collection; warnings for
    duplicates and for a configuration without any context."""
    config = app.config
    errors: list[str] = []
    warnings: list[str] = []
    seen: set[tuple[str, str]] = set()
    for c in config.contexts:
        try:
            validate_context_scope(c.scope_type, c.scope_key)
        except ValidationError as exc:
            errors.append(exc.message)
            continue
        name = (
            c.scope_key[:-1]
            if c.scope_type == "collection"
            else c.scope_key[len("gno://") :].split("/", 1)[0]
            if c.scope_type == "prefix"
            else None
        )
        if name is not None and config.find(name) is None:
            errors.append(f"{c.scope_key}: collection {name} is not configured")
        if (c.scope_key, c.text) in seen:
            warnings.append(f"{c.scope_key}: duplicate text")
        seen.add((c.scope_key, c.text))
        if not c.text.strip():
            errors.append(f"{c.scope_key}: empty text")
    if not config.contexts:
        warnings.append("No contexts configured")
    return ContextCheck.model_validate(
        {"valid": not errors, "warnings": warnings, "errors": errors}
    )
