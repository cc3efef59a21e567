"""A fixed corpus for pinning search results (tests/services/test_search_pinned.py).

Generated, not stored: 80 Markdown notes drawn from a small vocabulary by a seeded
``random.Random`` (its output for a given seed is stable across CPython versions), with
word families that share stems (sample/sampling/sampler, process/processor, export/
exporter, trace/tracing/tracer …) so prefix matching, stemming and BM25's weighting all
decide the order; plus titles, tags, a code fence, Spanish and Japanese notes, and two
near-duplicates whose order only the scores settle.
"""

from __future__ import annotations

import random

SEED = 20261202
FAMILIES = [
    "sample sampling sampler samples sampled",
    "process processor processing processes",
    "export exporter exporting exports exported",
    "trace traces tracing tracer traced",
    "metric metrics metered",
    "instrument instrumentation instrumented instruments",
    "collect collector collecting collection",
    "span spans spanning",
    "propagate propagation propagator",
    "batch batching batches",
    "memory memorize",
    "limit limiter limits limited",
    "histogram histograms",
    "bucket buckets bucketing",
    "endpoint endpoints",
    "resource resources",
    "attribute attributes",
    "context contexts contextual",
    "deploy deployment deploying",
    "config configuration configure configured",
]
FILLER = [
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "for",
    "with",
    "on",
    "by",
    "from",
    "that",
    "this",
    "is",
    "are",
    "be",
    "as",
    "at",
    "or",
    "an",
    "it",
    "its",
    "when",
    "each",
    "every",
    "other",
    "some",
    "most",
    "only",
    "more",
    "less",
    "before",
    "after",
    "between",
    "under",
    "over",
]
SPANISH = [
    "el",
    "muestreo",
    "de",
    "trazas",
    "reduce",
    "volumen",
    "datos",
    "la",
    "recolección",
    "métricas",
    "exportador",
]
JAPANESE = ["サンプリング", "トレース", "エクスポーター", "メトリクス", "コレクター"]


def _sentence(rng: random.Random, words: list[str]) -> str:
    picked = [
        rng.choice(words) if rng.random() < 0.6 else rng.choice(FILLER)
        for _ in range(rng.randint(6, 16))
    ]
    return " ".join(picked).capitalize() + "."


def corpus() -> dict[str, str]:
    rng = random.Random(SEED)
    families = [f.split() for f in FAMILIES]
    files: dict[str, str] = {}
    for n in range(70):
        topics = rng.sample(families, rng.randint(2, 4))
        words = [w for family in topics for w in family]
        title = " ".join(rng.choice(f) for f in topics).title()
        tags = ", ".join(sorted({f[0] for f in topics}))
        paragraphs = [
            " ".join(_sentence(rng, words) for _ in range(rng.randint(1, 4)))
            for _ in range(rng.randint(1, 5))
        ]
        body = "\n\n".join(paragraphs)
        if n % 9 == 0:
            body += f"\n\n```\n{topics[0][0]}_setting = {n}\n```\n"
        folder = ("guides", "reference", "notes")[n % 3]
        files[f"{folder}/note-{n:02d}.md"] = (
            f"---\ntitle: {title}\ntags: [{tags}]\n---\n# {title}\n\n{body}\n"
        )
    for n in range(5):
        text = " ".join(rng.choice(SPANISH) for _ in range(rng.randint(8, 20)))
        files[f"es/nota-{n}.md"] = f"# Nota {n}\n\n{text}.\n"
    for n in range(3):
        text = "".join(rng.choice(JAPANESE) + "の設定。" for _ in range(rng.randint(3, 8)))
        files[f"ja/memo-{n}.md"] = f"# メモ {n}\n\n{text}\n"
    twin = "Tail sampling processor keeps slow traces; the batch exporter sends them.\n"
    files["twins/first.md"] = f"# Twin\n\n{twin}"
    files["twins/second.md"] = f"# Twin\n\n{twin}{twin}"
    return files


QUERIES = [
    "sampling",
    "sample",
    "tail sampling processor",
    "batch exporter",
    "tracer propagation",
    "memory limiter",
    "histogram buckets",
    "instrumentation",
    "collector configuration deployment",
    '"sampling processor"',
    "endpoint resource attributes",
    "context propagator",
    "processing",
    "export",
    "spans metrics traces",
    "the only sampler",
    "muestreo de trazas",
    "サンプリング",
    "metered histograms limited",
    "zebra sampling",  # one term matches nothing: the any-term fallback
    "sample_setting",
    "configured instrumented",
]
