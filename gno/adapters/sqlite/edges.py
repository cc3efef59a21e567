"""The typed edge layer, read from the index (mixed into SqliteStore).

Links and relations are stored as written and resolved here, at read time, into a
``Projection`` (``gno.core.typed_graph``) that is kept until the index changes:
the key is SQLite's ``PRAGMA data_version`` (moves when another connection
commits) with this connection's ``total_changes()`` (moves with its own writes),
so a read never sees edges older than the documents it reads.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import apsw

from gno.adapters.sqlite.cursor import index_state

if TYPE_CHECKING:  # the graph modules load on the first graph read, not with the store
    from gno.core.link_resolver import Doc
    from gno.core.link_rows import LinkRow
    from gno.core.typed_graph import Projection

_DOCS = (
    "SELECT id, collection, rel_path, docid, uri, title FROM documents "
    "WHERE active = 1 AND docid IS NOT NULL"
)
# One row per source, type, target and collection, with the number of links behind it.
_LINKS = """
    SELECT l.source_doc_id, l.link_type, l.target_ref_norm,
           coalesce(l.target_collection, d.collection), count(*)
    FROM doc_links l JOIN documents d ON d.id = l.source_doc_id AND d.active = 1
    GROUP BY 1, 2, 3, 4
"""
_RELATIONS = """
    SELECT r.source_doc_id, r.edge_type, r.target_ref, d.collection
    FROM doc_relations r JOIN documents d ON d.id = r.source_doc_id AND d.active = 1
"""
# Documents a content-type rule classified, of the types that have graph hints
# (``sources``: rules_meta.RULE_SOURCES, which a graph read imports, not the store).
_TYPED = """
    SELECT id, content_type FROM documents
    WHERE active = 1 AND content_type_source IN {sources!r}
      AND content_type IN (SELECT value FROM json_each(?))
