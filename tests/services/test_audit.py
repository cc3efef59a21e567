"""The workspace audit on a real index: each finding kind, scope, stable ids, caps."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from gno_contracts.models.audit_input import AuditInput

from gno.errors import NotFoundError
from gno.services.audit import audit
from tests.conftest import sync

FILES = {
    "index.md": "# Index\n\nSee [[Plan]] and [[Nowhere]] and [gone](missing.md).\n",
    "plan.md": "# Plan\n\nBack to [[Index]]. Also [[Twin]].\n",
    "a/twin.md": "# Twin\n\nOne.\n",
    "b/twin.md": "# Twin\n\nTwo.\n",
    "lonely.md": "# Lonely\n\nNo links at all.\n",
    "inbox/2026-01-01/capture-abc.md": "---\ntitle: Clip\n---\nA captured line.\n",
    "clip-ok.md": "---\ncapturedAt: 2026-01-01T00:00:00Z\nsource:\n  kind: web\n  url: https://example.org\n---\nFine.\n",
    "clip-bad.md": "---\ncapturedAt: 2026-01-01T00:00:00Z\nsource:\n  kind: unknown\n---\nNo provenance.\n",
}


@pytest.fixture
def notes(make_app: Any) -> tuple[Any, Path]:
    app, root = make_app(FILES)
    sync(app)
    return app, root


def _kinds(report: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in report.findings:
        out.setdefault(f.kind.value, []).append(f.uri)
    return out


def test_links_broken_ambiguous_and_orphans(notes: Any) -> None:
    app, _ = notes
    report = audit(app, AuditInput(category="links"))
    kinds = _kinds(report)
    assert kinds["broken_link"] == ["gno://notes/index.md", "gno://notes/index.md"]
    assert {f.target for f in report.findings if f.kind.value == "broken_link"} == {
        "Nowhere",
        "missing.md",
    }
    ambiguous = next(f for f in report.findings if f.kind.value == "ambiguous_link")
    assert ambiguous.uri == "gno://notes/plan.md"
    assert ambiguous.candidates == [
        "gno://notes/a/twin.md",
        "gno://notes/b/twin.md",
    ]
    assert "gno://notes/lonely.md" in kinds["orphan"]
    assert "gno://notes/index.md" not in kinds["orphan"]
    assert report.status.value == "complete" and report.totals.findings == len(report.findings)


def test_orphan_roots_and_ignored_prefixes_are_respected(notes: Any) -> None:
    app, _ = notes
    report = audit(
        app,
        AuditInput(
            category="links", orphanRoots=["notes/lonely.md"], orphanIgnorePrefixes=["inbox"]
        ),
    )
    orphans = _kinds(report).get("orphan", [])
    assert "gno://notes/lonely.md" not in orphans
    assert not [u for u in orphans if "/inbox/" in u]


def test_provenance_flags_captures_without_a_source(notes: Any) -> None:
    app, _ = notes
    kinds = _kinds(audit(app, AuditInput(category="provenance")))
    assert sorted(kinds["missing_provenance"]) == [
        "gno://notes/clip-bad.md",
        "gno://notes/inbox/2026-01-01/capture-abc.md",
    ]


def test_freshness_unavailable_and_stale_sources(notes: Any) -> None:
    app, root = notes
    (root / "lonely.md").unlink()  # gone from disk, still indexed until the next sync
    old = time.time() - 400 * 86_400
    os.utime(root / "plan.md", (old, old))
    report = audit(app, AuditInput(category="freshness"))
    kinds = _kinds(report)
    assert kinds["source_unavailable"] == ["gno://notes/lonely.md"]
    assert kinds["stale"] == ["gno://notes/plan.md"]
    assert next(f for f in report.findings if f.kind.value == "stale").ageDays >= 399
    assert "stale" not in _kinds(audit(app, AuditInput(category="freshness", maxAgeDays=500)))


def test_ids_are_stable_totals_exact_and_the_list_capped(notes: Any) -> None:
    app, _ = notes
    first = audit(app, AuditInput())
    again = audit(app, AuditInput())
    assert [f.id for f in first.findings] == [f.id for f in again.findings]
    capped = audit(app, AuditInput(maxFindings=2))
    assert len(capped.findings) == 2 and capped.truncated
    assert capped.totals.findings == first.totals.findings > 2
    assert [f.id for f in capped.findings] == [f.id for f in first.findings[:2]]


def test_scope_by_path_and_unknown_collections(notes: Any) -> None:
    app, _ = notes
    scoped = audit(app, AuditInput(paths=["a"]))
    assert scoped.totals.documents == 1
    with pytest.raises(NotFoundError):
        audit(app, AuditInput(collections=["nope"]))


def test_an_interrupted_run_reports_what_it_found_as_partial(
    notes: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gno.services.audit as module

    real = module._freshness_findings
    stopped = []

    def interrupted(*args: Any) -> Any:
        for finding in real(*args):
            yield finding
            stopped.append(finding["uri"])
            raise KeyboardInterrupt  # Ctrl-C after the first freshness finding

    app, root = notes
    (root / "lonely.md").unlink()
    monkeypatch.setattr(module, "_freshness_findings", interrupted)
    report = audit(app, AuditInput())
    assert stopped == ["gno://notes/lonely.md"]  # the interruption happened mid-scan
    assert (report.status.value, report.reason) == ("partial", "interrupted")
    kinds = _kinds(report)
    assert kinds["source_unavailable"] == ["gno://notes/lonely.md"]
    assert "broken_link" in kinds  # the checks that finished are kept


def test_records_are_judged_by_their_container(make_app: Any) -> None:
    """A mail record's source is its mailbox: present and fresh, no finding; the mailbox
    gone, every record is unavailable. Messages link nowhere by nature: never orphans."""
    from tests.records_corpus import message, write_mbox

    app, root = make_app({"keep.md": "# Keep\n\nSee [[Keep]].\n"})
    mbox = write_mbox(
        root / "mail" / "inbox.mbox", [message(1, "Hi", "body one"), message(2, "Yo", "two")]
    )
    sync(app)
    report = audit(app, AuditInput(category="all"))
    assert not [f for f in report.findings if "/.gno/records/" in f.uri]
    old = time.time() - 400 * 86_400
    os.utime(mbox, (old, old))
    stale = audit(app, AuditInput(category="freshness"))
    assert sorted(f.kind.value for f in stale.findings if "/.gno/records/" in f.uri) == [
        "stale",
        "stale",
    ]
    mbox.unlink()  # not synced yet: the records are still indexed, their source is gone
    gone = audit(app, AuditInput(category="freshness"))
    assert sorted(f.kind.value for f in gone.findings if "/.gno/records/" in f.uri) == [
        "source_unavailable",
        "source_unavailable",
    ]
