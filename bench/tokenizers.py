"""Why gno's FTS5 tokenizer is `porter unicode61` plus CJK bigrams: a side-by-side on the corpus.

For each setup, builds a contentless FTS5 table over the canonical mirrors and counts documents
matching a few CJK, Spanish and English queries. `grep -rl <term>` gives the true number of files
containing each CJK term, to compare with. Run: `.venv/bin/python bench/tokenizers.py [corpus]`.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import apsw

from gno.core.fts import index_text, parse_query
from gno.core.mirror import canonicalize

CORPUS = Path(
    sys.argv[1]
    if len(sys.argv) > 1
    else Path(__file__).resolve().parents[2] / "shared/corpora/opentelemetry-docs"
)
QUERIES = [
    "サンプリング",
    "トレース",
    "采样",
    "追踪",
    "muestreo de trazas",
    "deciding",
    "sampling processor",
]
SETUPS = {  # name -> (tokenize argument, apply gno's CJK bigram transform)
    "unicode61": ("unicode61 remove_diacritics 2", False),
    "porter unicode61": ("porter unicode61 remove_diacritics 2", False),
    "trigram": ("trigram", False),
    "porter unicode61 + CJK bigrams (gno)": ("porter unicode61 remove_diacritics 2", True),
}


def plain_match(query: str, trigram: bool) -> str:
    words = [w for w in query.split() if not trigram or len(w) >= 3] or [query]
    return " AND ".join(f'"{w}"' for w in words)


def main() -> None:
    if not CORPUS.is_dir():
        print(f"corpus not found: {CORPUS} (skipped)")
        return
    texts = [
        canonicalize(p.read_text(encoding="utf-8", errors="replace"))
        for p in sorted(CORPUS.rglob("*.md"))
    ]
    truth = [sum(q in t for t in texts) for q in QUERIES[:4]]
    print(
        f"{len(texts)} files; files containing each CJK term: "
        + ", ".join(f"{q} {n}" for q, n in zip(QUERIES[:4], truth, strict=True))
    )
    print("| setup | build s | FTS MB | " + " | ".join(QUERIES) + " |")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (tokenize, bigrams) in SETUPS.items():
            path = os.path.join(tmp, f"{len(name)}.db")
            conn = apsw.Connection(path)
            conn.execute(
                f"CREATE VIRTUAL TABLE f USING fts5(body, content='', tokenize='{tokenize}')"
            )
            started = time.perf_counter()
            with conn:
                conn.executemany(
                    "INSERT INTO f (rowid, body) VALUES (?, ?)",
                    [(i, index_text(t) if bigrams else t) for i, t in enumerate(texts)],
                )
            build = time.perf_counter() - started
            counts = []
            for q in QUERIES:
                expr = (
                    parse_query(q).match_all() if bigrams else plain_match(q, tokenize == "trigram")
                )
                counts.append(
                    conn.execute("SELECT count(*) FROM f WHERE f MATCH ?", (expr,)).fetchone()[0]
                )
            conn.close()
            size = os.path.getsize(path) / 1e6
            print(f"| {name} | {build:.2f} | {size:.1f} | " + " | ".join(map(str, counts)) + " |")


if __name__ == "__main__":
    main()
