"""KNN layouts in sqlite-vec 0.1.9: latency, recall@10 and size at 100k × 384-d vectors.

Target: top-10 in ≤ 15 ms with recall@10 ≥ 0.99 against exact (numpy) search. Uniform random
vectors make quantized search look far worse than it is, so the main data set is a seeded mixture
of topic clusters with a shared, anisotropic component, calibrated against real MiniLM embeddings of
opentelemetry-docs chunks (embedded once, cached in bench/results/), which are the sanity check.
The last rows measure gno itself: ``SqliteStore.knn`` (planner, two-bit codes in 8 shards, exact
rescoring, owner filters inside) over an index written by ``save_embeddings``.
Run: `.venv/bin/python bench/knn.py [--n 100000] [--real 2000] [--store-only]`.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import apsw
import numpy as np

from gno.adapters.sqlite.vectors import vec_extension_path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "opentelemetry-docs"
MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-f16.gguf"
CACHE = ROOT / "bench" / "results" / "knn-minilm.npy"  # git-ignored
DIMS, TOP, N_QUERIES = 384, 10, 50
EDGE = 0.4 / DIMS**0.5  # 0.4 σ of a unit vector's coordinate (beat 0.6 σ and 0.8 σ in a sweep)

FLOAT, BIT = "embedding float[384] distance_metric=cosine", "embedding bit[384]"
BIT2 = "embedding bit[768]"
SHARD = "shard integer partition key"  # shard = rowid % shards; knn_sql says why
# 2 bits per dimension (x > -EDGE, x > EDGE): Hamming distance = L1 distance on 3 levels, a much
# better ranking than sign bits. Pure SQL: :lo / :hi are constant vectors of -EDGE / EDGE, `||`
# joins the two 48-byte bit blobs (as text, hence the CAST back to a blob).
TO_BIT2 = (
    "vec_bit(CAST(vec_quantize_binary(vec_sub(:x, :lo))"
    " || vec_quantize_binary(vec_sub(:x, :hi)) AS BLOB))"
)
EDGES = {
    "lo": np.full(DIMS, -EDGE, np.float32).tobytes(),
    "hi": np.full(DIMS, EDGE, np.float32).tobytes(),
}
# index: (vec0 columns, SQL that turns the float32 blob :x into the column's type, shards)
INDEXES = {
    "float": (FLOAT, ":x", 0),
    "float+coll": (f"{FLOAT}, collection text", ":x", 0),
    "int8": ("embedding int8[384]", "vec_quantize_int8(:x, 'unit')", 0),
    "bit": (BIT, "vec_quantize_binary(:x)", 0),
    "bit/16": (f"{SHARD}, {BIT}", "vec_quantize_binary(:x)", 16),
    "bit2": (BIT2, TO_BIT2, 0),
    "bit2/8": (f"{SHARD}, {BIT2}", TO_BIT2, 8),
    "bit2/16": (f"{SHARD}, {BIT2}", TO_BIT2, 16),
    "bit2/16+coll": (f"{SHARD}, {BIT2}, collection text", TO_BIT2, 16),
}
# Where rescoring reads exact vectors (joined to candidates `c`, as `f`), in the attached DB `fl`:
# `floats` is a plain rowid table; chunk_vectors + text_vectors is gno's schema (float blobs in a
# WITHOUT ROWID table keyed by text hash).
PLAIN = "JOIN fl.floats f ON f.rowid = c.rowid"
GNO = ("JOIN fl.chunk_vectors cv ON cv.id = c.rowid JOIN fl.text_vectors f "
       "ON f.model_id = cv.model_id AND f.text_hash = cv.text_hash")  # fmt: skip
NUMPY = "numpy"  # not SQL: Hamming over the codes held in RAM, top k rescored in SQL
# (label, index, k (per shard), rescore source or None, filter on collection)
VARIANTS = [
    ("float cosine (gno before m3)", "float", 10, None, False),
    ("float cosine, collection = ?", "float+coll", 10, None, True),
    ("int8 k=10", "int8", 10, None, False),
    ("int8 k=40 + rescore", "int8", 40, PLAIN, False),
    ("int8 k=80 + rescore", "int8", 80, PLAIN, False),
    ("bit k=10", "bit", 10, None, False),
    ("bit k=100 + rescore", "bit", 100, PLAIN, False),
    ("bit k=200 + rescore", "bit", 200, PLAIN, False),
    ("bit k=400 + rescore", "bit", 400, PLAIN, False),
    ("bit 16 shards x k=25 + rescore", "bit/16", 25, PLAIN, False),
    ("bit 16 shards x k=50 + rescore", "bit/16", 50, PLAIN, False),
    ("bit2 k=10", "bit2", 10, None, False),
    ("bit2 k=200 + rescore", "bit2", 200, PLAIN, False),
    ("bit2 8 shards x k=25 + rescore", "bit2/8", 25, PLAIN, False),
    ("bit2 16 shards x k=16 + rescore", "bit2/16", 16, PLAIN, False),
    ("  same, rescore from gno's text_vectors", "bit2/16", 16, GNO, False),
    ("  same, collection = ?", "bit2/16+coll", 16, PLAIN, True),
    ("  same, collection = ?, k=32", "bit2/16+coll", 32, PLAIN, True),
    ("  same codes in RAM, numpy top 200", "bit2/16", 200, NUMPY, False),
]


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def synthetic(n: int, topics: int = 200, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors shaped like MiniLM embeddings; returns (vectors, topic of each).

    The weights were fitted so that mean cosine, nearest-neighbour cosines and the recall of sign
    bits match the real sample at the same size (the bits do slightly worse here: conservative).
    """
    rng = np.random.default_rng(seed)
    # Anisotropy: a random rotation of a decaying spectrum, so a few directions carry most variance.
    rotation = np.linalg.qr(rng.standard_normal((DIMS, DIMS)))[0]
    shape = (rotation * (np.arange(1, DIMS + 1) ** -0.5)).T
    common = unit(rng.standard_normal((1, DIMS)) @ shape)  # all embeddings lean one way
    centroids = unit(rng.standard_normal((topics, DIMS)) @ shape)
    sizes = 1.0 / np.arange(1, topics + 1) ** 0.8  # a few big topics, a long tail
    topic = rng.choice(topics, size=n, p=sizes / sizes.sum())
    spread = rng.uniform(0.8, 1.4, topics)[topic, None]  # tight and loose topics
    noise = unit(rng.standard_normal((n, DIMS)) @ shape)
    return unit(0.8 * common + centroids[topic] + spread * noise), topic


