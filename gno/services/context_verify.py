"""Verify a saved Context Capsule against the index (``context-capsule-verification@1.0``,
engine.md §6.2): ``gno context verify``, MCP ``gno_context_verify``,
``POST /api/context/verify``. Read-only; nothing is registered or persisted.

A Capsule that is malformed (``invalid_input``), whose ``capsuleId`` or used counters do
not match its content, or that names another index (``identity_mismatch``) fails before
any evidence is read. Each evidence item is then checked in GNO's order: the document by
URI (``source_missing``), its mirror (``mirror_missing``), ``source_stale``,
``mirror_corrupt``, ``mirror_stale``, ``passage_stale`` (the same lines re-extracted hash
differently), ``chunk_missing`` / ``chunk_corrupt`` (no stored chunk with those lines, or
one whose offsets drifted), else ``verified_unchanged``. Ranking re-runs the Capsule's own
deterministic retrieval for unchanged evidence.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, BinaryIO

from gno_contracts.models.context_capsule_verification import ContextCapsuleVerification
from gno_contracts.models.context_verify_input import ContextVerifyInput

from gno.app import App
from gno.core.capsule import sha256_text, verify_identity
from gno.core.identity import index_identity, parse_uri
from gno.errors import (
    ContextInputError,
    GnoError,
    IdentityMismatchError,
    IndexChangedDuringVerifyError,
    ValidationError,
)
from gno.services.context_build import Snapshot, config_fingerprint, retrieval_fingerprint
from gno.services.context_retrieval import CATALOG, retrieve

WORST = {"unchanged": 0, "stale": 1, "missing": 2}
MAX_CAPSULE_BYTES = 64 * 1024 * 1024  # a Capsule file; budgets cap real ones far below


def read_capsule(source: str | BinaryIO) -> dict[str, Any]:
    """A saved Capsule as JSON, from a file (regular, at most ``MAX_CAPSULE_BYTES``) or an
    open binary stream (the CLI's ``-``, standard input): what `context verify <file>` and
    `context compiled preview|check <file>` hand the handler. Anything unreadable, too
    large, not UTF-8 JSON or not an object is ``invalid_input``."""
    from gno.ingest.reading import read_regular

    try:
        if isinstance(source, str):
            data = read_regular(source, MAX_CAPSULE_BYTES)
        else:
            data = source.read(MAX_CAPSULE_BYTES + 1)
            if len(data) > MAX_CAPSULE_BYTES:
                raise ValueError("too large")
        capsule = json.loads(data.decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise ContextInputError("Context input is invalid.", details={"reason": str(exc)}) from None
    if not isinstance(capsule, dict):
        raise ContextInputError("Context input is invalid.", details={"reason": "not an object"})
    return capsule


@cache
def _validator() -> Any:
    import json
    from importlib import resources

    from jsonschema import Draft202012Validator

    text = (
        resources.files("gno_contracts").joinpath("schemas", "context-capsule-v1.json").read_text()
    )
    return Draft202012Validator(json.loads(text))


def check_capsule(app: App, capsule: dict[str, Any]) -> None:
    """Fail before any evidence read: malformed, forged or from another index."""
    if not isinstance(capsule, dict) or next(_validator().iter_errors(capsule), None) is not None:
        raise ContextInputError(CATALOG["invalid_input"])
    if not verify_identity(capsule):
        raise IdentityMismatchError(CATALOG["identity_mismatch"], details={"reason": "capsuleId"})
    if not _same_index(capsule["scope"]["indexName"], app.paths.index_identity):
        raise IdentityMismatchError(CATALOG["identity_mismatch"], details={"reason": "index"})


def _same_index(name: str, identity: str) -> bool:
    """Index names fold case (one file for `Work` and `work`): compared by identity."""
    try:
        return index_identity(name) == identity
    except ValidationError:
        return False


def _content(store: Any, ev: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "currentSourceHash": None,
        "currentMirrorHash": None,
        "currentPassageHash": None,
    }
    try:
        parsed = parse_uri(ev["uri"])
    except ValidationError:
        return out | {"contentStatus": "missing", "contentCode": "source_missing"}
    doc = store.document_by_path(parsed.collection, parsed.rel_path)
    if doc is None or not doc.active or not doc.source_hash:
        return out | {"contentStatus": "missing", "contentCode": "source_missing"}
    out["currentSourceHash"] = doc.source_hash
    mirror = store.content(doc.mirror_hash) if doc.mirror_hash else None
    if mirror is None:
        return out | {"contentStatus": "missing", "contentCode": "mirror_missing"}
    out["currentMirrorHash"] = doc.mirror_hash
    lines = mirror.split("\n")
    start, end = ev["startLine"], ev["endLine"]
    if end <= len(lines):
        out["currentPassageHash"] = sha256_text("\n".join(lines[start - 1 : end]))
    if doc.source_hash != ev["sourceHash"]:
        code = "source_stale"
    elif sha256_text(mirror) != doc.mirror_hash or "\r" in mirror:
        code = "mirror_corrupt"
    elif doc.mirror_hash != ev["mirrorHash"]:
        code = "mirror_stale"
    elif (
        out["currentPassageHash"] != ev["passageHash"]
        or sha256_text(ev["text"]) != ev["passageHash"]
    ):  # the Capsule's text, not only its recorded hash, must be the indexed passage: a
        # rewritten text under a resealed id would otherwise verify (and compile) unchanged
        code = "passage_stale"
    else:
        chunk = next(
            (c for c in store.chunks(doc.mirror_hash) if (c[3], c[4]) == (start, end)), None
        )
        if chunk is None:
            code = "chunk_missing"
        elif mirror.count("\n", 0, chunk[1]) + 1 != start or chunk[2] > len(mirror):
            code = "chunk_corrupt"
        else:
            code = "verified_unchanged"
    status = "unchanged" if code == "verified_unchanged" else "stale"
    if status == "stale" and out["currentPassageHash"] is None:
        out["currentPassageHash"] = None
    return out | {"contentStatus": status, "contentCode": code}


def _ranks(app: App, store: Any, capsule: dict[str, Any]) -> dict[str, int] | None:
    """Current retrieval rank per document URI under the Capsule's own request, or None
    when retrieval cannot run again (the rank is then unavailable)."""
    r = capsule["retrieval"]
    req, scope = r["request"], capsule["scope"]
    base = {
        k: v for k, v in {
            "tagsAll": scope["tagsAll"] or None, "tagsAny": scope["tagsAny"] or None,
            "categories": scope["categories"] or None, "author": req["author"],
            "lang": req["lang"], "intent": req.get("intent"), "since": scope["since"],
            "until": scope["until"], "exclude": req.get("exclude") or None,
            "minScore": req.get("minScore"), "queryModes": req["queryModes"] or None,
            "graph": req["graphRequested"], "rerank": req.get("rerankRequested", True),
        }.items() if v is not None
    }  # fmt: skip
    targets: list[str | None] = list(scope["collections"]) or [None]
    try:
        run = retrieve(app, store, capsule["query"], targets, base, r["depthPolicy"],
                       req["limit"], req["candidateLimit"])  # fmt: skip
    except GnoError:
        return None
    return {res.doc.uri: res.rank for res in run.results}


def verify_capsule(app: App, capsule: dict[str, Any]) -> dict[str, Any]:
    check_capsule(app, capsule)
    store = app.store()
    snapshot = Snapshot(store)
    before = snapshot.before
    ranks = _ranks(app, store, capsule)
    items = []
    for ev in capsule["evidence"]:
        item = {"evidenceId": ev["evidenceId"], "uri": ev["uri"]} | _content(store, ev)
        rank = ranks.get(ev["uri"]) if ranks is not None else None
        if item["contentStatus"] != "unchanged" or rank is None:
            item |= {
                "rankingStatus": "unavailable",
                "rankingCode": "ranking_unavailable",
                "currentRetrievalRank": None,
            }
        elif rank == ev["retrievalRank"]:
            item |= {
                "rankingStatus": "unchanged",
                "rankingCode": "ranking_unchanged",
                "currentRetrievalRank": rank,
            }
        else:
            item |= {
                "rankingStatus": "reranked",
                "rankingCode": "ranking_changed",
                "currentRetrievalRank": rank,
            }
        items.append(item)
    worst = max((i["contentStatus"] for i in items), key=WORST.__getitem__)
    rankings = {i["rankingStatus"] for i in items}
    ranking = "unavailable" if worst != "unchanged" or "unavailable" in rankings else (
        "reranked" if "reranked" in rankings else "unchanged")  # fmt: skip
    r = capsule["retrieval"]
    embed = capsule["fingerprints"]["embeddingModel"]
    rerank = capsule["fingerprints"]["rerankModel"]
    current = {
        "config": config_fingerprint(app),
        "retrieval": retrieval_fingerprint(app, r["depthPolicy"], r["request"]),
        "index": before,
        "embeddingModel": sha256_text(app.model_uri("embed")) if embed else None,
        "rerankModel": sha256_text(app.model_uri("rerank")) if rerank else None,
        "tokenizer": None,
    }
    reasons = [
        reason
        for reason, drifted in (
            ("config_changed", current["config"] != capsule["fingerprints"]["config"]),
            ("retrieval_changed", current["retrieval"] != capsule["fingerprints"]["retrieval"]),
            ("embedding_model_changed", current["embeddingModel"] != embed),
            ("rerank_model_changed", current["rerankModel"] != rerank),
            ("tokenizer_changed", capsule["fingerprints"]["tokenizer"] is not None),
            ("index_changed", before != r["indexSnapshot"]["after"]),
        )
        if drifted
    ]
    after = snapshot.after()
    if after != before:
        raise IndexChangedDuringVerifyError(CATALOG["index_changed_during_verify"])
    codes = {
        "unchanged": "verified_unchanged",
        "stale": "content_stale",
        "missing": "content_missing",
    }
    ranking_codes = {"unchanged": "ranking_unchanged", "reranked": "ranking_changed", "unavailable": "ranking_unavailable"}  # fmt: skip
    return {
        "schemaVersion": "1.0", "coordinateSpace": "canonical_mirror",
        "capsuleId": capsule["capsuleId"], "operationStatus": "completed",
        "contentStatus": worst, "contentCode": codes[worst],
        "rankingStatus": ranking, "rankingCode": ranking_codes[ranking],
        "currentFingerprints": current,
        "fingerprintStatus": "drifted" if reasons else "unchanged",
        "fingerprintReasons": reasons,
        "indexSnapshot": {"before": before, "after": after, "stable": True},
        "evidence": items,
    }  # fmt: skip


def verify(app: App, inp: ContextVerifyInput) -> ContextCapsuleVerification:
    return ContextCapsuleVerification.model_validate(verify_capsule(app, dict(inp.capsule)))
