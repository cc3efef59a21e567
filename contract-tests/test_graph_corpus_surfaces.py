"""The knowledge delta and impact on real documents, through the CLI as a user runs it.

A small copy of the OpenTelemetry specification (top-level pages, trace/ and logs/ of
../shared/corpora/opentelemetry-docs) in a temp dir: index it, edit one page, sync
again; `gno changes` since the earlier cursor lists exactly that page, `gno diff`
shows its new heading and the link it lost and gained, and `gno impact` of the
maturity page most of the spec links to lists every page whose links name it (found
by reading the files, not by asking gno). Answers validate against their schemas.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from contract_helpers import gno_env, gno_ok

CORPUS = Path(
    os.environ.get(
        "GNO_BENCH_CORPUS",
        Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "opentelemetry-docs",
    )
)
SPEC = CORPUS / "specification" / "specification"
SUBSET = ("*.md", "trace/*.md", "logs/*.md")
HUB = "document-status.md"
LINK = re.compile(r"\]\(((?:\.\./)*)document-status\.md")

pytestmark = pytest.mark.skipif(not SPEC.is_dir(), reason=f"corpus not found: {SPEC}")


def _copy(root: Path) -> None:
    for pattern in SUBSET:
        for path in SPEC.glob(pattern):
            target = root / path.relative_to(SPEC)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def _linkers(root: Path) -> set[str]:
    """Pages whose Markdown links climb back to the hub at the root."""
    found = set()
    for path in root.rglob("*.md"):
        rel = path.relative_to(root).as_posix()
        for m in LINK.finditer(path.read_text(encoding="utf-8")):
            if len(m.group(1)) // 3 == rel.count("/"):
                found.add(rel)
    return found


def test_edit_shows_in_changes_diff_and_impact(tmp_path: Path) -> None:
    root = tmp_path / "spec"
    _copy(root)
    env = gno_env(tmp_path / "home")
    gno_ok(env, "init", str(root), "--name", "spec", "--json")
    gno_ok(env, "update", "--json")
    cursor = gno_ok(env, "changes", "-n", "1", "--json")["page"]["latestCursor"]

    page = root / "trace" / "api.md"
    text = page.read_text(encoding="utf-8")
    assert "../document-status.md" in text
    page.write_text(
        text.replace("../document-status.md", "../glossary.md")
        + "\n## Journal Test Heading\n\nSee [the logs API](../logs/api.md).\n",
        encoding="utf-8",
    )
    gno_ok(env, "update", "--json")

    since = gno_ok(env, "changes", "--since", cursor, "--json")
    assert [(c["kind"], c["current"]["relPath"]) for c in since["changes"]] == [
        ("update", "trace/api.md")
    ]
    change_id = since["changes"][0]["id"]
    shown = gno_ok(env, "diff", "spec/trace/api.md", "--change", change_id, "--json")
    assert shown["status"] == "available" and shown["change"]["id"] == change_id
    delta = shown["change"]["structureDelta"]
    assert "## Journal Test Heading" in delta["headings"]["added"]
    assert "markdown:document-status.md" in delta["links"]["removed"]
    assert "markdown:logs/api.md" in delta["links"]["added"] or delta["truncated"]
    assert "related_to:document-status.md" in delta["typedEdges"]["removed"]

    expected = _linkers(root)
    assert len(expected) >= 5 and "trace/api.md" not in expected
    out = gno_ok(env, "impact", f"spec/{HUB}", "--max-depth", "1", "--max-nodes", "1000", "--json")
    assert {x["document"]["relPath"] for x in out["impacted"]} == expected
    assert all(
        x["evidencePath"][-1]["target"]["uri"] == f"gno://spec/{HUB}" for x in out["impacted"]
    )