def real_sample(limit: int, budget_s: float = 170.0) -> np.ndarray | None:
    """MiniLM vectors of up to `limit` random corpus chunks, embedded within the time budget."""
    if CACHE.is_file() and len(cached := np.load(CACHE)) >= min(limit, 1000):
        return cached[:limit]
    if not (MODEL.is_file() and CORPUS.is_dir()):
        return None
    from gno.adapters.llama.embedder import LlamaEmbedder
    from gno.core.chunker import chunk_text
    from gno.core.embedding_text import document_text

    texts = []
    for path in sorted(CORPUS.rglob("*.md")):
        text = path.read_text(errors="replace")
        texts += [document_text("minilm", path.stem, text[c.pos : c.end]) for c in chunk_text(text)]
    picked = np.random.default_rng(11).permutation(len(texts))[:limit]
    # 1 thread and 128 tokens: ~1,800 chunks fit in the budget even with the other core busy.
    embedder = LlamaEmbedder(MODEL, n_threads=1, max_tokens=128)
    vectors, started = [], time.perf_counter()
    for i in picked:
        vectors += embedder.embed_batch([texts[i]])
        if time.perf_counter() - started > budget_s:
            break
    print(f"embedded {len(vectors)} real chunks in {time.perf_counter() - started:.0f} s")
    CACHE.parent.mkdir(exist_ok=True)
    np.save(CACHE, result := np.asarray(vectors, dtype=np.float32))
    return result


