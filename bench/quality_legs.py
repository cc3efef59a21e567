"""Scratch harness of session 12 (lane q12b): query-side, model-free extra legs for `query`,
tried on bench/devset.jsonl without touching gno's code. Built on quality_ablate.py's loop
(one process, query vectors cached): every variant runs the real `query` pipeline with the
current defaults, and a patched fusion step adds (or replaces) ranked lists before the first
RRF pass, so every later pass (graph, language preference) sees them too.

    .venv/bin/python bench/quality_legs.py --home COPY_OF_AN_INDEX --half tune \
        --variant base --variant fields:title_desc_head:w=1

Variants (name[:arg][:w=weight][:all]) — by default applied to English questions only (the
queries `languageWeights` sends to the vector list); `:all` applies them to every question:
  base                      the defaults, nothing added
  fields:COLS               any-term BM25 over a scratch in-memory FTS5 table of the fields
                            named in COLS (title, desc = frontmatter description, head =
                            Markdown headings, path), joined by `_`; its own list
  titlecol                  any-term BM25 over the index's own `title` and `filepath` columns
  clausebm25                each clause's terms all required (BM25), one list per clause
  subq                      each clause embedded; its vector list fused (kind subq)
  submax                    the vector list rebuilt: each chunk's best distance over the whole
                            question and its clauses
  tokexp:N                  BM25 over the question's words OR up to N nearest whole-word
                            vocabulary tokens per word (MiniLM's input-token embeddings)
  docfmt                    the question embedded as `title: none | text: <q>` (the chunk recipe)
  fmt:NAME:list|max         the question in another wording (FORMATS) embedded too: its own
                            vector list, or merged into the vector list by best distance
  hub:ALPHA:K               exact cosine minus ALPHA x the chunk's mean cosine to its K nearest
  impl:WP_WT_WO             documents_fts with an outline column (body in the row), column weights
  passages:SIZE             any-term BM25 over passages (the index's chunks, or pieces of about
                            SIZE characters of them), a document ranked by its best passage;
                            its own list (session 15)
  lsa:K                     latent semantic analysis of the active documents (log-tf × idf, top K
                            singular vectors); its own list (session 14: lower on the tune half)
Score fusion (session 17, lane fusion) — replaces or adds to RRF for the queries the variant
applies to; the legs' scores are caught as the pipeline computes them (vector: each document's
best-chunk cosine; bm25 and outline: FTS5's bm25, negated), normalised per query by NORM:
mm (min-max), tmm (s / max, theoretical minimum 0), z (z-score), cos (the vector leg's raw
cosine, min-max for the lexical legs); a document missing from a list gets the list's worst:
  conv:NORM:L[:oS][:mnz][:x] λ·vector + (1−λ)·lexical, lexical = S·outline + (1−S)·bm25 (S 0.5
                            by default; bm25 alone without an outline list); `mnz` multiplies by
                            the number of legs holding the document (CombMNZ). The bm25, vector
                            and outline lists become one list in that order (kind vector, weight
                            the sum of theirs), so the graph stage and the language preference
                            run on it as they do on RRF's order
  hyb:NORM:B[:x]            RRF as today, plus B × the normalised vector cosine (every RRF pass)
`x`: a candidate the vector leg did not reach gets its best chunk's exact cosine (not the worst)
Flags: `lex` gives the added list a lexical list's top-rank bonus; `any` applies the variant to
every query; `only=SHAPE` to the queries of that shape only (identifier, keyword, question). Variants join with `+`. The leg gno adopted (`outlineLeg`, session 12) is
`fields:title_desc_head_path:w=1:lex:all`; bench/README.md, "Quality, session 12", has the figures.
Prints nDCG@10 per kind for the chosen half (or both), and with --per-query every paraphrase
(or every query of --kind).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from quality import KINDS, MODEL, load_devset, ndcg, path_language
from quality_ablate import open_home

STATE: dict[str, Any] = {}
FORMATS = {
    "docnone": "title: none | text: {q}",
    "titleq": "title: {q} | text: {q}",
    "qtitle": "title: {q} | text: none",
}
CLAUSE_SPLIT = re.compile(r",|;|\?|\b(?:and|or|without|when|so|until|before|after|while)\b", re.I)


def clauses(text: str) -> list[str]:
    """The question's clauses with at least two words, when there are two or more."""
    parts = [p.strip() for p in CLAUSE_SPLIT.split(text)]
    parts = [p for p in parts if len(p.split()) >= 2]
    return parts if len(parts) >= 2 else []