"""


class EdgeStore:
    conn: apsw.Connection
    _projection: tuple[tuple[int, int], Projection] | None = None
    _docs: tuple[tuple[int, int], list[Doc]] | None = None
    _seeded: tuple[int, int] | None = None  # the index state of the last seed projection

    def _generation(self) -> tuple[int, int]:
        return index_state(self.conn)

    def _active_docs(self, key: tuple[int, int]) -> list[Doc]:
        """Every active document as the resolver sees it, read once per index state: a
        resident process's `query` reads them for each graph stage otherwise (~5 ms)."""
        from gno.core.link_resolver import Doc

        if self._docs is None or self._docs[0] != key:
            self._docs = (key, [Doc(*row) for row in self.conn.execute(_DOCS)])
        return self._docs[1]

    def projection(self) -> Projection:
        """The resolved typed graph of the whole index, rebuilt only after a change."""
        from gno.core.typed_graph import build_projection

        key = self._generation()
        if self._projection is not None and self._projection[0] == key:
            return self._projection[1]
        with self.conn:  # one read transaction: documents and links of the same state
            docs = self._active_docs(key)
            links = [
                (int(s), str(t), str(n), str(c), int(k))
                for s, t, n, c, k in self.conn.execute(_LINKS)
            ]
            relations = [
                (int(s), str(e), str(t), str(c)) for s, e, t, c in self.conn.execute(_RELATIONS)
            ]
            hints = self._link_hints()
        built = build_projection(docs, links, relations, hints)
        self._projection = (key, built)
        return built

    def seed_projection(self, doc_ids: Sequence[int]) -> Projection:
        """A projection whose edges touching ``doc_ids`` are exactly the full projection's:
        the same resolver over every active document, but only the link groups that can
        touch a seed are resolved (written by one, or naming one by a title or path form
        of engine.md §7.2). What `gno query` needs without resolving the whole index; the
        full projection when it is already built for this index state, or when a seed
        projection already was: a one-shot `gno query` resolves only its seeds' groups, a
        resident process (server, SDK) pays for the whole graph once, at its second query,
        and its graph stage then costs under a millisecond (it was 10–20 ms a query on the
        corpus, the seeds' name scan over every link target included)."""
        from gno.core.typed_graph import build_projection

        key = self._generation()
        if self._projection is not None and self._projection[0] == key:
            return self._projection[1]
        if self._seeded == key:
            return self.projection()
        self._seeded = key
        with self.conn:
            docs = self._active_docs(key)
            wanted = set(doc_ids)
            names: set[str] = set()
            tails: set[str] = set()
            for doc in docs:
                if doc.id in wanted:
                    found, ends = seed_names(doc.rel_path, doc.title)
                    names |= found
                    tails |= ends
            if tails:  # targets ending in `/<tail>`, as `LIKE '%/tail'` matched them
                names |= self._ending_in(tails)
            ids, named = sorted(wanted), sorted(names)
            where = [f"l.source_doc_id IN ({','.join('?' * len(ids))})"] if ids else []
            if named:
                where.append(f"l.target_ref_norm IN ({','.join('?' * len(named))})")
            params = (*ids, *named)
            links = (
                [
                    (int(s), str(t), str(n), str(c), int(k))
                    for s, t, n, c, k in self.conn.execute(
                        _LINKS.replace("GROUP BY", f"WHERE {' OR '.join(where)} GROUP BY"), params
                    )
                ]
                if where
                else []
            )
            relations = [
                (int(s), str(e), str(t), str(c)) for s, e, t, c in self.conn.execute(_RELATIONS)
            ]
            hints = self._link_hints()
        return build_projection(docs, links, relations, hints)

    def _ending_in(self, tails: set[str]) -> set[str]:
        """Stored link targets whose ASCII-lowered form ends with `/` and one of ``tails``
        (ASCII-lowered), as SQLite's `LIKE` folds case. One scan of the distinct targets: a
        `LIKE` per tail made SQLite test every link row against each (40 seeds: 30 ms)."""
        from gno.core.link_resolver import ascii_lower

        found = set()
        for (norm,) in self.conn.execute("SELECT DISTINCT target_ref_norm FROM doc_links"):
            lowered = ascii_lower(str(norm))
            i = lowered.find("/")
            while i >= 0:
                if lowered[i + 1 :] in tails:
                    found.add(str(norm))
                    break
                i = lowered.find("/", i + 1)
        return found

    def _link_hints(self) -> dict[int, tuple[str, ...]]:
        """Document id -> its content type's graph hints (the first is the edge type its
        plain links take, engine.md §7.3), as the last sync recorded the rules."""
        from gno.core.rules_meta import RULE_SOURCES, RULES_META, parse_rules_meta

        row = self.conn.execute(
            "SELECT value FROM schema_meta WHERE key = ?", (RULES_META,)
        ).fetchone()
        edges, _ = parse_rules_meta(str(row[0]) if row else None)
        if not edges:
            return {}
        rows = self.conn.execute(_TYPED.format(sources=RULE_SOURCES), (json.dumps(sorted(edges)),))
        return {int(doc_id): edges[str(kind)] for doc_id, kind in rows}

    def projection_kept(self) -> bool:
        """The full projection of this index state is in memory (a resident server's
        reads after the first): a walk or one document's links over it costs under 1 ms."""
        return self._projection is not None and self._projection[0] == self._generation()

    def graph_state(self) -> bytes | None:
        """The ``graph_state`` token (migration 11): redrawn by triggers on every change of
        the documents, links, relations or content-type rules a graph read answers from."""
        try:
            row = self.conn.execute("SELECT token FROM graph_state WHERE id = 1").fetchone()
        except apsw.SQLError:  # an index this version could not migrate (read-only file)
            return None
        return bytes(row[0]) if row else None

    def link_rows(self, doc_ids: Sequence[int], norms: Sequence[str] = ()) -> list[LinkRow]:
        """Stored links written by these documents (naming one of ``norms`` when given),
        in document and position order."""
        from gno.core.link_rows import LinkRow

        rows: list[LinkRow] = []
        extra, extra_params = "", tuple(norms)
        if norms:
            extra = f"AND l.target_ref_norm IN ({','.join('?' * len(norms))})"
        for start in range(0, len(doc_ids), 400):
            chunk = doc_ids[start : start + 400]
            marks = ",".join("?" * len(chunk))
            rows += [
                LinkRow(*r)
                for r in self.conn.execute(
                    f"""
                    SELECT l.source_doc_id, l.link_type, l.target_ref, l.target_ref_norm, l.target_anchor,
                           l.target_collection, coalesce(l.target_collection, d.collection), l.link_text,
                           l.start_line, l.start_col, l.end_line, l.end_col, l.source
                    FROM doc_links l JOIN documents d ON d.id = l.source_doc_id
                    WHERE l.source_doc_id IN ({marks}) {extra}
                    """,
                    (*chunk, *extra_params),
                )
            ]
        rows.sort(key=lambda r: (r.source_doc_id, r.start_line, r.start_col))
        return rows

    def tag_counts(self, collection: str | None, prefix: str | None) -> list[tuple[str, int]]:
        """(tag, active documents carrying it), most used first, then by tag."""
        where, params = ["d.active = 1"], []
        if collection:
            where.append("d.collection = ?")
            params.append(collection)
        if prefix:
            where.append("(t.tag = ? OR t.tag LIKE ? ESCAPE '\\')")
            params += [prefix, _like_literal(prefix) + "/%"]
        return [
            (str(tag), int(count))
            for tag, count in self.conn.execute(
                f"""
                SELECT lower(t.tag), count(DISTINCT t.document_id) FROM doc_tags t
                JOIN documents d ON d.id = t.document_id
                WHERE {" AND ".join(where)} GROUP BY 1 ORDER BY 2 DESC, 1
                """,
                tuple(params),
            )
        ]


def seed_names(rel_path: str, title: str | None) -> tuple[set[str], set[str]]:
    """How a wiki or Markdown link can name a document (link_resolver's ten ranks, read
    backwards): exact normalised targets, and tails a longer target ends with after `/`."""
    from gno.core.link_resolver import ascii_lower

    path, lowered = rel_path, ascii_lower(rel_path)
    bare = lowered.removesuffix(".md")
    names = {path, lowered, bare}
    tails = {lowered, bare}
    for i, char in enumerate(lowered):
        if char == "/":
            suffix = lowered[i + 1 :]
            names |= {suffix, suffix.removesuffix(".md")}
    if title:
        t = ascii_lower(title)
        names |= {t, t + ".md"}
        tails |= {t, t + ".md"}
    return {n for n in names if n}, {t for t in tails if t}


def _like_literal(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
