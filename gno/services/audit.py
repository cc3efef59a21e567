"""``gno audit`` / ``gno_audit``: a read-only integrity report of the workspace.

Checks, over the documents in scope (collections, path prefixes, tags):

- links: links whose target no document matches (``broken_link``), links that match several
  documents equally (``ambiguous_link``), documents nothing links to and that link nowhere
  (``orphan``; roots, ignored prefixes and records of export containers excepted) — resolved
  exactly as the graph tools do;
- provenance: captured notes (GNO's ``inbox/`` captures, or frontmatter that says it was
  captured) without a usable ``source`` (``missing_provenance``);
- freshness: source files gone or unreadable (``source_unavailable``: unavailable is not
  healthy) and files not modified for ``maxAgeDays`` (``stale``); a record's source file is
  its export container.

Only queries and ``stat``/mirror reads: nothing is written. Finding ids are stable across runs
(a hash of what was found, not of when), totals are exact and the list is cut at
``maxFindings``. An interrupted run answers what it found with ``status: partial``.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gno_contracts.models.audit_input import AuditInput
from gno_contracts.models.audit_report import AuditReport

from gno.app import App
from gno.core.frontmatter import parse_frontmatter
from gno.core.identity import parse_ref
from gno.core.record_paths import is_record_path
from gno.core.typed_graph import Projection
from gno.errors import Cancelled, GnoError, InterruptedByUser
from gno.ports import Store
from gno.rows import DocRow
from gno.services.graph_refs import check_collection

DEFAULT_MAX_AGE_DAYS = 365
CAPTURE_PREFIX = "inbox/"  # GNO's default capture folder (inbox/YYYY-MM-DD/capture-….md)
CAPTURE_KEYS = ("capturedAt", "captured_at", "captured")
SOURCE_FIELDS = ("url", "uri", "title", "externalId", "docid", "author")
ORDER = {"links": 0, "provenance": 1, "freshness": 2}
SEVERITY = {
    "broken_link": "error",
    "source_unavailable": "error",
    "ambiguous_link": "warning",
    "missing_provenance": "warning",
    "orphan": "info",
    "stale": "info",
}
DAY_NS = 86_400 * 10**9


def _finding(kind: str, category: str, doc: DocRow, message: str, **extra: Any) -> dict[str, Any]:
    key = "\x1f".join([kind, doc.uri, str(extra.get("line", "")), str(extra.get("target", ""))])
    return {
        "id": "gno-audit-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16],
        "category": category,
        "kind": kind,
        "severity": SEVERITY[kind],
        "docid": doc.docid,
        "uri": doc.uri,
        "message": message[:1024],
        **extra,
    }


def _in_scope(app: App, store: Store, inp: AuditInput) -> list[DocRow]:
    names = [check_collection(app, n) for n in inp.collections or []]
    wanted = [n for n in names if n] or [c.name for c in app.config.collections]
    prefixes = [p.strip("/") for p in inp.paths or []]
    docs = [
        d
        for name in sorted(set(wanted))
        for d in store.active_paths(name)
        if not prefixes or any(d.rel_path == p or d.rel_path.startswith(p + "/") for p in prefixes)
    ]
    if inp.tags:
        tagged = store.tags_for([d.id for d in docs])
        wanted_tags = {t.lower() for t in inp.tags}
        docs = [d for d in docs if wanted_tags & {t.lower() for t in tagged.get(d.id, [])}]
    return sorted(docs, key=lambda d: d.uri)


def _link_findings(
    app: App, store: Store, docs: list[DocRow], inp: AuditInput
) -> Iterator[dict[str, Any]]:
    proj: Projection = store.projection()
    ids = [d.id for d in docs]
    by_id = {d.id: d for d in docs}
    for row in sorted(store.link_rows(ids), key=lambda r: (r.start_line, r.start_col)):
        doc = by_id.get(row.source_doc_id)
        if doc is None or row.link_type not in ("wiki", "markdown"):
            continue
        found = (
            proj.resolver.markdown(row.resolve_collection, row.target_ref_norm)
            if row.link_type == "markdown"
            else proj.resolver.wiki(row.resolve_collection, row.target_ref_norm)
        )
        where = {"line": row.start_line, "target": row.target_ref[:4096]}
        if not found.targets:
            yield _finding(
                "broken_link",
                "links",
                doc,
                f"{row.link_type} link to {row.target_ref!r} matches no indexed document",
                **where,
            )
        elif found.confidence == "ambiguous":
            candidates = sorted(proj.docs[t].uri for t in found.targets)[:16]
            yield _finding(
                "ambiguous_link",
                "links",
                doc,
                f"{row.link_type} link to {row.target_ref!r} matches {len(found.targets)} documents",
                candidates=candidates,
                **where,
            )
    roots = set()
    for ref in inp.orphanRoots or []:
        try:
            parsed = parse_ref(ref)
        except GnoError:  # a root that names nothing protects nothing
            continue
        roots.add((parsed.collection, parsed.rel_path, parsed.docid))
    ignored = [p.strip("/") for p in inp.orphanIgnorePrefixes or []]
    for doc in docs:
        if proj.out.get(doc.id) or proj.inbound.get(doc.id):
            continue
        if is_record_path(doc.rel_path):  # a message or cue of an export links nowhere by nature
            continue
        if (doc.collection, doc.rel_path, None) in roots or (None, None, doc.docid) in roots:
            continue
        if any(doc.rel_path == p or doc.rel_path.startswith(p + "/") for p in ignored):
            continue
        yield _finding("orphan", "links", doc, "No document links here and it links nowhere")


def _is_capture(doc: DocRow, data: dict[str, Any]) -> bool:
    return (
        doc.rel_path.startswith(CAPTURE_PREFIX)
        or any(k in data for k in CAPTURE_KEYS)
        or ("source" in data)
    )


def _has_source(data: dict[str, Any]) -> bool:
    source = data.get("source")
    if isinstance(source, dict):
        return any(source.get(f) for f in SOURCE_FIELDS) or source.get("kind") not in (
            None,
            "",
            "unknown",
        )
    return isinstance(source, str) and bool(source.strip())


def _provenance_findings(store: Store, docs: list[DocRow]) -> Iterator[dict[str, Any]]:
    for doc in docs:
        if not doc.mirror_hash or doc.ext.lower() not in (".md", ".markdown"):
            continue
        mirror = store.content(doc.mirror_hash)
        if mirror is None:
            continue
        data = parse_frontmatter(mirror).data
        if _is_capture(doc, data) and not _has_source(data):
            yield _finding(
                "missing_provenance",
                "provenance",
                doc,
                "A captured note without a source (kind, url, title …) in its frontmatter",
            )


def _freshness_findings(
    app: App, store: Store, docs: list[DocRow], max_age_days: int
) -> Iterator[dict[str, Any]]:
    roots = {c.name: Path(c.path) for c in app.config.collections}
    # A record's source is its export container (spec/records.md): stat that, once each.
    containers = store.records_for([d.id for d in docs if is_record_path(d.rel_path)])
    stats: dict[Path, os.stat_result | None] = {}
    now = time.time_ns()
    for doc in docs:
        root = roots.get(doc.collection)
        source = containers[doc.id][0] if doc.id in containers else doc.rel_path
        path = root / source if root else None
        if path is not None and path not in stats:
            stats[path] = _readable(path)
        info = stats[path] if path is not None else None
        if info is None:
            yield _finding(
                "source_unavailable",
                "freshness",
                doc,
                "The source file is missing or unreadable; its indexed text may be out of date",
            )
            continue
        age = max(0, (now - info.st_mtime_ns) // DAY_NS)
        if age > max_age_days:
            yield _finding(
                "stale",
                "freshness",
                doc,
                f"Not modified for {age} days (more than {max_age_days})",
                ageDays=int(age),
            )


def _readable(path: Path) -> os.stat_result | None:
    """The file's stat when it is a regular file this process may read, else None."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info if path.is_file() and os.access(path, os.R_OK) else None


