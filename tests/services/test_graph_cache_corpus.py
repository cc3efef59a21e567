"""`links` and `backlinks` on a real corpus (a copy of the OpenTelemetry specification,
../shared/corpora/opentelemetry-docs, with a page of wiki links added: ambiguous, by
title, by a path tail, unresolved), first computed, then from the answer cache: every
link resolves to what the whole-index projection (every link of the index resolved at
once, as before the seed projection and the cache) says."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from gno_contracts.models.backlinks_input import BacklinksInput
from gno_contracts.models.links_input import LinksInput

from gno.app import App
from gno.services.links import backlinks_payload, links_payload
from tests.conftest import sync

CORPUS = Path(
    os.environ.get(
        "GNO_BENCH_CORPUS",
        Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "opentelemetry-docs",
    )
)
SPEC = CORPUS / "specification" / "specification"
WIKI = (
    "# Wiki page\n\nThe [[api]] (many `api.md`: ambiguous), the [[Glossary]] by title, "
    "[[trace/API]] by a tail in another case, [[metrics/sdk.md]], [[document-status]], "
    "[[no such page]] and [gone](missing/page.md).\n"
)

pytestmark = pytest.mark.skipif(not SPEC.is_dir(), reason=f"corpus not found: {SPEC}")


def test_links_and_backlinks_match_the_whole_index_resolution(make_app, tmp_path: Path) -> None:
    root = tmp_path / "spec"
    shutil.copytree(SPEC, root)
    (root / "wiki-page.md").write_text(WIKI, encoding="utf-8")
    app, _ = make_app({}, root=root)
    sync(app)
    store = App(app.paths).store()
    whole = store.projection()
    docs = sorted(whole.docs.values(), key=lambda d: d.id)
    rows = store.link_rows([d.id for d in docs])

    def resolved(row) -> tuple[int, ...]:  # type: ignore[no-untyped-def]
        resolver = whole.resolver
        if row.link_type == "markdown":
            return resolver.markdown(row.resolve_collection, row.target_ref_norm).targets
        return resolver.wiki(row.resolve_collection, row.target_ref_norm).targets

    seen = {"ambiguous": 0, "unresolved": 0, "resolved": 0}
    for doc in docs:
        own = [r for r in rows if r.source_doc_id == doc.id]
        computed = links_payload(App(app.paths), LinksInput(ref=doc.uri))
        assert links_payload(App(app.paths), LinksInput(ref=doc.uri)) == computed  # cached
        assert len(computed["links"]) == len(own)
        for item, row in zip(computed["links"], own, strict=True):
            targets = resolved(row)
            assert item["resolved"] == bool(targets), (doc.uri, row)
            if targets:
                assert item["resolvedDocid"] == whole.docs[targets[0]].docid
                seen["resolved"] += 1
                seen["ambiguous"] += len(targets) > 1
            else:
                seen["unresolved"] += 1
        expected = sorted(
            (docs_by_id.uri, r.start_line, r.start_col)
            for r in rows
            if doc.id in resolved(r) and (docs_by_id := whole.docs[r.source_doc_id])
        )
        answer = backlinks_payload(App(app.paths), BacklinksInput(ref=doc.uri))
        assert backlinks_payload(App(app.paths), BacklinksInput(ref=doc.uri)) == answer
        got = [(b["sourceUri"], b["startLine"], b["startCol"]) for b in answer["backlinks"]]
        assert got == expected, doc.uri
    assert seen["ambiguous"] >= 1 and seen["unresolved"] >= 2 and seen["resolved"] >= 100
    wiki = links_payload(App(app.paths), LinksInput(ref="gno://notes/wiki-page.md"))["links"]
    assert [i["resolved"] for i in wiki] == [True, True, True, True, True, False, False]
