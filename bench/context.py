"""Context Capsule figures on the opentelemetry-docs corpus (targets: issue 21, spec/context.md).

    .venv/bin/python bench/context.py [--runs 20] [--index DIR]

Indexes the corpus into a fresh data directory (or reuses ``--index DIR`` when it already
holds one), then times in-process: compile at 12,000 tokens with ``--fast`` (median), verify
of that Capsule (median), its compiled project context (``/api/context/compiled/preview``
and ``/check`` handlers, medians), an answered ask streamed from a loopback
OpenAI-compatible server (``tests/fake_openai.py``: time to the first streamed piece), and
the whole ``gno context build`` process once. GNO's figures
(performance.md §9): compile 10.3 s at 32,000 tokens (fails at 12,000), verify 0.27 s.
Writes bench/results/context.json. Exits 0 with a message when the corpus is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from typing import Any

from verdicts import verdict

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(
    os.environ.get("GNO_BENCH_CORPUS", ROOT.parent / "shared" / "corpora" / "opentelemetry-docs")
)
RESULTS = ROOT / "bench" / "results" / "context.json"
GOAL = "how does tail sampling work in the collector"
TARGETS = {"compile_ms": 150.0, "verify_ms": 50.0, "ask_outside_generation_pct": 10.0}


def _env(base: Path) -> None:
    for name, sub in (
        ("GNO_CONFIG_DIR", "config"),
        ("GNO_DATA_DIR", "data"),
        ("GNO_CACHE_DIR", "cache"),
    ):
        os.environ[name] = str(base / sub)
    os.environ["HF_HUB_OFFLINE"] = "1"


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _ask_figures(app: Any, runs: int) -> dict[str, Any]:
    """Retrieval-only ask (median), and one answered ask with a tiny random llama (the
    model's speed is not gno's: what counts is the time to the first token and the share
    of the whole spent outside generation)."""
    from gno_contracts.models.ask_input import AskInput

    from gno.services import answer_model, ask

    question = AskInput(query=GOAL)
    out: dict[str, Any] = {
        "ask_retrieval_ms": round(_median_ms(lambda: ask.ask(app, question), runs), 1)
    }
    try:
        from tests.tiny_gguf import write_tiny_llama
    except ImportError:  # gguf not installed: no generation figures
        return out
    model = write_tiny_llama(Path(tempfile.mkdtemp()) / "tiny-gen.gguf", n_ctx=4096)
    os.environ["GNO_GEN_MODEL"] = f"file:{model}"
    app.models.forget_missing()
    answering = AskInput(query=GOAL, answer=True, maxAnswerTokens=64)
    ask.ask(app, answering)  # load the model once
    spent: list[float] = []
    real = answer_model.generate

    def timed(*a: Any) -> str:
        began = time.perf_counter()
        try:
            return real(*a)
        finally:
            spent.append(time.perf_counter() - began)

    ask.generate = timed  # type: ignore[assignment]
    first: list[float] = []
    began = time.perf_counter()
    ask.ask(
        app, answering, lambda _: first.append(time.perf_counter() - began) if not first else None
    )
    total = time.perf_counter() - began
    ask.generate = real  # type: ignore[assignment]
    return out | {
        "ask_first_token_ms": round(first[0] * 1000, 1) if first else None,
        "ask_total_ms": round(total * 1000, 1),
        "ask_outside_generation_pct": round((total - spent[0]) / total * 100, 1),
    }


def _compiled_figures(app: Any, capsule: dict[str, Any], runs: int) -> dict[str, Any]:
    from gno_contracts.models.context_compiled_check_input import ContextCompiledCheckInput
    from gno_contracts.models.context_compiled_preview_input import ContextCompiledPreviewInput

    from gno.services.context_compiled import check, preview

    shown = ContextCompiledPreviewInput(capsule=capsule, budgetTokens=12000)
    markdown = preview(app, shown).markdown
    checked = ContextCompiledCheckInput(capsule=capsule, markdown=markdown)
    return {
        "compiled_preview_ms": round(_median_ms(lambda: preview(app, shown), runs), 1),
        "compiled_check_ms": round(_median_ms(lambda: check(app, checked), runs), 1),
        "compiled_bytes": len(markdown.encode()),
    }


def _http_stream_figures() -> dict[str, Any]:
    """An answered ask whose model is a loopback OpenAI-compatible server streaming 200
    words: the time to the first piece on the terminal callback is gno's own work
    (retrieval, prompt, request), the rest is the server's."""
    from gno_contracts.models.ask_input import AskInput

    from gno.app import App
    from gno.paths import resolve_paths
    from gno.services import ask
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI(mode="ok") as server:
        server.chat_reply = lambda body: " ".join(["tail sampling keeps slow traces [1]."] * 40)
        os.environ["GNO_GEN_MODEL"] = f"{server.url}/v1#fake-gen"
        app = App(resolve_paths())  # its own models: the llama gen model stays out
        answering = AskInput(query=GOAL, answer=True)
        ask.ask(app, answering)  # warm
        first: list[float] = []
        began = time.perf_counter()
        ask.ask(
            app,
            answering,
            lambda _: first.append(time.perf_counter() - began) if not first else None,
        )
        total = time.perf_counter() - began
        app.close()
        assert server.count("/v1/chat/completions") == 2
    return {
        "ask_http_first_piece_ms": round(first[0] * 1000, 1) if first else None,
        "ask_http_total_ms": round(total * 1000, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--index", type=Path, help="data directory to create or reuse")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found: {CORPUS} (set GNO_BENCH_CORPUS)")
        return 0
    sys.path.insert(0, str(ROOT))
    base = args.index or Path(tempfile.mkdtemp(prefix="gno-bench-context-"))
    _env(base)
    from gno_contracts.models.collection_add_input import CollectionAddInput
    from gno_contracts.models.context_input import ContextInput
    from gno_contracts.models.init_input import InitInput
    from gno_contracts.models.update_input import UpdateInput

    from gno.app import App
    from gno.core.capsule import canonical_json
    from gno.paths import resolve_paths
    from gno.services.collections import collection_add, init
    from gno.services.context_build import compile_capsule
    from gno.services.context_verify import verify_capsule
    from gno.services.sync import update

    app = App(resolve_paths())
    if not resolve_paths().config_file.exists():
        init(app, InitInput())
        collection_add(app, CollectionAddInput(path=str(CORPUS), name="otel"))
    update(app, UpdateInput())
    inp = ContextInput(goal=GOAL, budgetTokens=12000, depthPolicy="fast")
    capsule = compile_capsule(app, inp)
    compile_ms = _median_ms(lambda: compile_capsule(app, inp), args.runs)
    verify_ms = _median_ms(lambda: verify_capsule(app, capsule), args.runs)
    compiled_figures = _compiled_figures(app, capsule, args.runs)
    ask_figures = _ask_figures(app, args.runs) | _http_stream_figures()
    app.close()
    started = time.perf_counter()
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "gno"), "context", "build", GOAL, "--fast", "--budget", "12000", "--json"],
        capture_output=True, text=True, env=os.environ.copy(), check=False,
    )  # fmt: skip
    process_s = time.perf_counter() - started
    figures = (
        {
            "compile_ms": round(compile_ms, 1),
            "verify_ms": round(verify_ms, 1),
            "process_s": round(process_s, 2),
            "process_exit": done.returncode,
            "evidence": len(capsule["evidence"]),
            "usedBytes": capsule["budget"]["usedBytes"],
            "coverage": f"{len(capsule['coverage']['coveredFacets'])}/{len(capsule['coverage']['requestedFacets'])}",
            "capsuleBytes": len(canonical_json(capsule).encode()),
        }
        | compiled_figures
        | ask_figures
    )
    print(f"{'figure':<32} {'value':>10} {'target':>8}")
    for key, value in figures.items():
        target = TARGETS.get(key)
        word = (
            ""
            if target is None
            else verdict(21, key, str(value), f"≤ {target:g}", float(value) <= target)
        )
        print(f"{key:<32} {value!s:>10} {'' if target is None else target:>8} {word}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
