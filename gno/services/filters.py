"""Owner filters (collection, tags, dates, author, categories, language, exclude, typed
metadata ``filter``) as one SQL condition on ``documents``, applied before any result
limit."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gno.core.caseless import fold
from gno.core.identity import normalize_collection_name
from gno.core.tags import validate_tag
from gno.errors import NotFoundError, ValidationError
from gno.ports import Store

# A filter's parsers (dates, typed metadata, content-type rules) load when an input uses
# one: a plain `gno search` runs without them.
if TYPE_CHECKING:
    from gno.core.metadata_filter import Node

DOC_DATE_SQL = "COALESCE(frontmatter_date, strftime('%Y-%m-%dT%H:%M:%fZ', source_mtime_ns / 1000000000.0, 'unixepoch'))"
# A document of a temporal content type (index.yml ``temporal: true``) is dated by its own
# date (frontmatter, or its file name) only: editing an old meeting note today does not
# make it a meeting of today, and an undated one matches no date bound.
TEMPORAL_DATE_SQL = (
    "CASE WHEN content_type IN (SELECT value FROM json_each(?)) THEN frontmatter_date "
    f"ELSE {DOC_DATE_SQL} END"
)


@dataclass
class Filters:
    """The owner filters of one search-family call, normalised (names, tags, date bounds)."""

    collection: str | None = None
    collections: list[str] = field(default_factory=list)  # several (REST `collections`)
    tags_all: list[str] = field(default_factory=list)
    tags_any: list[str] = field(default_factory=list)
    since: str | None = None
    until: str | None = None
    categories: list[str] = field(default_factory=list)
    author: str | None = None
    lang: str | None = None
    exclude: list[str] = field(default_factory=list)
    metadata: Node | None = None  # the typed metadata ``filter`` (core/metadata_filter)
    temporal_types: frozenset[str] = frozenset()  # content types dated by their own date

    @property
    def active(self) -> bool:
        return any(
            (
                self.collection,
                self.collections,
                self.tags_all,
                self.tags_any,
                self.since,
                self.until,
                self.categories,
                self.author,
                self.lang,
                self.exclude,
                self.metadata,
            )
        )

    def sql(self) -> tuple[str, list[Any]]:
        where: list[str] = []
        params: list[Any] = []
        if self.collection:
            where.append("collection = ?")
            params.append(self.collection)
        if self.collections:
            where.append(f"collection IN ({','.join('?' * len(self.collections))})")
            params += self.collections
        # List filters are one expression each whatever their length (json_each, not a
        # chain of ANDs): SQLite caps expression depth at 1,000 and host parameters too.
        if self.tags_all:
            where.append(
                "id IN (SELECT document_id FROM doc_tags WHERE tag IN (SELECT value FROM json_each(?)) "
                "GROUP BY document_id HAVING count(DISTINCT tag) = ?)"
            )
            params += [json.dumps(self.tags_all), len(self.tags_all)]
        if self.tags_any:
            where.append(
                f"id IN (SELECT document_id FROM doc_tags WHERE tag IN ({','.join('?' * len(self.tags_any))}))"
            )
            params += self.tags_any
        for bound, sign in ((self.since, ">="), (self.until, "<=")):
            if not bound:
                continue
            if self.temporal_types:
                where.append(f"{TEMPORAL_DATE_SQL} {sign} ?")
                params += [json.dumps(sorted(self.temporal_types)), bound]
            else:
                where.append(f"{DOC_DATE_SQL} {sign} ?")
                params.append(bound)
        if self.categories:
            marks = ",".join("?" * len(self.categories))
            where.append(
                f"(content_type IN ({marks}) OR EXISTS (SELECT 1 FROM json_each(categories_json) WHERE value IN ({marks})))"
            )
            params += self.categories * 2
        if self.author:
            where.append("instr(gno_fold(author), ?) > 0")  # Unicode case: core/caseless
            params.append(fold(self.author))
        if self.lang:
            # The collection's languageHint decides when it has one, else a chunk's detection.
            where.append(
                "coalesce((SELECT lower(c.language_hint) FROM collections c "
                "WHERE c.name = documents.collection) = ?, EXISTS (SELECT 1 FROM content_chunks cc "
                "WHERE cc.mirror_hash = documents.mirror_hash AND cc.language = ?))"
            )
            params += [self.lang.lower()] * 2
        if self.exclude:
            # Each text is folded once for all the terms (core/caseless), not once per term.
            where.append(
                "NOT gno_mentions(coalesce(title, '') || ' ' || rel_path || ' ' || coalesce(author, '') "
                "|| ' ' || coalesce(categories_json, ''), ?) AND NOT EXISTS (SELECT 1 FROM content c "
                "WHERE c.mirror_hash = documents.mirror_hash AND gno_mentions(c.markdown, ?))"
            )
            params += [json.dumps(self.exclude)] * 2
        if self.metadata is not None:
            from gno.core.metadata_filter import filter_sql

            condition, values = filter_sql(self.metadata)
            where.append(condition)
            params += values
        return ("AND " + " AND ".join(where)) if where else "", params


def _clean_list(values: list[str] | None) -> list[str]:
    return list(dict.fromkeys(v.strip().lower() for v in values or [] if v.strip()))


def _collections(store: Store, inp: Any) -> list[str]:
    """``collections`` (several, sorted): not with ``collection``; unknown names are one
    NOT_FOUND naming each."""
    names = getattr(inp, "collections", None)
    if names is None:
        return []
    if inp.collection:
        raise ValidationError("Use collection or collections, not both")
    wanted = {normalize_collection_name(name): name for name in names}
    known = {c["name"] for c in store.collections()}
    if missing := [raw for name, raw in wanted.items() if name not in known]:
        raise NotFoundError(
            f"Collections not found: {', '.join(missing)}", details={"collections": missing}
        )
    return sorted(wanted)


def build_filters(store: Store, inp: Any) -> Filters:
    """From any search-family input model (MCP spellings)."""
    if inp.since or inp.until:
        from gno.core.dates import resolve_bound
    collection = None
    if inp.collection:
        collection = normalize_collection_name(inp.collection)
        if collection not in {c["name"] for c in store.collections()}:
            raise NotFoundError(f"Collection not found: {inp.collection}")
    return Filters(
        collection=collection,
        collections=_collections(store, inp),
        tags_all=list(dict.fromkeys(validate_tag(t) for t in inp.tagsAll or [])),
        tags_any=list(dict.fromkeys(validate_tag(t) for t in inp.tagsAny or [])),
        since=resolve_bound(inp.since, end=False) if inp.since else None,
        until=resolve_bound(inp.until, end=True) if inp.until else None,
        categories=_clean_list(inp.categories),
        # Only invisible characters (core/invisible) is no author, as only spaces is.
        author=inp.author.strip() if (fold(inp.author) or "").strip() else None,
        lang=inp.lang.strip().lower() if inp.lang and inp.lang.strip() else None,
        exclude=list(dict.fromkeys(f for v in inp.exclude or [] if (f := (fold(v) or "").strip()))),
        metadata=metadata_filter(getattr(inp, "filter", None)),
        temporal_types=temporal_types(store) if inp.since or inp.until else frozenset(),
    )


def temporal_types(store: Store) -> frozenset[str]:
    """The temporal content types, as the last sync recorded the rules."""
    from gno.core.rules_meta import RULES_META, parse_rules_meta

    return parse_rules_meta(store.get_meta(RULES_META))[1]


def metadata_filter(raw: Any) -> Node | None:
    """The input's ``filter``: an object (MCP, REST bodies, SDK) or JSON text (a query
    string); None when absent."""
    if raw is None:
        return None
    from gno.core.metadata_filter import parse_filter, parse_filter_text

    if isinstance(raw, str):
        return parse_filter_text(raw)
    if hasattr(raw, "model_dump"):
        raw = raw.model_dump(mode="json")
    return parse_filter(raw)