def connect(path: str) -> apsw.Connection:
    """A connection set up like gno's store (WAL, 64 MiB page cache) with sqlite-vec loaded."""
    conn = apsw.Connection(path)
    conn.enable_load_extension(True)
    conn.load_extension(vec_extension_path())
    conn.execute(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536"
    )
    return conn


def build_floats(path: str, vectors: np.ndarray) -> dict[str, float]:
    """The rescoring sources (a plain rowid table; gno's tables); MiB per table."""
    conn = connect(path)
    conn.execute(
        "CREATE TABLE floats (rowid INTEGER PRIMARY KEY, embedding BLOB NOT NULL);"
        "CREATE TABLE text_vectors (model_id INTEGER, text_hash TEXT, embedding BLOB NOT NULL,"
        " PRIMARY KEY (model_id, text_hash)) WITHOUT ROWID;"
        "CREATE TABLE chunk_vectors (id INTEGER PRIMARY KEY, model_id INTEGER, text_hash TEXT);"
    )
    blobs = [v.tobytes() for v in vectors]
    hashes = [hashlib.sha256(b"%d" % i).hexdigest() for i in range(len(blobs))]  # chunks repeat
    with conn:
        conn.executemany("INSERT INTO floats VALUES (?, ?)", enumerate(blobs, 1))
        conn.executemany(
            "INSERT INTO text_vectors VALUES (1, ?, ?)", zip(hashes, blobs, strict=True)
        )
        conn.executemany("INSERT INTO chunk_vectors VALUES (?, 1, ?)", enumerate(hashes, 1))
    sizes = dict(conn.execute("SELECT name, sum(pgsize) / 1048576.0 FROM dbstat GROUP BY name"))
    conn.close()
    return sizes


def build_index(path: str, name: str, vectors: np.ndarray, colls: list[str]) -> float:
    """Create one vec0 table in its own file (so the file size is the index alone); seconds."""
    columns, to_column, shards = INDEXES[name]
    extra = [col for col in ("shard", "collection") if col in columns]
    started = time.perf_counter()
    conn = connect(path)
    conn.execute(f"CREATE VIRTUAL TABLE v USING vec0({columns})")
    rows = (
        {"rowid": i, "x": v.tobytes(), "collection": c, "shard": i % (shards or 1)} | EDGES
        for i, (v, c) in enumerate(zip(vectors, colls, strict=True), 1)
    )
    names = ", ".join(["rowid", "embedding", *extra])
    values = ", ".join([":rowid", to_column, *(f":{col}" for col in extra)])
    with conn:  # in rowid order, as gno inserts: round-robin over the shards
        conn.executemany(f"INSERT INTO v ({names}) VALUES ({values})", rows)
    conn.close()
    return time.perf_counter() - started


def knn_sql(name: str, k: int, rescore: str | None, filtered: bool) -> str:
    """Top-10 rowids. With rescoring, the quantized candidates are re-ranked by exact cosine.

    vec0 0.1.9's cost grows with rows × k (bit[384]: k = 400 costs ~12× k = 10), so with shards
    each shard (a partition, rowid % shards) is asked for k rows and the UNION ALL of all shards
    is rescored: as many candidates at a fraction of the cost.
    """
    _, to_column, shards = INDEXES[name]
    where = f"embedding MATCH {to_column.replace(':x', ':q')} AND k = {k}"
    where += " AND collection = :c" if filtered else ""
    wheres = [f"{where} AND shard = {s}" for s in range(shards)] if shards else [where]
    candidates = " UNION ALL ".join(f"SELECT rowid FROM v WHERE {w}" for w in wheres)
    if rescore is None:
        return candidates
    return (
        f"SELECT c.rowid FROM ({candidates}) c {rescore} "
        f"ORDER BY vec_distance_cosine(f.embedding, :q) LIMIT {TOP}"
    )


