"""Retrieval quality and query latency of gno on opentelemetry-docs, with the MiniLM model.

    .venv/bin/python bench/quality.py            # 400-file subset, ~5 min on 2 idle vCPUs
    .venv/bin/python bench/quality.py --full     # the whole corpus (embedding takes long)

Indexes a subset of the corpus (every document bench/devset.jsonl labels, the other-language
versions of those pages, and a seeded sample of the rest) into a temp gno home, runs
`gno update`, then `gno embed` with the local MiniLM GGUF (wall time, chunks/s and peak RSS
of that process), then runs every dev query through search, vsearch, query --fast and query
on one warm App in a child process: nDCG@10 and recall@10 per mode (document level) and the
in-process latency per mode. Prints tables and writes bench/results/quality.json. Exits 0
with a message when the corpus or the model is missing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from run import busy_cpu_seconds, machine, own_cpu_seconds, workspace
from verdicts import verdict

BENCH = Path(__file__).resolve().parent
SHARED = BENCH.parent.parent / "shared"  # the worktree's ../shared
CORPUS = Path(os.environ.get("GNO_BENCH_CORPUS", SHARED / "corpora" / "opentelemetry-docs"))
MODEL = Path(
    os.environ.get("GNO_BENCH_MODEL", SHARED / "models" / "all-MiniLM-L6-v2-f16.gguf")
).resolve()
DEVSET = BENCH / "devset.jsonl"
RESULTS = BENCH / "results" / "quality.json"
PYTHON = sys.executable
GNO = str(Path(PYTHON).parent / "gno")
MIB = 1024 * 1024
K = 10  # cut-off of every metric; every mode is asked for 10 results
EMBED_RSS_TARGET_MIB = 400
MODES = ("search", "vsearch", "query --fast", "query", "query --thorough")
KINDS = ("identifier", "keyword", "paraphrase", "non-english")
# "Today" of issue 12's targets: every retrieval stage it added switched off.
TODAY = {
    "embedWindows": False,
    "feedback": False,
    "vectorFeedback": False,
    "shapeWeights": False,
    "languagePreference": False,
    "plainQueryText": False,
    "halfTopBonus": False,
}


# --- the dev set and the metrics ----------------------------------------------------------


@dataclass(frozen=True)
class DevQuery:
    id: str
    kind: str
    lang: str
    query: str
    relevant: dict[str, int]  # relative path under the corpus root -> grade (3 answer .. 1 useful)
    half: str = "tune"  # "tune" (stages may be tuned on it) or "test" (held out)


def load_devset(path: Path = DEVSET) -> list[DevQuery]:
    """JSON lines; blank lines and lines starting with '#' are comments."""
    queries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            queries.append(DevQuery(**json.loads(line)))
    return queries


def dedupe(paths: list[str]) -> list[str]:
    """Each document once, at its first (best) rank."""
    return list(dict.fromkeys(paths))


def ndcg(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    """nDCG@k with gain 2^grade - 1 and log2(rank + 1) discount; unlabelled documents gain 0."""
    dcg = sum(
        (2 ** relevant.get(path, 0) - 1) / math.log2(rank + 1)
        for rank, path in enumerate(dedupe(ranked)[:k], start=1)
    )
    ideal = sorted(relevant.values(), reverse=True)[:k]
    best = sum((2**grade - 1) / math.log2(rank + 1) for rank, grade in enumerate(ideal, start=1))
    return dcg / best if best else 0.0


def mrr(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    """1 / rank of the first labelled document in the top k (0 when none)."""
    for rank, path in enumerate(dedupe(ranked)[:k], start=1):
        if relevant.get(path, 0) > 0:
            return 1.0 / rank
    return 0.0


def path_language(path: str) -> str:
    """The language of a corpus page: website/<lang>/… , everything else is English."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "website" else "en"


