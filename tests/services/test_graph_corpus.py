"""The journal and the graph on a real corpus: a copy of the OpenTelemetry specification
(../shared/corpora/opentelemetry-docs), edited and synced again."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from gno_contracts.models.changes_input import ChangesInput
from gno_contracts.models.diff_input import DiffInput
from gno_contracts.models.impact_input import ImpactInput

from gno.services.graph_walks import impact
from gno.services.journal import changes, diff
from tests.conftest import sync

CORPUS = Path(
    os.environ.get(
        "GNO_BENCH_CORPUS",
        Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "opentelemetry-docs",
    )
)
SPEC = CORPUS / "specification" / "specification"
HUB = "document-status.md"  # the maturity-levels page most spec pages link to
LINK = re.compile(r"\]\(((?:\.\./)*)document-status\.md")

pytestmark = pytest.mark.skipif(not SPEC.is_dir(), reason=f"corpus not found: {SPEC}")


def _linkers(root: Path) -> set[str]:
    """Pages whose Markdown links name the hub, found by reading the files themselves."""
    found = set()
    for path in root.rglob("*.md"):
        rel = path.relative_to(root).as_posix()
        for m in LINK.finditer(path.read_text(encoding="utf-8")):
            depth = rel.count("/")
            if len(m.group(1)) // 3 == depth:  # the ../ climb lands on the root
                found.add(rel)
    return found


def test_edit_shows_in_changes_diff_and_impact(make_app, tmp_path: Path) -> None:
    root = tmp_path / "spec"
    shutil.copytree(SPEC, root)
    app, _ = make_app({}, root=root)
    sync(app)
    cursor = changes(app, ChangesInput(limit=1)).page.latestCursor

    page = root / "trace" / "api.md"
    text = page.read_text(encoding="utf-8")
    assert "[Stable](../document-status.md)" in text or "../document-status.md" in text
    edited = text.replace("../document-status.md", "../glossary.md") + (
        "\n## Journal Test Heading\n\nSee [the logs API](../logs/api.md).\n"
    )
    page.write_text(edited, encoding="utf-8")
    sync(app)

    since = changes(app, ChangesInput(since=cursor))
    assert [(c.kind.value, c.current.relPath) for c in since.changes] == [
        ("update", "trace/api.md")
    ]

    delta = diff(app, DiffInput(ref="notes/trace/api.md")).change.structureDelta
    assert "## Journal Test Heading" in [h.root for h in delta.headings.added]
    assert "markdown:logs/api.md" in [x.root for x in delta.links.added] or delta.truncated
    assert "markdown:document-status.md" in [x.root for x in delta.links.removed]
    assert "related_to:document-status.md" in [x.root for x in delta.typedEdges.removed]

    expected = _linkers(root)
    assert len(expected) > 20 and "trace/api.md" not in expected
    out = impact(app, ImpactInput(ref=f"notes/{HUB}", maxDepth=1, maxNodes=1000, maxEdges=5000))
    direct = {x.document.relPath for x in out.impacted if x.depth == 1}
    assert expected <= direct
    assert all(x.evidencePath[-1].target.uri == f"gno://notes/{HUB}" for x in out.impacted)
