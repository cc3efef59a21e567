"""Memory (engine.md §8.2): facts in a memory-managed collection, with supersession.

A fact is a Markdown file ``facts/YYYY-MM-DD/mem-<12 hex>.md`` whose frontmatter
``memory:`` holds its id, scopes, ``contentHash`` (``sha256:`` of the normalized text:
NFC, whitespace runs as one space, trimmed), when it was made, its evidence
(``source``, ``derivedFrom``) and ``supersedes``; a superseded fact gets
``supersededBy``. The files are the truth: recall reads the indexed mirrors, so a fact
is current exactly when its file says no successor.

remember: fenced replays (the text's hash is a span hash of the presented recall
receipt) and derived inputs (a ``gno://`` URI in ``derivedFrom``) are refused first;
then an exact duplicate of a current fact answers ``existing``; without a decision the
likely matches answer ``candidates``; ``add`` writes; ``supersede`` checks the
predecessor's hash and that it has no successor, under the writer lease, so of two
concurrent supersedes the second gets ``MEMORY_SUPERSEDE_CONFLICT``; so does an editor's
save of the predecessor after gno read it (its file is marked before the successor is
written, and only while it holds the bytes read).

recall: 1-8 scopes, BM25 over the collection (any of the query's words), current facts
sharing a scope, in rank order while ``maxFacts`` and ``maxTokens`` (≈ UTF-8 bytes / 4
per fact) allow; a content-free receipt (caller, session, memory ids, span hashes,
digest).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from gno_contracts.models.memory_recall import MemoryRecall
from gno_contracts.models.memory_remember import MemoryRemember
from gno_contracts.models.recall_input import RecallInput
from gno_contracts.models.remember_input import RememberInput

from gno.app import App
from gno.config import Collection
from gno.core.frontmatter import parse_frontmatter
from gno.core.frontmatter_edit import BOM, replace_entry
from gno.core.fts import parse_query
from gno.core.identity import parse_uri
from gno.core.note_files import check_text, frontmatter_block, note_text
from gno.errors import (
    ConflictError,
    GnoError,
    MemoryFencedDerivedError,
    MemoryFencedReplayError,
    MemorySupersedeConflictError,
    ValidationError,
)
from gno.file_writes import read_existing, write_atomic
from gno.index_lock import write_lease
from gno.rows import DocRow
from gno.services.note_writer import (
    Target,
    disk_errors,
    now_stamp,
    plain,
    remember_request,
    replayed,
    sync_now,
    target,
    uri_of,
    writable_collection,
    write_file,
)

MEMORY_KEY = "memoryManaged"
FACTS_FOLDER = "facts"
MAX_FACT_FILES = 10_000  # facts read per call; a larger memory collection is cut here
MAX_CANDIDATES = 5
MAX_LEXICAL_CANDIDATES = 10_000  # BM25 hits of the whole index looked through per recall
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
_HASH = re.compile(r"sha256:[a-f0-9]{64}")


@dataclass
class Fact:
    doc: DocRow
    text: str
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def scopes(self) -> list[str]:
        value = self.meta.get("scopes")
        return [s for s in value if isinstance(s, str)] if isinstance(value, list) else []

    @property
    def content_hash(self) -> str:
        """The file's ``contentHash``, or the text's own when the file holds none that is
        one (a hand-edited fact: a list there made every recall an internal error)."""
        value = self.meta.get("contentHash")
        if isinstance(value, str) and _HASH.fullmatch(value):
            return value
        return fact_hash(self.text)

    @property
    def current(self) -> bool:
        return not self.meta.get("supersededBy")

    def view(self, app: App) -> dict[str, Any]:
        provenance: dict[str, Any] = {"createdAt": str(self.meta.get("createdAt") or "")}
        for key in ("source", "supersedes"):
            if isinstance(self.meta.get(key), str) and self.meta[key]:
                provenance[key] = self.meta[key]
        if isinstance(self.meta.get("derivedFrom"), list):
            provenance["derivedFrom"] = [d for d in self.meta["derivedFrom"] if isinstance(d, str)]
        return {
            "uri": uri_of(app, self.doc.collection, self.doc.rel_path),
            "docid": self.doc.docid,
            "relPath": self.doc.rel_path,
            "scopes": self.scopes,
            "contentHash": self.content_hash,
            "text": self.text,
            "provenance": provenance,
        }


def normalize_fact(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFC", text)).strip()


def fact_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(normalize_fact(text).encode("utf-8")).hexdigest()


def memory_collection(app: App, name: str, *, write: bool) -> Collection:
    collection = writable_collection(app, name) if write else app.config.find(name)
    if collection is None:
        from gno.errors import NotFoundError

        raise NotFoundError(f"Collection not found: {name}")
    if collection.extra.get(MEMORY_KEY) is not True:
        raise ValidationError(
            f"Collection {collection.name} is not memory-managed (set memoryManaged: true in index.yml)"
        )
    return collection


def _scopes(raw: Sequence[Any]) -> list[str]:
    scopes = list(dict.fromkeys(s.strip() for s in plain(raw) if s.strip()))
    if not 1 <= len(scopes) <= 8:
        raise ValidationError("Give 1 to 8 scopes")
    return scopes


def _parsed(doc: DocRow, mirror: str) -> Fact | None:
    fm = parse_frontmatter(mirror)
    meta = fm.data.get("memory")
    if not isinstance(meta, dict):
        return None
    return Fact(doc, mirror[fm.end_offset :].strip(), dict(meta))


def facts(app: App, collection: str, ids: list[int] | None = None) -> list[Fact]:
    """The facts of the collection (or of these document ids), read from their mirrors."""
    store = app.store()
    if ids is None:
        docs = [
            d for d in store.active_paths(collection) if d.rel_path.startswith(f"{FACTS_FOLDER}/")
        ]
        docs = docs[:MAX_FACT_FILES]
    else:
        by_id = store.documents_by_ids(ids)
        docs = [
            by_id[i]
            for i in ids
            if i in by_id and by_id[i].active and by_id[i].collection == collection
        ]
    mirrors = store.contents([d.mirror_hash for d in docs if d.mirror_hash]) if docs else {}
    out = []
    for doc in docs:
        fact = _parsed(doc, mirrors.get(doc.mirror_hash or "", ""))
        if fact is not None:
            out.append(fact)
    return out


def _ranked(app: App, collection: str, query: str, limit: int) -> list[Fact]:
    words = " ".join(_WORD.findall(query))
    if not words:
        raise ValidationError(f"Query has no searchable words: {query!r}")
    match = parse_query(words).match_any()
    store = app.store()
    # BM25 over the whole index, then this collection's documents in rank order: a memory
    # collection's facts may rank below many other documents of a large index.
    ranked = [doc_id for doc_id, _ in store.fts_candidates(match, MAX_LEXICAL_CANDIDATES)]
    mine = store.ids_passing(ranked, "AND collection = ?", (collection,))
    return facts(app, collection, [i for i in ranked if i in mine][:limit])


def _receipt(app: App, chosen: list[Fact]) -> dict[str, Any]:
    body = {
        "caller": app.mode,
        "session": app.jobs.instance_id,
        "memoryIds": [_memory_id(f) for f in chosen],
        "spanHashes": [fact_hash(f.text) for f in chosen],
    }
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return body | {"digest": hashlib.sha256(canonical.encode("utf-8")).hexdigest()}


def _memory_id(fact: Fact) -> str:
    value = fact.meta.get("id")
    return value if isinstance(value, str) and value else fact.doc.rel_path


def recall(app: App, inp: RecallInput) -> MemoryRecall:
    collection = memory_collection(app, inp.collection, write=False)
    scopes = set(_scopes(inp.scopes))
    ranked = [
        f
        for f in _ranked(app, collection.name, inp.query, 200)
        if f.current and scopes & set(f.scopes)
    ]
    chosen: list[Fact] = []
    used = 0
    for fact in ranked:
        cost = max(1, -(-len(fact.text.encode("utf-8")) // 4))
        if len(chosen) >= inp.maxFacts or used + cost > inp.maxTokens:
            continue
        chosen.append(fact)
        used += cost
    payload: dict[str, Any] = {
        "facts": [f.view(app) for f in chosen],
        "receipt": _receipt(app, chosen),
        "retrieval": {"mode": "lexical", "candidates": len(ranked)},
        "budget": {"maxFacts": inp.maxFacts, "maxTokens": inp.maxTokens, "usedTokens": used},
        "truncated": len(chosen) < len(ranked),
    }
    if not chosen:
        payload["hint"] = (
            f'No current facts matched; store one with: gno remember "<fact>" '
            f"--collection {collection.name} --scope {sorted(scopes)[0]} --decision add"
        )
    return MemoryRecall.model_validate(payload)


def _fenced(inp: RememberInput, text_hash: str) -> None:
    for origin in plain(inp.derivedFrom):
        if origin.strip().lower().startswith("gno://"):
            raise MemoryFencedDerivedError(
                f"MEMORY_FENCED_DERIVED: derivedFrom names indexed content ({origin}); "
                "a fact derived from recalled notes is not stored"
            )
    spans = (inp.receipt or {}).get("spanHashes") if isinstance(inp.receipt, dict) else None
    if isinstance(spans, list) and text_hash in spans:
        raise MemoryFencedReplayError(
            "MEMORY_FENCED_REPLAY: the text replays a span of the presented recall receipt"
        )


def _fact_file(
    text: str, scopes: list[str], inp: RememberInput, now: str, text_hash: str
) -> tuple[str, str, dict[str, Any]]:
    fact_id = f"mem-{secrets.token_hex(6)}"
    rel = f"{FACTS_FOLDER}/{datetime.now(UTC).strftime('%Y-%m-%d')}/{fact_id}.md"
    meta: dict[str, Any] = {
        "id": fact_id,
        "scopes": scopes,
        "contentHash": text_hash,
        "createdAt": now,
    }
    if inp.source:
        meta["source"] = inp.source
    if inp.derivedFrom:
        meta["derivedFrom"] = plain(inp.derivedFrom)
    if inp.decision is not None and str(inp.decision.value) == "supersede" and inp.predecessorUri:
        meta["supersedes"] = inp.predecessorUri
    return rel, note_text({"memory": meta}, text), meta


def _memory_entry(meta: dict[str, Any]) -> str:
    """The frontmatter's ``memory:`` entry as YAML lines (no fences)."""
    return frontmatter_block({"memory": meta}).removeprefix("---\n").removesuffix("---\n")