def numpy_search(conn: apsw.Connection, k: int):
    """Hamming distances over all codes in RAM (loaded once, as a server would), then SQL rescore."""
    ids, blobs = zip(*conn.execute("SELECT rowid, embedding FROM v"), strict=True)
    codes, rowids = np.frombuffer(b"".join(blobs), np.uint64).reshape(len(ids), -1), np.array(ids)
    code_sql = f"SELECT {TO_BIT2.replace(':x', ':q')}"

    def search(params: dict) -> set[int]:
        query = np.frombuffer(conn.execute(code_sql, params).fetchone()[0], np.uint64)
        nearest = rowids[np.argpartition(np.bitwise_count(codes ^ query).sum(axis=1), k)[:k]]
        ids = ",".join(map(str, nearest.tolist()))
        return {r[0] for r in conn.execute(f"SELECT rowid FROM fl.floats WHERE rowid IN ({ids}) "
                                           f"ORDER BY vec_distance_cosine(embedding, :q) LIMIT {TOP}", params)}  # fmt: skip

    return search, codes.nbytes / 2**20


def exact(vectors: np.ndarray, queries: np.ndarray, allowed: np.ndarray | None) -> list[set[int]]:
    """Brute-force top-10 rowids (1-based) by cosine: the reference for recall."""
    scores = queries @ vectors.T
    if allowed is not None:
        scores[:, ~allowed] = -np.inf
    return [set((np.argpartition(-row, TOP)[:TOP] + 1).tolist()) for row in scores]


def gno_store(path: str, vectors: np.ndarray, colls: list[str]):
    """gno's own index: documents of up to 4 chunks (opentelemetry-docs averages ~3.4), each
    in the collection of its vectors, the vectors saved through ``SqliteStore.save_embeddings``
    in pages of 5,000, as ``gno embed`` writes them.
    Returns (store, model id, chunk key -> 1-based row, seconds to save, file MiB)."""
    from gno.adapters.sqlite.store import SqliteStore

    by_collection: dict[str, list[int]] = {}
    for i, c in enumerate(colls):
        by_collection.setdefault(c, []).append(i)
    chunks = []  # (vector row, mirror, seq, collection), documents in collection order
    for c, rows in sorted(by_collection.items()):
        for start in range(0, len(rows), 4):
            mirror = hashlib.sha256(b"%s %d" % (c.encode(), start)).hexdigest()
            chunks += [(row, mirror, seq, c) for seq, row in enumerate(rows[start : start + 4])]
    docs = {(m, c): n for _, m, n, c in chunks}  # mirror -> last seq
    store = SqliteStore.open(Path(path), create=True)
    assert store.load_vec()
    with store.write():
        store.conn.executemany(
            "INSERT INTO content (mirror_hash, markdown, line_count) VALUES (?, 'x', 1)",
            [(m,) for m, _ in docs],
        )
        store.conn.executemany(
            "INSERT INTO content_chunks (mirror_hash, seq, pos, end_pos, start_line, end_line) "
            "VALUES (?, ?, 0, 1, 1, 1)",
            [(m, seq) for _, m, seq, _ in chunks],
        )
        store.conn.executemany(
            "INSERT INTO documents (collection, rel_path, source_mime, source_ext, source_size, "
            "source_mtime_ns, uri, mirror_hash, active, ingest_version, created_at, updated_at) "
            "VALUES (?, ?, 'text/markdown', '.md', 1, 0, ?, ?, 1, 1, '', '')",
            [(c, f"{m}.md", f"gno://{c}/{m}.md", m) for m, c in docs],
        )
    model_id = store.embed_model("bench", "bench", vectors.shape[1])
    started = time.perf_counter()
    for page in range(0, len(chunks), 5000):
        part = chunks[page : page + 5000]
        blobs = [vectors[row].tobytes() for row, *_ in part]
        hashes = [hashlib.sha256(b).hexdigest() for b in blobs]
        with store.write():
            store.save_embeddings(
                model_id,
                dict(zip(hashes, blobs, strict=True)),
                [(m, seq, h) for (_, m, seq, _), h in zip(part, hashes, strict=True)],
            )
    seconds = time.perf_counter() - started
    number = {(m, seq): row + 1 for row, m, seq, _ in chunks}
    return store, model_id, number, seconds, os.path.getsize(path) / 2**20