def recall(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    """Share of the labelled documents (any grade) found in the top k."""
    found = {path for path in dedupe(ranked)[:k] if relevant.get(path, 0) > 0}
    wanted = [path for path, grade in relevant.items() if grade > 0]
    return len(found) / len(wanted) if wanted else 0.0


STOPWORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "from",
        "that",
        "this",
        "what",
        "which",
        "how",
        "into",
        "does",
        "are",
        "can",
        "not",
        "its",
        "it's",
        "you",
        "your",
        "should",
        "would",
        "will",
        "when",
        "where",
        "who",
        "why",
        "than",
        "then",
        "them",
        "they",
        "their",
        "there",
        "has",
        "have",
        "had",
        "was",
        "were",
        "been",
        "being",
        "any",
        "all",
        "one",
        "only",
        "out",
        "off",
        "over",
        "about",
        "our",
        "ours",
    ]
)


def content_words(text: str) -> set[str]:
    """Lowercased words of 3+ letters, stop words dropped, cut to 5 letters (a crude stem)."""
    words = re.findall(r"[^\W\d_]{3,}", text.lower())
    return {w[:5] for w in words if w not in STOPWORDS}


def word_overlap(query: str, page: str) -> float:
    """Share of the query's content words (crude stems) that occur in the page."""
    wanted = content_words(query)
    return len(wanted & content_words(page)) / len(wanted) if wanted else 0.0


def check_devset(queries: list[DevQuery]) -> str:
    """Each paraphrase's word overlap with its grade-3 pages (the highest of them)."""
    lines, shares = [], []
    for q in queries:
        if q.kind != "paraphrase":
            continue
        pages = [p for p, g in q.relevant.items() if g == 3]
        share = max(word_overlap(q.query, (CORPUS / p).read_text(encoding="utf-8")) for p in pages)
        shares.append(share)
        lines.append(f"{q.id:<7}{share:>6.2f}  {q.query}")
    lines.append(f"mean overlap {statistics.mean(shares):.2f} over {len(shares)} paraphrases; "
                 f"{sum(1 for x in shares if x <= 0.5)} at or below 0.50")  # fmt: skip
    return "\n".join(lines)


# --- the corpus subset --------------------------------------------------------------------


def indexable(root: Path) -> list[str]:
    """Relative paths of the .md files gno's defaults index (hidden entries and `build` skipped)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "build")
        rel = Path(dirpath).relative_to(root)
        found += [
            (rel / name).as_posix()
            for name in filenames
            if name.endswith(".md") and not name.startswith(".")
        ]
    return sorted(found)


def other_languages(path: str, available: set[str]) -> set[str]:
    """The same website page in the other languages (website/<lang>/<rest>)."""
    parts = path.split("/")
    if len(parts) < 3 or parts[0] != "website":
        return set()
    rest = "/".join(parts[2:])
    langs = {p.split("/")[1] for p in available if p.startswith("website/")}
    return {f"website/{lang}/{rest}" for lang in langs} & available - {path}


def choose_subset(all_paths: list[str], queries: list[DevQuery], size: int, seed: int) -> list[str]:
    """Labelled documents + their translations (the distractors that trouble BM25 most on this
    corpus) + a seeded sample of the rest, up to `size` files."""
    available = set(all_paths)
    labelled = {path for q in queries for path in q.relevant}
    missing = sorted(labelled - available)
    if missing:
        sys.exit(f"bench: labelled documents not in the corpus: {missing}")
    forced = set(labelled)
    for path in labelled:
        forced |= other_languages(path, available)
    rest = sorted(available - forced)
    extra = random.Random(seed).sample(rest, max(0, min(len(rest), size - len(forced))))
    return sorted(forced | set(extra))


# --- child processes ----------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    seconds: float
    peak_rss_mib: float
    stdout: str
    cpu_s: float  # user + system CPU of the child
    others: float  # cores other processes kept busy meanwhile (this machine is shared)


def measured(argv: list[str], env: dict[str, str]) -> Measured:
    """One child: wall time (spawn to exit) and its own peak RSS from os.wait4."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start, busy = time.perf_counter(), busy_cpu_seconds()
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        cpu = usage.ru_utime + usage.ru_stime
        others = max(0.0, busy_cpu_seconds() - busy - cpu) / seconds
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped; tell Popen
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            sys.exit(
                f"bench: `{' '.join(argv)}` exited {proc.returncode}:\n"
                + err.read().decode(errors="replace")
            )
        return Measured(seconds, usage.ru_maxrss * 1024 / MIB, out.read().decode(), cpu, others)