def _predecessor(app: App, collection: Collection, inp: RememberInput) -> tuple[Fact, str]:
    """The fact being superseded, and its file's text as it is on disk."""
    if not inp.predecessorUri or not inp.predecessorHash:
        raise ValidationError("supersede needs predecessorUri and predecessorHash")
    parsed = parse_uri(inp.predecessorUri)
    if parsed.collection != collection.name:
        raise ValidationError("The predecessor must be a fact of the same collection")
    t = target(collection, parsed.rel_path)
    try:
        text = read_existing(t.path, root=t.root).decode("utf-8")
    except (GnoError, UnicodeDecodeError):
        raise MemorySupersedeConflictError(
            f"MEMORY_SUPERSEDE_CONFLICT: predecessor {inp.predecessorUri} is not a readable fact"
        ) from None
    doc = app.store().document_by_path(collection.name, t.rel)
    # a byte-order mark and CRLF line ends (a fact edited on Windows) parse like the
    # index's mirror does (recall lists such a fact: it must be one to supersede too)
    mirror = text.removeprefix(BOM).replace("\r\n", "\n")
    fact = _parsed(doc, mirror) if doc is not None else None
    if fact is None:
        raise MemorySupersedeConflictError(
            f"MEMORY_SUPERSEDE_CONFLICT: predecessor {inp.predecessorUri} is not a fact"
        )
    if not fact.current:
        raise MemorySupersedeConflictError(
            f"MEMORY_SUPERSEDE_CONFLICT: {inp.predecessorUri} already has a successor "
            f"({fact.meta.get('supersededBy')})"
        )
    if fact.content_hash != inp.predecessorHash:
        raise MemorySupersedeConflictError(
            f"MEMORY_SUPERSEDE_CONFLICT: {inp.predecessorUri} changed since it was recalled"
        )
    return fact, text


