"""Turn stored documents into search-result payloads (shared by every search mode)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gno.core.identity import make_uri
from gno.core.record_paths import is_record_path
from gno.ports import Store
from gno.rows import DocRow, iso_from_ns

if TYPE_CHECKING:  # `gno get` builds results too and never loads dataclasses (core.fusion does)
    from gno.core.fusion import Fused


class ResultBuilder:
    """Loads what results need (roots, contexts, tags, mirrors) once per request."""

    def __init__(self, store: Store, index_name: str, include_abs_path: bool = True) -> None:
        self.store = store
        self.index_name = index_name
        self.include_abs_path = include_abs_path
        collections = store.collections()
        self.roots = {c["name"]: c["path"] for c in collections}
        # A collection's languageHint, applied here: chunks hold what detection found.
        self.language_hints = {c["name"]: c["languageHint"] for c in collections}
        self.contexts = store.contexts()
        self._lineages: dict[str, dict[str, Any]] | None = None

    def uri(self, doc: DocRow) -> str:
        return make_uri(doc.collection, doc.rel_path, self.index_name)

    def abs_path(self, doc: DocRow, rel_path: str | None = None) -> str | None:
        root = self.roots.get(doc.collection)
        rel = rel_path or doc.rel_path
        return f"{root.rstrip('/')}/{rel}" if root and self.include_abs_path else None

    def context_for(self, doc: DocRow) -> str | None:
        """Configured guidance: global, then collection, then prefixes broad to specific."""
        texts: list[tuple[int, str]] = []
        for scope_type, key, text in self.contexts:
            if scope_type == "global" and key == "/":
                texts.append((0, text))
            elif scope_type == "collection" and key.rstrip(":") == doc.collection:
                texts.append((1, text))
            elif scope_type == "prefix" and key.startswith(f"gno://{doc.collection}/"):
                prefix = key[len(f"gno://{doc.collection}/") :].strip("/")
                if not prefix or doc.rel_path == prefix or doc.rel_path.startswith(prefix + "/"):
                    texts.append((2 + prefix.count("/") + bool(prefix), text))
        ordered = list(dict.fromkeys(text for _, text in sorted(texts, key=lambda t: t[0])))
        return "\n\n".join(ordered) or None

    def egress_lineage(self, collection: str) -> dict[str, Any]:
        """``egressLineage`` of a hit: its collection's egress policy (spec/egress.md)."""
        if self._lineages is None:
            self._lineages = {}
            self._egress_rows = self.store.egress_policies()
        found = self._lineages.get(collection)
        if found is None:
            from gno.core.egress_lineage import lineage, state_of

            state = state_of(collection, self._egress_rows)
            found = self._lineages[collection] = lineage([state])
        return found

    def records(self, docs: list[DocRow]) -> dict[int, tuple[str, dict[str, Any]]]:
        """Container path and ``record`` object of the record documents among ``docs``."""
        ids = [d.id for d in docs if is_record_path(d.rel_path)]
        return self.store.records_for(ids) if ids else {}

    def source(self, doc: DocRow, container: str | None = None) -> dict[str, Any]:
        """``source``; a record's points into its container (relPath, absPath)."""
        rel_path = container or doc.rel_path
        source: dict[str, Any] = {
            "relPath": rel_path,
            "mime": doc.mime,
            "ext": doc.ext,
            "modifiedAt": iso_from_ns(doc.mtime_ns),
            "sizeBytes": doc.size,
        }
        if doc.source_hash:
            source["sourceHash"] = doc.source_hash
        if (abs_path := self.abs_path(doc, rel_path)) is not None:
            source = {"absPath": abs_path, **source}
        return source

    def search_results(
        self,
        docs: list[tuple[DocRow, float]],
        terms: tuple[str, ...],
        full: bool = False,
        chunk_seq: dict[int, int] | None = None,
    ) -> list[dict[str, Any]]:
        """Result items; the snippet is the best-matching lines for ``terms`` or, for a
        document in ``chunk_seq`` (vector hits), the lines of that chunk."""
        from gno.core.frontmatter_span import frontmatter_span  # hits only: `gno get` has none
        from gno.core.snippets import best_snippet

        tags = self.store.tags_for([d.id for d, _ in docs])
        hashes = list({d.mirror_hash for d, _ in docs if d.mirror_hash})
        mirrors = self.store.contents(hashes) if hashes else {}
        spans = self.store.chunk_spans(hashes) if hashes else {}
        records = self.records([d for d, _ in docs])
        out = []
        for doc, score in docs:
            mirror = mirrors.get(doc.mirror_hash or "")
            if mirror is None:
                continue
            fm_line, fm_offset = frontmatter_span(mirror)
            item: dict[str, Any] = {"docid": doc.docid, "score": score, "uri": self.uri(doc)}
            chunks = spans.get(doc.mirror_hash or "", [])
            if full:
                snippet_text, start, end = mirror, 1, max(1, mirror.count("\n"))
            elif chunk_seq and doc.id in chunk_seq:
                _, start, end, _ = next(c for c in chunks if c[0] == chunk_seq[doc.id])
                snippet_text = "\n".join(mirror.split("\n")[start - 1 : end])
            else:
                snip = best_snippet(mirror, terms, fm_line + 1, fm_offset)
                snippet_text, start, end = snip.text, snip.start_line, snip.end_line
            item["line"] = start
            if doc.title:
                item["title"] = doc.title
            if doc.content_type:
                item["contentType"] = doc.content_type
            if doc.categories:
                item["categories"] = doc.categories
            if tags.get(doc.id):
                item["tags"] = tags[doc.id]
            if language := self.language_hints.get(doc.collection) or _language_at(
                [(c[1], c[3]) for c in chunks], start
            ):
                item["snippetLanguage"] = language
            if context := self.context_for(doc):
                item["context"] = context
            item["egressLineage"] = self.egress_lineage(doc.collection)
            item["snippet"] = snippet_text
            item["snippetRange"] = {"startLine": start, "endLine": end}
            container, record = records.get(doc.id, (None, None))
            if record is not None:
                item["record"] = record
            source = self.source(doc, container)
            if doc.frontmatter_date:
                source["documentDate"] = doc.frontmatter_date
            item["source"] = source
            item["conversion"] = {
                "converterId": doc.converter_id,
                "converterVersion": doc.converter_version,
                "mirrorHash": doc.mirror_hash,
            }
            out.append(item)
        return out