def field_table(store: Any, cols: list[str]) -> Any:
    """A scratch in-memory FTS5 table (rowid = document id) over the chosen fields."""
    import apsw

    from gno.core.fts import TOKENIZER, index_text

    conn = apsw.Connection(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE f USING fts5 ({', '.join(cols)}, tokenize = '{TOKENIZER}')")
    rows = store.conn.execute(
        "SELECT d.id, d.rel_path, d.title, c.markdown FROM documents d JOIN content c "
        "ON c.mirror_hash = d.mirror_hash WHERE d.active = 1"
    )
    out = []
    anchors = anchor_texts(store) if "anchor" in cols else {}
    for doc_id, path, title, body in rows:
        fm, heads = _front(body), _headings(body)
        values = {
            "anchor": " ; ".join(anchors.get(doc_id, ())),
            "title": " ".join(x for x in (title, fm.get("linkTitle")) if x),
            "desc": fm.get("description", ""),
            "head": " ; ".join(heads),
            "outline": "\n".join([fm.get("description", ""), *heads]),
            "ipath": path,
            "path": re.sub(r"[/_.-]", " ", path),
        }
        out.append((doc_id, *(index_text(values[c]) for c in cols)))
    marks = ",".join("?" * (len(cols) + 1))
    conn.executemany(f"INSERT INTO f (rowid, {', '.join(cols)}) VALUES ({marks})", out)
    return conn


def anchor_texts(store: Any) -> dict[int, list[str]]:
    """Each document's inbound link texts (resolved as the graph resolves them), without
    repeats and without the ones that only repeat its title."""
    proj = store.projection()
    target_of = {ref: target for target, refs in proj.link_refs.items() for ref in refs}
    found: dict[int, dict[str, None]] = {}
    for row in store.link_rows(sorted(proj.docs)):
        key = (row.source_doc_id, row.link_type, row.target_ref_norm, row.resolve_collection)
        target = target_of.get(key)
        text = (row.link_text or "").strip()
        if target is None or target == row.source_doc_id or not text:
            continue
        if text.lower() == (proj.docs[target].title or "").lower():
            continue
        found.setdefault(target, {})[text] = None
    return {doc: list(texts) for doc, texts in found.items()}


def impl_table(store: Any) -> Any:
    """documents_fts as planned: filepath, title, body, outline (frontmatter + headings)."""
    import apsw

    from gno.core.fts import TOKENIZER, index_text

    conn = apsw.Connection(":memory:")
    conn.execute(
        f"CREATE VIRTUAL TABLE f USING fts5 (filepath, title, body, outline, tokenize = '{TOKENIZER}')"
    )
    rows = store.conn.execute(
        "SELECT d.id, d.rel_path, d.title, c.markdown FROM documents d JOIN content c "
        "ON c.mirror_hash = d.mirror_hash WHERE d.active = 1"
    )
    out = []
    for doc_id, path, title, body in rows:
        fm = _front(body)
        outline = "\n".join(
            [*(fm[k] for k in ("title", "linkTitle", "description") if k in fm), *_headings(body)]
        )
        out.append(
            (
                doc_id,
                index_text(path),
                index_text(title or ""),
                index_text(body),
                index_text(outline),
            )
        )
    conn.executemany(
        "INSERT INTO f (rowid, filepath, title, body, outline) VALUES (?,?,?,?,?)", out
    )
    return conn


def passage_table(store: Any, size: int) -> Any:
    """A scratch in-memory FTS5 table of passages and the document of each (rowid = its
    index in that list): the index's chunks, or pieces of about ``size`` characters of
    them, cut at a blank line or a space."""
    import apsw

    from gno.core.fts import TOKENIZER, index_text

    conn = apsw.Connection(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE f USING fts5 (body, tokenize = '{TOKENIZER}')")
    rows = store.conn.execute(
        "SELECT d.id, c.markdown, k.pos, k.end_pos FROM documents d JOIN content c "
        "ON c.mirror_hash = d.mirror_hash JOIN content_chunks k ON k.mirror_hash = d.mirror_hash "
        "WHERE d.active = 1 ORDER BY d.id, k.seq"
    )
    out, owners = [], []
    for doc_id, body, start, end in rows:
        text = body[start:end]
        pieces = [text]
        if size:
            pieces, rest = [], text
            while len(rest) > size * 1.5:
                cut = rest.rfind("\n\n", size // 2, size)
                cut = cut if cut > 0 else max(rest.rfind(" ", size // 2, size), size)
                pieces.append(rest[:cut])
                rest = rest[cut:]
            pieces.append(rest)
        for piece in pieces:
            owners.append(doc_id)
            out.append((len(owners) - 1, index_text(piece)))
    conn.executemany("INSERT INTO f (rowid, body) VALUES (?, ?)", out)
    return conn, owners


def _front(body: str) -> dict[str, str]:
    if not body.startswith("---\n"):
        return {}
    end = body.find("\n---", 4)
    found = {}
    for line in body[4:end].splitlines():
        key, sep, value = line.partition(":")
        if sep and not line.startswith(" ") and key in ("title", "linkTitle", "description"):
            found[key] = value.strip().strip("'\">|")
    return found


def _headings(body: str) -> list[str]:
    heads, fenced = [], False
    for line in body.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            heads.append(line.lstrip("#").strip())
    return heads


def hub_scores(store: Any, k: int) -> tuple[list[str], Any, Any]:
    """Every chunk vector (normalised), its mirror, and its mean cosine to its k nearest."""
    import numpy as np

    rows = list(store.conn.execute(
        "SELECT c.mirror_hash, t.embedding FROM chunk_vectors c JOIN text_vectors t "
        "ON t.id = c.vector_id JOIN documents d ON d.mirror_hash = c.mirror_hash "
        "AND d.active = 1 GROUP BY c.id"))  # fmt: skip
    keys = [r[0] for r in rows]
    matrix = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    crowd = np.empty(len(keys), dtype=np.float32)
    for start in range(0, len(keys), 1000):
        block = matrix[start : start + 1000] @ matrix.T
        block.sort(axis=1)
        crowd[start : start + 1000] = block[:, -k - 1 : -1].mean(axis=1)
    return keys, matrix, crowd


def any_terms(text: str) -> str | None:
    from gno.core.fts import parse_query
    from gno.services.search import relaxed_match

    try:
        return relaxed_match(parse_query(text))
    except Exception:
        return None


def mirrors_of(store: Any, ids: list[int]) -> list[str]:
    docs = store.documents_by_ids(ids)
    return list(
        dict.fromkeys(docs[i].mirror_hash for i in ids if i in docs and docs[i].mirror_hash)
    )


class TokenNeighbours:
    """Nearest whole-word vocabulary tokens by cosine of MiniLM's input-token embeddings."""

    def __init__(self, model: Path) -> None:
        import numpy as np
        from gguf import GGUFReader

        reader = GGUFReader(str(model))
        field = reader.fields["tokenizer.ggml.tokens"]
        self.tokens = [bytes(field.parts[i]).decode("utf-8", "replace") for i in field.data]
        tensor = next(t for t in reader.tensors if t.name == "token_embd.weight")
        matrix = np.asarray(tensor.data, dtype=np.float32).reshape(len(self.tokens), -1)
        self.matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        # whole words start with "▁" (SentencePiece-style marks in the GGUF vocabulary)
        self.word = np.array([bool(re.fullmatch(r"▁[a-z]{3,}", t)) for t in self.tokens])
        self.tokens = [t.removeprefix("▁") for t in self.tokens]
        self.index = {t: i for i, t in enumerate(self.tokens) if self.word[i]}

    def near(self, word: str, n: int, floor: float) -> list[str]:
        import numpy as np

        i = self.index.get(word)
        if i is None:
            return []
        sims = self.matrix @ self.matrix[i]
        sims[~self.word] = -1
        sims[i] = -1
        picked = []
        for j in np.argsort(-sims)[: 4 * n]:
            t = self.tokens[j]
            if sims[j] < floor or len(picked) >= n:
                break
            if t[:4] != word[:4]:  # not a form of the same word (BM25's stems cover those)
                picked.append(t)
        return picked


def _merge_vector_lists(lists: list[Any], found: list[Any], pool: int) -> None:
    """Replace the vector list by each document's nearest chunk over all these searches."""
    from gno.core.fusion import RankedList
    from gno.services.embed import nearest_per_mirror

    merged = sorted((n for f in found for n in f), key=lambda n: (n[2], n[0], n[1]))
    keys = list(nearest_per_mirror(merged))[:pool]
    for i, ranked in enumerate(lists):
        if ranked.kind == "vector":
            lists[i] = RankedList("vector", keys)


class LatentSpace:
    """Latent semantic analysis over the active documents: log-tf × idf, Porter-free words of
    three letters or more, terms in 3 documents to half of them; the top K singular vectors of
    the document-term matrix (eigenvectors of A·Aᵀ). Documents are U·S, a query is q·V."""

    WORD = re.compile(r"[a-z][a-z0-9]{2,}")

    def __init__(self, store: Any, k: int) -> None:
        import numpy as np

        from gno.core.fts import STOPWORDS

        rows = list(store.conn.execute(
            "SELECT d.mirror_hash, d.title, c.markdown FROM documents d JOIN content c "
            "ON c.mirror_hash = d.mirror_hash WHERE d.active = 1"))  # fmt: skip
        self.keys = [r[0] for r in rows]
        counts = []
        df: dict[str, int] = {}
        for _, title, body in rows:
            bag: dict[str, int] = {}
            for w in self.WORD.findall(f"{title or ''} {body}".lower()):
                if w not in STOPWORDS:
                    bag[w] = bag.get(w, 0) + 1
            counts.append(bag)
            for w in bag:
                df[w] = df.get(w, 0) + 1
        n = len(rows)
        vocab = sorted(w for w, d in df.items() if 3 <= d <= n // 2)
        self.col = {w: i for i, w in enumerate(vocab)}
        self.idf = np.log(n / np.array([df[w] for w in vocab], dtype=np.float32))
        a = np.zeros((n, len(vocab)), dtype=np.float32)
        for i, bag in enumerate(counts):
            for w, c in bag.items():
                j = self.col.get(w)
                if j is not None:
                    a[i, j] = 1 + np.log(c)
        a *= self.idf
        a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-9)
        vals, vecs = np.linalg.eigh(a @ a.T)
        top = np.argsort(-vals)[:k]
        s = np.sqrt(np.maximum(vals[top], 1e-12))
        u = vecs[:, top]
        self.v = (a.T @ u) / s  # terms × k
        docs = u * s
        self.docs = docs / np.maximum(np.linalg.norm(docs, axis=1, keepdims=True), 1e-9)

    def ranked(self, text: str, depth: int) -> list[str]:
        import numpy as np

        q = np.zeros(len(self.col), dtype=np.float32)
        for w in self.WORD.findall(text.lower()):
            j = self.col.get(w)
            if j is not None:
                q[j] += 1
        if not q.any():
            return []
        q = np.where(q > 0, 1 + np.log(np.maximum(q, 1)), 0) * self.idf
        z = q @ self.v
        z /= max(float(np.linalg.norm(z)), 1e-9)
        order = np.argsort(-(self.docs @ z))[:depth]
        return [self.keys[i] for i in order]


BASE_KINDS = ("bm25", "vector", "outline")  # the first-stage lists score fusion replaces


def normalised(scores: dict[str, float], how: str) -> tuple[dict[str, float], float]:
    """Per-query normalisation of one leg's scores (higher is better), and the value a
    document missing from the leg gets (the leg's worst)."""
    if not scores:
        return {}, 0.0
    values = list(scores.values())
    low, high = min(values), max(values)
    if how == "tmm":  # theoretical minimum 0 (cosine and negated bm25 are ≥ 0 in practice)
        out = {k: v / high if high > 1e-12 else 1.0 for k, v in scores.items()}
    elif how == "z":
        mean = statistics.fmean(values)
        spread = statistics.pstdev(values) or 1.0
        out = {k: (v - mean) / spread for k, v in scores.items()}
    elif how == "raw":
        out = dict(scores)
    else:  # mm
        span = high - low
        out = {k: (v - low) / span if span > 1e-12 else 1.0 for k, v in scores.items()}
    return out, min(out.values())


def leg_scores(store: Any) -> dict[str, dict[str, float]]:
    """This query's leg scores as caught from the pipeline: mirror -> score, higher better."""
    legs: dict[str, dict[str, float]] = {"vector": {}, "bm25": {}, "outline": {}}
    for mirror, (distance, _) in (STATE.get("vec") or {}).items():
        legs["vector"][mirror] = 1.0 - distance
    for doc, score in STATE.get("lex") or []:
        if doc.mirror_hash:
            legs["bm25"].setdefault(doc.mirror_hash, -score)
    hits = STATE.get("outl") or []
    docs = store.documents_by_ids([doc_id for doc_id, _ in hits])
    for doc_id, score in hits:
        if doc_id in docs and docs[doc_id].mirror_hash:
            legs["outline"].setdefault(docs[doc_id].mirror_hash, -score)
    return legs


def chunk_matrix(store: Any) -> tuple[dict[str, list[int]], Any]:
    """Every active chunk vector (normalised) and the rows of each mirror."""
    import numpy as np

    rows = list(store.conn.execute(
        "SELECT c.mirror_hash, t.embedding FROM chunk_vectors c JOIN text_vectors t "
        "ON t.id = c.vector_id JOIN documents d ON d.mirror_hash = c.mirror_hash "
        "AND d.active = 1 GROUP BY c.id"))  # fmt: skip
    matrix = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    owners: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        owners.setdefault(r[0], []).append(i)
    return owners, matrix


def exact_cosines(store: Any, keys: Any, found: dict[str, float]) -> None:
    """``found`` completed with the best chunk's exact cosine of every key it lacks."""
    import numpy as np

    if "chunks" not in STATE:
        STATE["chunks"] = chunk_matrix(store)
    owners, matrix = STATE["chunks"]
    query = np.asarray(STATE["qvec"], dtype=np.float32)
    query /= np.linalg.norm(query)
    for key in keys:
        if key not in found and key in owners:
            found[key] = float((matrix[owners[key]] @ query).max())


def fused_by_score(variant: str, store: Any, lists: list[Any]) -> dict[str, float]:
    """conv / hyb: each candidate's score-fusion value (see the module's docstring)."""
    name, how, value, *opts = variant.split(":")
    legs = leg_scores(store)
    if "x" in opts and STATE.get("qvec") is not None:
        exact_cosines(store, [k for r in lists for k in r.keys], legs["vector"])
    present = {r.kind for r in lists}
    norms = {}
    for kind, scores in legs.items():
        if kind in present:
            norms[kind] = normalised(scores, "raw" if how == "cos" and kind == "vector" else
                                     "mm" if how == "cos" else how)  # fmt: skip
    if name == "hyb":
        table, floor = norms.get("vector", ({}, 0.0))
        return {k: float(value) * table.get(k, floor) for r in lists for k in r.keys}
    lam = float(value)
    share = next((float(o[1:]) for o in opts if o.startswith("o")), 0.5)
    lexical = {"outline": share, "bm25": 1 - share} if "outline" in norms else {"bm25": 1.0}
    parts = {"vector": lam, **{k: (1 - lam) * w for k, w in lexical.items()}}
    keys = dict.fromkeys(k for r in lists if r.kind in BASE_KINDS for k in r.keys)
    out = {}
    for key in keys:
        total = 0.0
        for kind, weight in parts.items():
            if kind in norms:
                table, floor = norms[kind]
                total += weight * table.get(key, floor)
        if "mnz" in opts:
            total *= sum(key in legs[kind] for kind in norms)
        out[key] = total
    return out


def extra_lists(variant: str, app: Any, store: Any, text: str, lists: list[Any]) -> None:
    from gno.core.fts import STOPWORDS, parse_query
    from gno.core.fusion import RankedList
    from gno.services.embed import nearest_per_mirror, vector_search
    from gno.services.filters import Filters
    from gno.services.query import _lexical

    name, *args = variant.split(":")
    pool = 100
    if name == "fields":
        if ("fields", args[0]) not in STATE:
            STATE["fields", args[0]] = field_table(store, args[0].split("_"))
        table = STATE["fields", args[0]]
        match = any_terms(text)
        if match:
            ids = [r[0] for r in table.execute(
                "SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT ?", (match, pool))]  # fmt: skip
            lists.append(RankedList("x_fields", mirrors_of(store, ids)))
    elif name == "impl":  # impl:WP_WT_WO — documents_fts plus an outline column, as built
        if "impl" not in STATE:
            STATE["impl"] = impl_table(store)
        weights = ", ".join([*args[0].split("_")[:2], "0", *args[0].split("_")[2:]])
        match = any_terms(text)
        if match:
            ids = [r[0] for r in STATE["impl"].execute(
                f"SELECT rowid, bm25(f, {weights}) AS s FROM f WHERE f MATCH ? ORDER BY s LIMIT ?",
                (f"{{filepath title outline}} : {match}", pool))]  # fmt: skip
            lists.append(RankedList("x_fields", mirrors_of(store, ids)))
    elif name == "passages":  # passages:SIZE — BM25 over passages, a document by its best
        size = int(args[0]) if args else 0
        if ("passages", size) not in STATE:
            STATE["passages", size] = passage_table(store, size)
        table, owners = STATE["passages", size]
        match = any_terms(text)
        if match:
            ids = list(dict.fromkeys(owners[r[0]] for r in table.execute(
                "SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT ?", (match, pool * 4))))[:pool]  # fmt: skip
            lists.append(RankedList("x_fields", mirrors_of(store, ids)))
    elif name == "titlecol":
        match = any_terms(text)
        if match:
            ids = [r[0] for r in store.conn.execute(
                "SELECT rowid FROM documents_fts WHERE documents_fts MATCH ? "
                "ORDER BY bm25(documents_fts, 1.5, 4.0, 1.0) LIMIT ?",
                (f"{{title filepath}} : {match}", pool))]  # fmt: skip
            lists.append(RankedList("x_fields", mirrors_of(store, ids)))
    elif name == "clausebm25":
        for part in clauses(text):
            lists.append(RankedList("x_clause", _lexical(store, part, Filters(), pool)))
    elif name in ("subq", "submax"):
        parts = clauses(text)
        if not parts:
            return
        found, _ = vector_search(app, store, [text, *parts], pool * 4, Filters())
        if name == "subq":
            for neighbours in found[1:]:
                lists.append(RankedList("x_subq", list(nearest_per_mirror(neighbours))[:pool]))
        else:
            _merge_vector_lists(lists, found, pool)
    elif name == "fmt":  # fmt:TEMPLATE:list|max — the question in another wording, embedded
        template = FORMATS[args[0]]
        found, _ = vector_search(app, store, [text, template.format(q=text)], pool * 4, Filters())
        if args[1] == "list":
            lists.append(RankedList("x_subq", list(nearest_per_mirror(found[1]))[:pool]))
        else:
            _merge_vector_lists(lists, found, pool)
    elif name == "hub":  # hub:ALPHA:K — exact cosine minus ALPHA x the chunk's mean cosine
        # to its K nearest chunks (a crowded, generic chunk is near every question)
        import numpy as np

        alpha, k = float(args[0]), int(args[1])
        if ("hub", k) not in STATE:
            STATE["hub", k] = hub_scores(store, k)
        keys, matrix, crowd = STATE["hub", k]
        vector = np.asarray(app.embedder().embed_batch([text])[0], dtype=np.float32)
        sims = matrix @ (vector / np.linalg.norm(vector)) - alpha * crowd
        order = np.argsort(-sims)[: pool * 4]
        ranked = list(dict.fromkeys(keys[i] for i in order))[:pool]
        for i, existing in enumerate(lists):
            if existing.kind == "vector":
                lists[i] = RankedList("vector", ranked)
    elif name == "lsa":  # lsa:K — latent semantic analysis of the corpus (a list of its own)
        k = int(args[0]) if args else 200
        if ("lsa", k) not in STATE:
            STATE["lsa", k] = LatentSpace(store, k)
        lists.append(RankedList("x_lsa", STATE["lsa", k].ranked(text, pool)))
    elif name == "tokexp":
        if "tok" not in STATE:
            STATE["tok"] = TokenNeighbours(MODEL)
        near = STATE["tok"]
        n = int(args[0]) if args else 2
        floor = float(args[1]) if len(args) > 1 else 0.45
        words = [
            w for w in re.findall(r"[a-z]+", text.lower()) if w not in STOPWORDS and len(w) > 2
        ]
        extra = [t for w in words for t in near.near(w, n, floor)]
        STATE.setdefault("tokexp_log", []).append((text, extra))
        try:
            own = list(parse_query(text).positives)
        except Exception:
            own = []
        own = [p for p in own if p.strip('"*') not in STOPWORDS]
        expr = "(" + " OR ".join(own + [f'"{t}"' for t in extra]) + ")"
        ids = [r[0] for r in store.fts_candidates(expr, pool)]
        lists.append(RankedList("x_tokexp", mirrors_of(store, ids)))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--variant", action="append", required=True)
    parser.add_argument("--half", choices=("tune", "test", "both"), default="tune")
    parser.add_argument("--per-query", action="store_true")
    parser.add_argument("--kind", default="paraphrase", help="the kind --per-query prints")
    args = parser.parse_args()
    app = open_home(args.home.expanduser().resolve())
    from gno_contracts.models.query_input import QueryInput

    import gno.core.embedding_text as embedding_text
    import gno.core.fusion as fusion
    import gno.services.embed as embed
    import gno.services.query as query_module
    from gno.core.query_shape import QUESTION, query_shape
    from gno.services.stages import query_language

    store = app.store()
    original_rrf = query_module.rrf
    plain_text = embedding_text.query_text

    def patched_rrf(lists: Any, k: int = 60, weights: Any = None, bonus: float = 1.0) -> Any:
        variant = STATE["variant"]
        if variant.startswith(("conv", "hyb")):
            return (
                score_fusion(lists, k, weights, bonus)
                if STATE["applies"]
                else original_rrf(lists, k, weights, bonus)
            )
        if not STATE["done"]:
            STATE["done"] = True
            if STATE["applies"] and variant not in ("base", "docfmt"):
                for one in variant.split("+"):
                    extra_lists(one, app, store, STATE["text"], lists)
        return original_rrf(lists, k, weights, bonus)

    def score_fusion(lists: Any, k: int, weights: Any, bonus: float) -> Any:
        values = fused_by_score(STATE["variant"], store, lists)
        if STATE["variant"].startswith("hyb"):  # RRF, plus the vector leg's score
            fused = original_rrf(lists, k, weights, bonus)
            for item in fused:
                item.score += values.get(item.key, 0.0)
            ordered = sorted(fused, key=lambda f: f.key)
            return sorted(ordered, key=lambda f: -round(f.score, 9))
        # conv: the first-stage lists become one list in score order, weighing what they did
        order = sorted(values, key=lambda key: (-values[key], key))
        mass = sum(
            (weights or {}).get(r.kind, fusion.WEIGHTS[r.kind])
            for r in lists
            if r.kind in BASE_KINDS
        )
        rest = [r for r in lists if r.kind not in BASE_KINDS]
        return original_rrf(
            [fusion.RankedList("vector", order), *rest],
            k,
            {**(weights or {}), "vector": mass},
            bonus,
        )

    def caught_nearest(neighbours: Any) -> Any:
        found = plain_nearest(neighbours)
        if STATE.get("vec") is None:  # the pipeline's vector leg is the first call
            STATE["vec"] = found
        return found

    def caught_search(*a: Any, **kw: Any) -> Any:
        found, searched = plain_search(*a, **kw)
        if STATE.get("qvec") is None:
            STATE["qvec"] = searched.vectors[0]
        return found, searched

    def caught_candidates(*a: Any, **kw: Any) -> Any:
        hits, matched = plain_candidates(*a, **kw)
        if hits:  # the lexical leg keeps the last call that found something (all, else any)
            STATE["lex"] = hits
        return hits, matched

    def caught_outline(self: Any, match: str, limit: int) -> Any:
        STATE["outl"] = plain_outline(self, match, limit)
        return STATE["outl"]

    plain_nearest, plain_candidates = embed.nearest_per_mirror, query_module.candidates
    plain_outline, plain_search = type(store).outline_candidates, embed.vector_search
    embed.vector_search = caught_search  # type: ignore[assignment]
    embed.nearest_per_mirror = caught_nearest  # type: ignore[assignment]
    query_module.candidates = caught_candidates  # type: ignore[assignment]
    type(store).outline_candidates = caught_outline  # type: ignore[method-assign]

    def docfmt_text(uri: str, query: str, plain: bool = False) -> str:
        if STATE.get("variant") == "docfmt" and STATE.get("applies") and query == STATE["text"]:
            return f"title: none | text: {query}"
        return plain_text(uri, query, plain)

    query_module.rrf = patched_rrf  # type: ignore[assignment]
    embed.query_text = docfmt_text  # type: ignore[attr-defined]
    queries = [q for q in load_devset() if args.half in ("both", q.half)]
    per_query: dict[str, dict[str, float]] = {}
    for spec in args.variant:
        parts = spec.split(":")
        weight = next((float(p[2:]) for p in parts if p.startswith("w=")), 1.0)
        every = "all" in parts
        if "lex" in parts:
            fusion.LEXICAL.add("x_fields")
        else:
            fusion.LEXICAL.discard("x_fields")
        variant = ":".join(
            p for p in parts if not p.startswith(("w=", "only=")) and p not in ("all", "lex", "any")
        )
        only = next((p[5:] for p in parts if p.startswith("only=")), None)
        for kind in ("x_fields", "x_clause", "x_subq", "x_tokexp", "x_lsa"):
            fusion.WEIGHTS[kind] = weight
        scores: dict[str, float] = {}
        start = time.perf_counter()
        for q in queries:
            shape = query_shape(q.query)
            applies = ("any" in parts) or (shape == QUESTION and (every or query_language(q.query)[0] == "en"))  # fmt: skip
            STATE.update(text=q.query, done=False, variant=variant, vec=None, lex=None, outl=None,
                         qvec=None, applies=shape == only if only else applies)  # fmt: skip
            found = query_module.query(app, QueryInput(query=q.query, limit=10, fast=False))
            scores[q.id] = ndcg([r.source.relPath for r in found.results], q.relevant)
        per_query[spec] = scores
        for half in ("tune", "test"):
            group_all = [q for q in queries if q.half == half]
            if not group_all:
                continue
            cells = [f"{statistics.mean(scores[q.id] for q in group_all):.4f}"]
            for kind in KINDS:
                group = [q for q in group_all if q.kind == kind]
                cells.append(f"{statistics.mean(scores[q.id] for q in group):.3f}")
            print(f"{half}  {spec:<40} {'  '.join(cells)}   ({time.perf_counter() - start:.0f} s)")
        sys.stdout.flush()
    if args.per_query:
        names = list(per_query)
        print("id      " + "".join(f"{n[:10]:>11}" for n in names))
        for q in queries:
            if q.kind == args.kind:
                print(f"{q.id:<8}" + "".join(f"{per_query[n][q.id]:>11.2f}" for n in names)
                      + f"   {q.query[:60]}")  # fmt: skip
    if "tokexp_log" in STATE and args.per_query:
        for text, extra in STATE["tokexp_log"][:40]:
            print(f"  {text[:50]:<50} + {' '.join(extra)}")
    _ = path_language
    app.close()


if __name__ == "__main__":
    main()
