"""Owner filters (collection, tags, dates, author, categories, language, exclude)
as one SQL condition on ``documents``, applied before any result limit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gno.core.dates import resolve_bound
from gno.core.identity import normalize_collection_name
from gno.core.tags import validate_tag
from gno.errors import NotFoundError
from gno.ports import Store

DOC_DATE_SQL = "COALESCE(frontmatter_date, strftime('%Y-%m-%dT%H:%M:%fZ', source_mtime_ns / 1000000000.0, 'unixepoch'))"


@dataclass
class Filters:
    collection: str | None = None
    tags_all: list[str] = field(default_factory=list)
    tags_any: list[str] = field(default_factory=list)
    since: str | None = None
    until: str | None = None
    categories: list[str] = field(default_factory=list)
    author: str | None = None
    lang: str | None = None
    exclude: list[str] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return any(
            (
                self.collection,
                self.tags_all,
                self.tags_any,
                self.since,
                self.until,
                self.categories,
                self.author,
                self.lang,
                self.exclude,
            )
        )

    def sql(self) -> tuple[str, list[Any]]:
        where, params = [], []
        if self.collection:
            where.append("collection = ?")
            params.append(self.collection)
        for tag in self.tags_all:
            where.append("id IN (SELECT document_id FROM doc_tags WHERE tag = ?)")
            params.append(tag)
        if self.tags_any:
            where.append(
                f"id IN (SELECT document_id FROM doc_tags WHERE tag IN ({','.join('?' * len(self.tags_any))}))"
            )
            params += self.tags_any
        if self.since:
            where.append(f"{DOC_DATE_SQL} >= ?")
            params.append(self.since)
        if self.until:
            where.append(f"{DOC_DATE_SQL} <= ?")
            params.append(self.until)
        if self.categories:
            marks = ",".join("?" * len(self.categories))
            where.append(
                f"(content_type IN ({marks}) OR EXISTS (SELECT 1 FROM json_each(categories_json) WHERE value IN ({marks})))"
            )
            params += self.categories * 2
        if self.author:
            where.append("instr(lower(author), ?) > 0")
            params.append(self.author.lower())
        if self.lang:
            where.append(
                "EXISTS (SELECT 1 FROM content_chunks cc WHERE cc.mirror_hash = documents.mirror_hash AND cc.language = ?)"
            )
            params.append(self.lang.lower())
        for term in self.exclude:
            where.append(
                "NOT (instr(lower(coalesce(title, '') || ' ' || rel_path || ' ' || coalesce(author, '') || ' ' "
                "|| coalesce(categories_json, '')), ?) > 0 OR EXISTS (SELECT 1 FROM content c "
                "WHERE c.mirror_hash = documents.mirror_hash AND instr(lower(c.markdown), ?) > 0))"
            )
            params += [term, term]
        return ("AND " + " AND ".join(where)) if where else "", params


def _clean_list(values: list[str] | None) -> list[str]:
    return list(dict.fromkeys(v.strip().lower() for v in values or [] if v.strip()))


def build_filters(store: Store, inp: Any) -> Filters:
    """From any search-family input model (MCP spellings)."""
    collection = None
    if inp.collection:
        collection = normalize_collection_name(inp.collection)
        if collection not in {c["name"] for c in store.collections()}:
            raise NotFoundError(f"Collection not found: {inp.collection}")
    return Filters(
        collection=collection,
        tags_all=list(dict.fromkeys(validate_tag(t) for t in inp.tagsAll or [])),
        tags_any=list(dict.fromkeys(validate_tag(t) for t in inp.tagsAny or [])),
        since=resolve_bound(inp.since, end=False) if inp.since else None,
        until=resolve_bound(inp.until, end=True) if inp.until else None,
        categories=_clean_list(inp.categories),
        author=inp.author.strip() if inp.author and inp.author.strip() else None,
        lang=inp.lang.strip().lower() if inp.lang and inp.lang.strip() else None,
        exclude=_clean_list(inp.exclude),
    )