def _language_at(chunks: list[tuple[int, str | None]], line: int) -> str | None:
    """Language of the chunk a line falls in (chunks as (start line, language), in order)."""
    if not chunks:
        return None
    return chunks[max(0, bisect.bisect_right([start for start, _ in chunks], line) - 1)][1]


def ranked_documents(
    store: Any,
    ranked: Sequence[tuple[Fused, float]],
    wanted: int,
    where: str,
    params: Sequence[Any],
) -> list[tuple[Any, Fused, float]]:
    """The first ``wanted`` (document, item, score) of ``ranked`` (items keyed by mirror
    hash, best first): each mirror's active documents that pass ``where``, by URI.
    Documents are read a window of mirrors at a time: a fused list holds a few hundred
    candidates and a page needs ten (reading them all was ~8 ms of a `query`)."""
    out: list[tuple[Any, Fused, float]] = []
    step = max(2 * wanted, 20)
    for start in range(0, len(ranked), step):
        window = ranked[start : start + step]
        by_mirror: dict[str, list[Any]] = {}
        docs = store.documents_with_mirrors([item.key for item, _ in window], where, params)
        for doc in sorted(docs, key=lambda d: d.uri):
            by_mirror.setdefault(doc.mirror_hash or "", []).append(doc)
        for item, score in window:
            for doc in by_mirror.get(item.key, []):
                if len(out) == wanted:
                    return out
                out.append((doc, item, score))
    return out