def _mark(old: Target, inp: RememberInput, *, replacing: bytes, marked: bytes) -> None:
    """Rewrite the predecessor's file while it still holds ``replacing``: an editor's save
    since it was read is never overwritten (the supersede is refused instead)."""
    try:
        with disk_errors(old.rel):
            write_atomic(old.path, marked, root=old.root, replacing=replacing)
    except ConflictError:
        raise MemorySupersedeConflictError(
            f"MEMORY_SUPERSEDE_CONFLICT: {inp.predecessorUri} was saved by an editor "
            "meanwhile; recall it again"
        ) from None


def remember(app: App, inp: RememberInput) -> MemoryRemember:
    text = normalize_fact(check_text(inp.text, "Fact"))
    if not text:
        raise ValidationError("The fact is empty")
    text_hash = fact_hash(text)
    scopes = _scopes(inp.scopes)
    _fenced(inp, text_hash)
    decision = str(inp.decision.value) if inp.decision is not None else None
    if decision != "supersede" and (inp.predecessorUri or inp.predecessorHash):
        raise ValidationError("predecessorUri and predecessorHash go with decision supersede")
    with write_lease(app.paths):
        if (first := replayed(app, inp.requestId, "remember")) is not None:
            return MemoryRemember.model_validate(first)
        collection = memory_collection(app, inp.collection, write=True)
        current = [f for f in facts(app, collection.name) if f.current]
        same = next((f for f in current if f.content_hash == text_hash), None)
        if same is not None:
            return MemoryRemember.model_validate(
                {
                    "outcome": "existing",
                    "fact": same.view(app),
                    "candidates": [],
                    "sync": {"status": "not_requested"},
                }
            )
        if decision is None:
            likely = [
                f
                for f in _ranked(app, collection.name, text, 50)
                if f.current and set(scopes) & set(f.scopes)
            ]
            return MemoryRemember.model_validate(
                {
                    "outcome": "candidates",
                    "candidates": [f.view(app) for f in likely[:MAX_CANDIDATES]],
                    "sync": {"status": "not_requested"},
                }
            )
        predecessor, old_text = (
            _predecessor(app, collection, inp) if decision == "supersede" else (None, "")
        )
        now = now_stamp()
        rel, body, _ = _fact_file(text, scopes, inp, now, text_hash)
        t = target(collection, rel)
        if predecessor is not None:
            meta = dict(predecessor.meta) | {"supersededBy": uri_of(app, collection.name, rel)}
            # Only the memory entry changes: what a person added to the fact (a title,
            # tags, comments, notes below it) and its line ends stay as they are.
            marked = replace_entry(old_text, "memory", _memory_entry(meta)).encode("utf-8")
            old = target(collection, predecessor.doc.rel_path)
            _mark(old, inp, replacing=old_text.encode("utf-8"), marked=marked)
            try:
                write_file(t, body)
            except GnoError:  # no successor after all: the predecessor is current again
                _mark(old, inp, replacing=marked, marked=old_text.encode("utf-8"))
                raise
        else:
            write_file(t, body)
        payload: dict[str, Any] = {
            "outcome": "added",
            "candidates": [],
            "sync": {"status": "completed"},
        }
        if predecessor is not None:
            sync_now(app, old)
            payload["outcome"] = "superseded"
            payload["superseded"] = Fact(predecessor.doc, predecessor.text, meta).view(app)
        doc = sync_now(app, t)
        fresh = facts(app, collection.name, [doc.id])
        payload["fact"] = fresh[0].view(app) | {"absPath": str(t.path)} if fresh else None
        if payload["fact"] is None:
            del payload["fact"]
        remember_request(app, inp.requestId, "remember", payload)
    return MemoryRemember.model_validate(payload)