def eval_worker(reps: int) -> None:
    """Child mode: every dev query through each mode on one warm App (the index named by the
    GNO_* variables). Pass 1 gives the rankings and warms up (model load, caches); then `reps`
    timed passes, query by query with the modes interleaved. Prints JSON."""
    from gno_contracts.models.query_input import QueryInput
    from gno_contracts.models.search_input import SearchInput

    from gno.app import App
    from gno.errors import GnoError
    from gno.paths import resolve_paths
    from gno.services.embed import vsearch
    from gno.services.query import query
    from gno.services.search import search

    app = App(resolve_paths())
    calls = {
        "search": lambda q: search(app, SearchInput(query=q, limit=K)),
        "vsearch": lambda q: vsearch(app, SearchInput(query=q, limit=K)),
        "query --fast": lambda q: query(app, QueryInput(query=q, limit=K, fast=True)),
        "query": lambda q: query(app, QueryInput(query=q, limit=K)),
        "query --thorough": lambda q: query(app, QueryInput(query=q, limit=K, thorough=True)),
    }
    queries = load_devset()
    out: dict[str, dict] = {mode: {} for mode in MODES}
    for q in queries:
        for mode in MODES:
            try:
                found = calls[mode](q.query)
                meta = found.meta.model_dump(exclude_unset=True)
                out[mode][q.id] = {
                    "paths": [r.source.relPath for r in found.results],
                    "meta": {k: meta[k] for k in ("mode", "reranked", "expanded") if k in meta},
                    "ms": [],
                }
            except GnoError as exc:  # counted as an empty answer, reported
                out[mode][q.id] = {"paths": [], "error": exc.message, "ms": []}
    for _ in range(reps):
        for q in queries:
            for mode in MODES:
                start = time.perf_counter()
                with contextlib.suppress(GnoError):  # recorded in pass 1
                    calls[mode](q.query)
                out[mode][q.id]["ms"].append((time.perf_counter() - start) * 1000)
    app.close()
    json.dump(out, sys.stdout, ensure_ascii=False)


# --- the pass -----------------------------------------------------------------------------


def set_retrieval(env: dict[str, str], switches: dict[str, object]) -> None:
    """Write the `retrieval:` block of the home's index.yml (the stage switches)."""
    import yaml

    path = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data.pop("retrieval", None)
    if switches:
        data["retrieval"] = switches
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def parse_switches(text: str | None) -> dict[str, object]:
    """`embedWindows=false,maxWindows=2` -> {"embedWindows": False, "maxWindows": 2}."""
    out: dict[str, object] = {}
    for item in filter(None, (text or "").split(",")):
        key, _, value = item.partition("=")
        out[key.strip()] = {"true": True, "false": False}.get(value.strip())
        if out[key.strip()] is None:
            out[key.strip()] = int(value)
    return out


def index_size(env: dict[str, str]) -> int:
    data = Path(env["GNO_DATA_DIR"])
    return sum(p.stat().st_size for p in data.glob("index-*.sqlite*"))


def embed_only(env: dict[str, str]) -> dict:
    """`gno embed` on an existing index (what a changed recipe still lacks), measured."""
    embed_env = {**env, "GNO_EMBED_MODEL": f"file:{MODEL}"}
    run = measured([GNO, "embed", "--json"], embed_env)
    result = json.loads(run.stdout)
    return {"chunks_embedded": result["embedded"], "embed_errors": result["errors"],
            "embed_wall_s": run.seconds, "embed_handler_s": result["duration"],
            "embed_cpu_s": run.cpu_s, "embed_other_cores": run.others,
            "embed_peak_rss_mib": run.peak_rss_mib, "index_bytes": index_size(env)}  # fmt: skip