# gno's own KNN path (SqliteStore.knn: plan, codes, rescoring, filters); (label, filtered)
STORE_VARIANTS = [
    ("gno SqliteStore.knn (whole index file)", False),
    ("  same, collection = ?", True),
]


def run(
    vectors: np.ndarray, queries: np.ndarray, colls: list[str], tmp: str, variants: list = VARIANTS
) -> list[tuple]:
    """Build every index, then time the variants; one table row per variant.

    Queries are interleaved (query 1 on every variant, then query 2, ...) so that a slow spell
    of a shared machine hits all variants alike instead of one.
    """
    tmp = tempfile.mkdtemp(dir=tmp)
    truth = {False: exact(vectors, queries, None)}
    truth[True] = exact(vectors, queries, np.array(colls) == "c0")
    floats_db = os.path.join(tmp, "floats.db")
    if variants:
        mib = build_floats(floats_db, vectors)
        print(f"rescoring sources: plain float table {mib['floats']:.1f} MiB, gno's text_vectors "
              f"{mib['text_vectors']:.1f} MiB (+ chunk_vectors {mib['chunk_vectors']:.1f} MiB)")  # fmt: skip
    params = [{"q": q.tobytes(), "c": "c0"} | EDGES for q in queries]
    built, conns, searches, costs = {}, {}, [], []
    for _, name, k, rescore, filtered in variants:
        if name not in built:
            path = os.path.join(tmp, name.replace("/", "_") + ".db")
            seconds = build_index(path, name, vectors, colls)
            built[name] = (seconds, os.path.getsize(path) / 2**20)
            conns[name] = connect(path)
            conns[name].execute(f"ATTACH '{floats_db}' AS fl")
        conn = conns[name]
        if rescore is NUMPY:
            started = time.perf_counter()
            search, ram = numpy_search(conn, k)
            costs.append((time.perf_counter() - started, ram))  # load time and codes in RAM
        else:
            sql = knn_sql(name, k, rescore, filtered)
            search = lambda p, conn=conn, sql=sql: {r[0] for r in conn.execute(sql, p)}  # noqa: E731
            costs.append(built[name])
        searches.append((search, truth[filtered]))
        search(params[0])  # warm-up
    store, model_id, number, seconds, size = gno_store(
        os.path.join(tmp, "gno.sqlite"), vectors, colls
    )
    for _, filtered in STORE_VARIANTS:
        where = ("AND collection = ?", ["c0"]) if filtered else ("", [])

        def search(p, where=where):
            return {number[m, s] for m, s, _ in store.knn(model_id, [p["q"]], TOP, *where)[0]}

        costs.append((seconds, size))
        searches.append((search, truth[filtered]))
        search(params[0])  # warm-up
    times, hits = [[] for _ in searches], [0] * len(searches)
    for i, p in enumerate(params):
        for j, (search, expected) in enumerate(searches):
            started = time.perf_counter()
            got = search(p)
            times[j].append((time.perf_counter() - started) * 1000)
            hits[j] += len(got & expected[i])
    for conn in conns.values():
        conn.close()
    store.close()
    labels = [v[0] for v in variants] + [label for label, _ in STORE_VARIANTS]
    return [
        (label, *cost, statistics.median(t), max(t), h / (TOP * len(queries)))
        for label, cost, t, h in zip(labels, costs, times, hits, strict=True)
    ]


