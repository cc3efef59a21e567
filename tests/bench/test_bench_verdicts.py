"""bench/verdicts.py and bench/summary.py: every target a bench script checks ends in one
table, and quality.py's issue-12 targets are judged against the same run's baseline."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture()
def bench(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    verdicts = importlib.import_module("verdicts")
    monkeypatch.setattr(verdicts, "LOG", tmp_path / "verdicts.jsonl")
    summary = importlib.reload(importlib.import_module("summary"))
    monkeypatch.setattr(summary, "LOG", verdicts.LOG)
    return verdicts, summary


def test_a_verdict_is_recorded_and_the_newest_line_per_figure_is_summarised(bench, capsys):
    verdicts, summary = bench
    assert verdicts.verdict(13, "full index, s", "3.0", "≤ 0.5 × qmd", False) == "MISS"
    assert verdicts.verdict(13, "full index, s", "2.0", "≤ 0.5 × qmd", True) == "PASS"
    assert verdicts.verdict(None, "in-process BM25, ms", "2.1", "≤ 3", True) == "PASS"
    assert verdicts.verdict(12, "embed with windows", "off", "≤ 2 × today", None) == "SKIP"
    lines = [json.loads(t) for t in verdicts.LOG.read_text().splitlines()]
    assert [line["verdict"] for line in lines] == ["MISS", "PASS", "PASS", "SKIP"]
    summary.main()
    out = capsys.readouterr().out
    assert "full index, s" in out and "3.0" not in out  # the newer line replaced the older
    assert out.index("standing targets") < out.index("issue 12") < out.index("issue 13")
    assert "2 PASS, 0 MISS, 1 SKIP" in out


def test_summary_says_when_nothing_was_recorded(bench, capsys):
    _, summary = bench
    summary.main()
    assert "no targets were recorded" in capsys.readouterr().out


def _modes(ndcg: dict[str, float], p95: float) -> dict:
    groups = {f"test/{kind}": {"ndcg": value, "n": 30} for kind, value in ndcg.items()}
    return {"query": {"groups": groups, "latency_p95_ms": p95}}


def test_quality_targets_compare_with_the_same_runs_baseline(bench):
    verdicts, _ = bench
    quality = importlib.import_module("quality")
    today = {
        "all": 0.50,
        "identifier": 0.80,
        "keyword": 0.84,
        "paraphrase": 0.24,
        "non-english": 0.32,
    }
    now = {
        "all": 0.63,
        "identifier": 0.85,
        "keyword": 0.83,
        "paraphrase": 0.36,
        "non-english": 0.49,
    }
    result = {"modes": _modes(now, 58.0), "baseline": _modes(today, 70.0), "retrieval": {}}
    quality.target_lines(result)
    got = {
        line["figure"]: line["verdict"]
        for line in map(json.loads, verdicts.LOG.read_text().splitlines())
    }
    assert got["hybrid query nDCG@10, test half"] == "PASS"  # 0.63 ≥ 1.25 × 0.50
    assert got["hybrid query, lowest kind"] == "PASS"  # 0.36
    assert got["hybrid query, keyword kind, not lower"] == "MISS"  # 0.83 < 0.84
    assert got["hybrid query, identifier kind, not lower"] == "PASS"
    assert got["query in-process p95, ms"] == "PASS"
    assert got["embed time per chunk with windows"] == "SKIP"  # windows off by default
    assert sys.modules["verdicts"] is verdicts  # quality recorded through the patched log


def test_the_import_profile_sums_each_modules_own_time_by_package(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    run = importlib.import_module("run")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    profile = run.import_profile(["-c", "import json.decoder, email.utils"], env)
    assert {"json", "email"} <= set(profile)
    assert all(ms >= 0 for ms in profile.values())
    assert list(profile.values()) == sorted(profile.values(), reverse=True)
    assert "json.decoder" not in profile  # summed into its package