def build_index(env: dict[str, str], source: Path, switches: dict[str, object]) -> dict:
    """init + update (timed for information), then `gno embed` measured."""
    measured([GNO, "init", str(source), "--name", "otel", "--yes"], env)
    set_retrieval(env, switches)
    update = measured([GNO, "update", "--json"], env)
    synced = json.loads(update.stdout)
    embed_env = {**env, "GNO_EMBED_MODEL": f"file:{MODEL}"}
    run = measured([GNO, "embed", "--json"], embed_env)
    result = json.loads(run.stdout)
    chunks, handler_s = result["embedded"], result["duration"]
    return {
        "docs": synced.get("totalFilesProcessed"),
        "update_s": update.seconds,
        "chunks_embedded": chunks,
        "embed_errors": result["errors"],
        "embed_wall_s": run.seconds,
        "embed_handler_s": handler_s,
        "chunks_per_s": chunks / handler_s if handler_s else 0.0,
        "chunks_per_s_wall": chunks / run.seconds,
        "embed_peak_rss_mib": run.peak_rss_mib,
        "embed_cpu_s": run.cpu_s,
        "embed_other_cores": run.others,
    }


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (share in 0..1) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def summarize(per_query: dict[str, dict], queries: list[DevQuery]) -> dict:
    """Mean nDCG@10, recall@10, MRR and "first hit in the query's language" of these queries."""
    rows = [per_query[q.id] for q in queries]
    if not rows:
        return {}
    return {
        "n": len(rows),
        **{key: statistics.mean(r[key] for r in rows) for key in ("ndcg", "recall", "mrr")},
        "first_in_lang": statistics.mean(r["first_in_lang"] for r in rows),
    }


def evaluate(env: dict[str, str], reps: int, queries: list[DevQuery]) -> dict:
    embed_env = {**env, "GNO_EMBED_MODEL": os.environ.get("GNO_BENCH_QUERY_MODEL", f"file:{MODEL}")}
    run = measured([PYTHON, __file__, "--eval-worker", str(reps)], embed_env)
    raw = json.loads(run.stdout)
    modes = {}
    for mode in MODES:
        per_query = {}
        for q in queries:
            got = raw[mode][q.id]
            top = dedupe(got["paths"])
            per_query[q.id] = {
                "ndcg": ndcg(got["paths"], q.relevant),
                "recall": recall(got["paths"], q.relevant),
                "mrr": mrr(got["paths"], q.relevant),
                "first_in_lang": float(bool(top) and path_language(top[0]) == q.lang),
                "median_ms": statistics.median(got["ms"]),
                "max_ms": max(got["ms"]),
                "results": len(got["paths"]),
                "top": top[:3],
                **({"error": got["error"]} if "error" in got else {}),
                **({"meta": got["meta"]} if got.get("meta") else {}),
            }
        calls = [ms for q in queries for ms in raw[mode][q.id]["ms"]]
        groups = {
            f"{half}/{kind}": summarize(
                per_query,
                [q for q in queries if half in ("all", q.half) and kind in ("all", q.kind)],
            )
            for half in ("tune", "test", "all")
            for kind in ("all", *KINDS)
        }
        modes[mode] = {
            "ndcg": statistics.mean(r["ndcg"] for r in per_query.values()),
            "recall": statistics.mean(r["recall"] for r in per_query.values()),
            "mrr": statistics.mean(r["mrr"] for r in per_query.values()),
            "ndcg_by_kind": {k: groups[f"all/{k}"]["ndcg"] for k in KINDS if groups[f"all/{k}"]},
            "groups": groups,
            "empty": sum(1 for r in per_query.values() if r["results"] == 0),
            "errors": sum(1 for r in per_query.values() if "error" in r),
            "reranked": sum(1 for r in per_query.values() if r.get("meta", {}).get("reranked")),
            "expanded": sum(1 for r in per_query.values() if r.get("meta", {}).get("expanded")),
            "latency_median_ms": statistics.median(r["median_ms"] for r in per_query.values()),
            "latency_p50_ms": percentile(calls, 0.50),
            "latency_p95_ms": percentile(calls, 0.95),
            "latency_max_ms": max(r["max_ms"] for r in per_query.values()),
            "per_query": per_query,
        }
    return {"query_process_peak_rss_mib": run.peak_rss_mib, "query_other_cores": run.others,
            "reps": reps, "modes": modes}  # fmt: skip