def crossover(tmp: str, sizes=(250, 500, 1000, 2000, 4000)) -> None:
    """Where an exact scan stops beating the codes: both of gno's paths (the planner's
    private methods, called directly) on stores of growing size, median of 30 top-10s."""
    from gno.adapters.sqlite.knn import KnnSearch
    from gno.core.knn_plan import exact_limit

    print("\nexact scan vs codes + rescoring in gno's store (top-10, median ms)")
    print(f"{'vectors':>8} {'exact':>7} {'codes':>7}  planner")
    for n in sizes:
        vectors = synthetic(n + 30, seed=n)[0]
        path = tempfile.mktemp(dir=tmp, suffix=".sqlite")
        store, model_id, *_ = gno_store(path, vectors[:n], ["c0"] * n)
        search = KnnSearch(store.conn, model_id, DIMS, n)
        times: dict[str, list[float]] = {"exact": [], "codes": []}
        for q in vectors[n:]:
            for name, run_one in (("exact", search._exact), ("codes", search._coarse)):
                started = time.perf_counter()
                run_one(q.tobytes(), TOP)
                times[name].append((time.perf_counter() - started) * 1000)
        plan = "exact" if exact_limit(n, TOP, DIMS) >= n else "codes"
        print(f"{n:8,} {statistics.median(times['exact']):7.2f} "
              f"{statistics.median(times['codes']):7.2f}  {plan}")  # fmt: skip
        store.close()


def print_table(title: str, rows: list[tuple]) -> None:
    print(f"\n{title}")
    print(f"{'layout':40} {'build s':>7} {'MiB':>6} {'med ms':>7} {'max ms':>7} {'recall':>6}")
    for label, build, mib, med, worst, recall in rows:
        print(f"{label:40} {build:7.2f} {mib:6.1f} {med:7.2f} {worst:7.2f} {recall:6.3f}")


def describe(vectors: np.ndarray, queries: np.ndarray) -> str:
    """Shape statistics, and recall@10 of sign bits + exact rescoring of the top k by Hamming."""
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -1)
    top = np.sort(sims, axis=1)[:, -TOP:]
    mean_cos = (sims.sum() + len(sims)) / (len(sims) ** 2 - len(sims))  # off-diagonal mean
    truth, agree = exact(vectors, queries, None), np.sign(queries) @ np.sign(vectors).T
    recalls = []
    for k in (10, 20, 40, 80):
        hits = 0
        for q, row, want in zip(queries, agree, truth, strict=True):
            cand = np.argpartition(-row, k)[:k]  # most agreeing signs = least Hamming distance
            hits += len(set((cand[np.argsort(-(vectors[cand] @ q))[:TOP]] + 1).tolist()) & want)
        recalls.append(f"k={k} {hits / (TOP * len(queries)):.3f}")
    return (f"mean cos {mean_cos:.3f}, top-1 cos {top[:, -1].mean():.3f}, "
            f"10th cos {top[:, 0].mean():.3f}; bit + rescore: {', '.join(recalls)}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="synthetic vectors")
    parser.add_argument("--real", type=int, default=2000, help="real MiniLM chunks (0: skip)")
    parser.add_argument("--store-only", action="store_true", help="only gno's SqliteStore rows")
    args = parser.parse_args()
    print(f"{platform.machine()}, {os.cpu_count()} cpus, Python {platform.python_version()}, "
          f"apsw {apsw.apsw_version()}, load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    vectors, topic = synthetic(args.n + N_QUERIES)
    colls = [f"c{t % 4}" for t in topic[: args.n]]  # collections follow topics, ~1/4 each
    with tempfile.TemporaryDirectory() as tmp:
        variants = [] if args.store_only else VARIANTS
        rows = run(vectors[: args.n], vectors[args.n :], colls, tmp, variants)
        print_table(f"synthetic, {args.n:,} vectors, {N_QUERIES} queries", rows)
        crossover(tmp)
        real = real_sample(args.real) if args.real else None
        if real is not None:
            n = len(real) - N_QUERIES
            small = synthetic(n + N_QUERIES)[0]
            print(f"\nsame size ({n:,}), real: {describe(real[:n], real[n:])}")
            print(f"same size ({n:,}), synthetic: {describe(small[:n], small[n:])}")
            rows = run(real[:n], real[n:], [f"c{i % 4}" for i in range(n)], tmp, variants)
            print_table(f"real MiniLM, {n:,} vectors (k is a large share of n here)", rows)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