def audit(app: App, inp: AuditInput) -> AuditReport:
    category = str(getattr(inp.category, "value", inp.category or "all"))
    max_age = inp.maxAgeDays or DEFAULT_MAX_AGE_DAYS
    store = app.store()
    docs = _in_scope(app, store, inp)
    wanted = ("links", "provenance", "freshness") if category == "all" else (category,)
    found: list[dict[str, Any]] = []
    status, reason = "complete", None
    try:
        if "links" in wanted:
            found.extend(_link_findings(app, store, docs, inp))
        if "provenance" in wanted:
            found.extend(_provenance_findings(store, docs))
        if "freshness" in wanted:
            found.extend(_freshness_findings(app, store, docs, max_age))
    except (KeyboardInterrupt, InterruptedByUser, Cancelled):
        status, reason = "partial", "interrupted"
    found.sort(key=lambda f: (ORDER[f["category"]], f["uri"], f.get("line", 0), f["kind"], f["id"]))
    limit = inp.maxFindings or 100
    report: dict[str, Any] = {
        "schemaVersion": "1.0",
        "category": category,
        "status": status,
        "generatedAt": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "scope": {
            "collections": sorted({d.collection for d in docs} | set(inp.collections or [])),
            "paths": list(inp.paths or []),
            "tags": list(inp.tags or []),
        },
        "policy": {
            "maxFindings": limit,
            "maxAgeDays": max_age,
            "orphanRoots": list(inp.orphanRoots or []),
            "orphanIgnorePrefixes": list(inp.orphanIgnorePrefixes or []),
        },
        "totals": {
            "documents": len(docs),
            "findings": len(found),
            "byCategory": dict(sorted(Counter(f["category"] for f in found).items())),
            "byKind": dict(sorted(Counter(f["kind"] for f in found).items())),
        },
        "findings": found[:limit],
        "truncated": len(found) > limit,
    }
    if reason:
        report["reason"] = reason
    return AuditReport.model_validate(report)
