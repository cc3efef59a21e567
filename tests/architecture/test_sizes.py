"""Size budgets of issue 19 ("One registry, typed end to end"): the CLI stays a thin surface
over the registry, and no module grows past what one reader holds in mind."""

from __future__ import annotations

from pathlib import Path

GNO = Path(__file__).resolve().parents[2] / "gno"
MAX_MODULE_LINES = 450
MAX_CLI_LINES = 1000


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_its_budget() -> None:
    over = {
        str(p.relative_to(GNO)): n for p in GNO.rglob("*.py") if (n := lines(p)) > MAX_MODULE_LINES
    }
    assert over == {}, f"modules over {MAX_MODULE_LINES} lines: {over}"


def test_the_cli_stays_thin() -> None:
    total = sum(lines(p) for p in (GNO / "cli").rglob("*.py"))
    assert 0 < total <= MAX_CLI_LINES, f"gno/cli holds {total} lines"
