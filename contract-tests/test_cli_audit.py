"""`gno audit` as a real process: its JSON validates, and its exit code says what it found
(0 clean, 4 findings, 1 usage error), as GNO's audit contract has it."""

from __future__ import annotations

import json
from pathlib import Path

from contract_helpers import assert_valid, indexed_notes, run_gno

from gno.render.audit import AUDIT_FINDINGS, AUDIT_PARTIAL, exit_code


def _index(root: Path, files: dict[str, str]) -> dict[str, str]:
    return indexed_notes(root, files)


def test_findings_exit_4_and_validate(tmp_path: Path) -> None:
    env = _index(tmp_path, {"a.md": "# A\n\nSee [[Missing page]].\n", "b.md": "# B\n\n[[A]]\n"})
    done = run_gno(env, "audit", "links", "--json")
    assert done.returncode == AUDIT_FINDINGS, done.stderr
    report = json.loads(done.stdout)
    assert_valid("gno://schemas/audit-report@1.0", report)
    assert [(f["kind"], f["target"]) for f in report["findings"]] == [
        ("broken_link", "Missing page")
    ]
    text = run_gno(env, "audit", "links")
    assert text.returncode == AUDIT_FINDINGS and "broken_link" in text.stdout


def test_a_clean_workspace_exits_0_and_bad_input_1(tmp_path: Path) -> None:
    env = _index(tmp_path, {"a.md": "# A\n\n[[B]]\n", "b.md": "# B\n\n[[A]]\n"})
    done = run_gno(env, "audit", "links", "--json")
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["totals"]["findings"] == 0
    assert run_gno(env, "audit", "everything").returncode == 1
    assert run_gno(env, "audit", "--max-findings", "0").returncode == 1
    assert run_gno(env, "audit", "-c", "nope").returncode == 1


def test_the_exit_rule_of_a_partial_report() -> None:
    from gno_contracts.models.audit_report import AuditReport

    example = Path(__file__).parents[1] / "schemas" / "examples" / "audit-report" / "01-links.json"
    report = json.loads(example.read_text(encoding="utf-8"))
    assert exit_code(AuditReport.model_validate(report)).code == AUDIT_FINDINGS
    partial = AuditReport.model_validate({**report, "status": "partial", "reason": "interrupted"})
    assert exit_code(partial).code == AUDIT_PARTIAL