@contextmanager
def gno_home(home: Path | None) -> Iterator[dict[str, str]]:
    """A fresh temp gno home (bench/run.py's `workspace`), or the given folder, kept."""
    if home is None:
        with workspace("quality") as env:
            yield env
        return
    env = {**os.environ, "GNO_CONFIG_DIR": str(home / "config"), "GNO_DATA_DIR": str(home / "data"),
           "GNO_CACHE_DIR": str(home / "cache"), "PYTHONPYCACHEPREFIX": str(home / "pycache")}  # fmt: skip
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    yield env


def run_pass(
    paths: list[str] | None,
    reps: int,
    queries: list[DevQuery],
    home: Path | None,
    switches: dict[str, object],
    embed_again: bool = False,
    baseline: dict[str, object] | None = None,
) -> dict:
    """Index the subset copied in (paths) or the corpus itself (None), then evaluate. With
    `home`, an index built there by an earlier run for the same files is reused as it is.
    With `baseline`, the same index is evaluated a second time under those switches."""
    with gno_home(home) as env:
        root = Path(env["GNO_DATA_DIR"]).parent
        marker = root / "quality-files.json"
        wanted = json.dumps({"corpus": str(CORPUS), "paths": paths})
        if home is not None and marker.is_file():
            if marker.read_text(encoding="utf-8") != wanted:
                sys.exit(f"bench: {home} holds an index of other files; remove it or pick another")
            print(f"bench: reusing the index in {home}")
            set_retrieval(env, switches)
            index = None
            if embed_again:
                print("bench: embedding what the current recipe lacks …", flush=True)
                index = embed_only(env)
        else:
            source = CORPUS
            if paths is not None:
                source = root / "corpus"
                for rel in paths:
                    (source / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(CORPUS / rel, source / rel)
            what = "the corpus" if paths is None else f"{len(paths)} files"
            print(f"bench: indexing and embedding {what} …", flush=True)
            index = build_index(env, source, switches)
            marker.write_text(wanted, encoding="utf-8")
        print(f"bench: {len(queries)} queries × {len(MODES)} modes …", flush=True)
        if index is not None:
            index["index_bytes"] = index_size(env)
        result = {"index": index, "retrieval": switches, **evaluate(env, reps, queries)}
        if baseline is not None:
            print("bench: the same queries with every issue-12 stage off …", flush=True)
            set_retrieval(env, baseline)
            result["baseline"] = evaluate(env, reps, queries)["modes"]
            set_retrieval(env, switches)
        return result


# --- report -------------------------------------------------------------------------------


def index_lines(ix: dict, label: str) -> list[str]:
    if "docs" not in ix:  # embed_only on a reused index
        per = ix["chunks_embedded"] / ix["embed_handler_s"] if ix["embed_handler_s"] else 0.0
        return [
            f"{label}: index reused; gno embed {ix['embed_wall_s']:.1f} s wall for "
            f"{ix['chunks_embedded']} chunks ({per:.2f} chunks/s), {ix['embed_errors']} errors, "
            f"{ix['embed_cpu_s']:.1f} CPU s; other processes kept {ix['embed_other_cores']:.2f} cores busy",
            f"index size {ix['index_bytes'] / MIB:.1f} MiB; peak RSS {ix['embed_peak_rss_mib']:.0f} MiB",
        ]
    rss = ix["embed_peak_rss_mib"]
    verdict = "PASS" if rss <= EMBED_RSS_TARGET_MIB else "MISS"
    return [
        f"{label}: {ix['docs']} docs, {ix['chunks_embedded']} chunks "
        f"(gno update {ix['update_s']:.1f} s)",
        f"gno embed: {ix['embed_wall_s']:.1f} s wall, {ix['chunks_per_s']:.2f} chunks/s "
        f"({ix['chunks_per_s_wall']:.2f} incl. process start and model load), "
        f"{ix['embed_errors']} errors",
        f"  {ix['embed_cpu_s'] / max(1, ix['chunks_embedded']):.2f} CPU s per chunk; other processes "
        f"kept {ix['embed_other_cores']:.2f} cores busy meanwhile",
        f"peak RSS while embedding: {rss:.0f} MiB (target ≤ {EMBED_RSS_TARGET_MIB}) {verdict}",
        f"index size {ix.get('index_bytes', 0) / MIB:.1f} MiB",
    ]


def format_report(result: dict, label: str) -> str:
    ix, modes = result["index"], result["modes"]
    lines = [f"{label}: index reused"] if ix is None else index_lines(ix, label)
    lines += [
        f"peak RSS of the query process (index + model): {result['query_process_peak_rss_mib']:.0f} MiB;"
        f" other processes kept {result['query_other_cores']:.2f} cores busy meanwhile",
        "",
        f"{'mode':<18}{'nDCG@10':>9}{'recall@10':>11}{'MRR':>7}{'empty':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}",
    ]
    for mode in MODES:
        m = modes[mode]
        lines.append(
            f"{mode:<18}{m['ndcg']:>9.3f}{m['recall']:>11.3f}{m['mrr']:>7.3f}{m['empty']:>7}"
            f"{m['latency_p50_ms']:>9.1f}{m['latency_p95_ms']:>9.1f}{m['latency_max_ms']:>9.1f}"
        )
    for half in ("tune", "test", "all"):
        for metric, title in (("ndcg", "nDCG@10"), ("recall", "recall@10"), ("mrr", "MRR"),
                              ("first_in_lang", "first hit in the query's language")):  # fmt: skip
            lines += ["", f"{half} half — {title}" if half != "all" else f"both halves — {title}"]
            lines.append(f"{'kind':<22}" + "".join(f"{mode:>18}" for mode in MODES))
            for kind in ("all", *KINDS):
                group = modes[MODES[0]]["groups"][f"{half}/{kind}"]
                if not group:
                    continue
                cells = "".join(
                    f"{modes[mode]['groups'][f'{half}/{kind}'][metric]:>18.3f}" for mode in MODES
                )
                name = f"{kind} ({group['n']})"
                lines.append(f"{name:<22}{cells}")
    notes = [
        f"{mode}: {modes[mode][key]} {key}"
        for mode in MODES
        for key in ("errors", "reranked", "expanded")
        if modes[mode][key]
    ]
    if notes:
        lines += ["", "; ".join(notes)]
    return "\n".join(lines)


def target_lines(result: dict) -> list[str]:
    """Issue 12's targets on the test half: this run's defaults against the same queries with
    every stage off ("today"), each recorded for `make bench`'s summary."""
    now, today = result["modes"], result["baseline"]

    def test(modes: dict, kind: str, mode: str = "query") -> float:
        return modes[mode]["groups"][f"test/{kind}"]["ndcg"]

    rows = [
        ("hybrid query nDCG@10, test half", test(now, "all"), f"≥ 1.25 × {test(today, 'all'):.3f}",
         test(now, "all") >= 1.25 * test(today, "all")),
        ("hybrid query, lowest kind", min(test(now, k) for k in KINDS), "≥ 0.35",
         min(test(now, k) for k in KINDS) >= 0.35),
        ("hybrid query, paraphrase kind", test(now, "paraphrase"), "≥ 0.35",
         test(now, "paraphrase") >= 0.35),
        ("hybrid query, non-English kind", test(now, "non-english"), "≥ 0.45",
         test(now, "non-english") >= 0.45),
    ]  # fmt: skip
    for kind in ("identifier", "keyword"):
        was = test(today, kind)
        rows.append((f"hybrid query, {kind} kind, not lower", test(now, kind), f"≥ {was:.3f}",
                     test(now, kind) >= was - 1e-9))  # fmt: skip
    p95 = now["query"]["latency_p95_ms"]
    lines = [f"{'issue 12 target (test half, MiniLM)':<44}{'now':>8}  {'target':<16}"]
    for label, value, target, ok in rows:
        word = verdict(12, label, f"{value:.3f}", target, ok)
        lines.append(f"{label:<44}{value:>8.3f}  {target:<16}{word}")
    word = verdict(12, "query in-process p95, ms", f"{p95:.1f}", "≤ 60", p95 <= 60)
    lines.append(f"{'query in-process p95, ms':<44}{p95:>8.1f}  {'≤ 60':<16}{word}")
    if not result["retrieval"].get("embedWindows"):
        verdict(12, "embed time per chunk with windows", "windows off", "≤ 2 × today", None)
        lines.append("embed time per chunk with windows: SKIP (windows are off by default)")
    return lines


def format_per_query(result: dict, queries: list[DevQuery]) -> str:
    lines = [f"{'id':<7}" + "".join(f"{mode:>14}" for mode in MODES) + "   query (nDCG@10)"]
    for q in queries:
        cells = "".join(f"{result['modes'][m]['per_query'][q.id]['ndcg']:>14.2f}" for m in MODES)
        lines.append(f"{q.id:<7}{cells}   {q.query}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=400, help="subset size (default 400)")
    parser.add_argument("--seed", type=int, default=20261129, help="seed of the sample")
    parser.add_argument("--reps", type=int, default=3, help="timed calls per query and mode")
    parser.add_argument("--full", action="store_true", help="index and embed the whole corpus")
    parser.add_argument("--per-query", action="store_true", help="print nDCG@10 per query")
    parser.add_argument("--home", type=Path, help="gno home to build in and keep, or to reuse")
    parser.add_argument("--retrieval", help="retrieval switches for index.yml, e.g. "
                        "feedback=false,maxWindows=2 (default: every stage on)")  # fmt: skip
    parser.add_argument("--embed", action="store_true", help="with --home: run gno embed first")
    parser.add_argument("--check-devset", action="store_true", help="paraphrase word overlap")
    parser.add_argument("--label", help="also write bench/results/quality-<label>.json")
    parser.add_argument("--targets", action="store_true",
                        help="also evaluate with every stage off and print issue 12's targets")  # fmt: skip
    parser.add_argument("--eval-worker", type=int, metavar="REPS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.eval_worker is not None:
        eval_worker(args.eval_worker)
        return
    if args.check_devset:
        print(check_devset(load_devset()))
        return
    if not CORPUS.is_dir() or not MODEL.is_file():
        print(
            f"bench: quality needs the corpus {CORPUS} and the model {MODEL} "
            "(GNO_BENCH_CORPUS / GNO_BENCH_MODEL); skipping."
        )
        return
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        print("bench: quality needs llama-cpp-python (pip install 'gno[models]'); skipping.")
        return

    queries = load_devset()
    all_paths = indexable(CORPUS)
    paths = None if args.full else choose_subset(all_paths, queries, args.files, args.seed)
    label = "whole corpus" if args.full else f"subset of {len(paths)} files (seed {args.seed})"
    print(f"bench: {machine()}, Python {platform.python_version()}, {label}, model {MODEL.name}")

    started, busy, own = time.perf_counter(), busy_cpu_seconds(), own_cpu_seconds()
    home = args.home.resolve() if args.home else None
    baseline = TODAY if args.targets else None
    switches = parse_switches(args.retrieval)
    result = run_pass(paths, args.reps, queries, home, switches, args.embed, baseline)
    elapsed = time.perf_counter() - started
    others = max(0.0, (busy_cpu_seconds() - busy) - (own_cpu_seconds() - own)) / elapsed
    result["kinds"] = {kind: sum(1 for q in queries if q.kind == kind) for kind in KINDS}

    print()
    print(format_report(result, label))
    if args.per_query:
        print()
        print(format_per_query(result, queries))
    if args.targets:
        print()
        print("\n".join(target_lines(result)))
    print(f"\nbench: done in {elapsed:.0f} s; other processes used {others:.2f} cores on average")
    if others > 0.1:
        print("bench: warning: the machine was not idle; timings are inflated.")

    RESULTS.parent.mkdir(exist_ok=True)
    text = (
        json.dumps(
            {
                "date": datetime.now(UTC).isoformat(timespec="seconds"),
                "machine": machine(),
                "python": platform.python_version(),
                "other_cpu_cores": others,
                "elapsed_s": elapsed,
                "corpus": str(CORPUS),
                "model": str(MODEL),
                "subset": {"files": len(paths), "seed": args.seed, "paths": paths}
                if paths is not None
                else None,
                "queries": len(queries),
                **result,
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )
    targets = [RESULTS] + ([RESULTS.with_name(f"quality-{args.label}.json")] if args.label else [])
    for target in targets:
        target.write_text(text, encoding="utf-8")
        print(f"bench: wrote {target.relative_to(BENCH.parent)}")


if __name__ == "__main__":
    main()
