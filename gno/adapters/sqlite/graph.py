"""Links as a graph (mixed into SqliteStore): one-hop edges around a few documents.

Links are stored as written (``doc_links``) and resolved here, at read time
(engine.md §7.2): a Markdown link names an exact path; a wiki link matches, in
its collection, a title, a path (with or without ``.md``) or a path suffix on a
``/`` boundary. Exact matches are ``explicit``, suffix matches ``inferred``,
several equally good matches ``ambiguous`` (each kept, lowest id first).
"""

from __future__ import annotations

from collections.abc import Sequence

import apsw

from gno.adapters.sqlite.cursor import all_rows
from gno.rows import Edge

MAX_EDGES = 10_000


class GraphStore:
    conn: apsw.Connection

    def _wiki_targets(self, norm: str, collection: str) -> tuple[list[int], str]:
        """Active documents a wiki target names, best rank only, and the confidence."""
        bare = norm.removesuffix(".md")
        ranks = all_rows(
            self.conn.execute(
                """
            SELECT id, CASE
                WHEN lower(title) = :norm THEN 1
                WHEN lower(rel_path) IN (:norm, :bare || '.md') THEN 2
                ELSE 3 END AS rank
            FROM documents
            WHERE active = 1 AND collection = :collection AND (
                lower(title) = :norm OR lower(rel_path) IN (:norm, :bare || '.md')
                OR lower(rel_path) LIKE '%/' || :bare_like || '.md' ESCAPE '\\'
                OR lower(rel_path) LIKE '%/' || :norm_like ESCAPE '\\')
            ORDER BY rank, id
            """,
                {
                    "norm": norm,
                    "bare": bare,
                    "norm_like": _like_literal(norm),
                    "bare_like": _like_literal(bare),
                    "collection": collection,
                },
            )
        )
        if not ranks:
            return [], ""
        best = [doc_id for doc_id, rank in ranks if rank == ranks[0][1]]
        if len(best) > 1:
            return best, "ambiguous"
        return best, "explicit" if ranks[0][1] < 3 else "inferred"

    def _resolve(self, link_type: str, norm: str, collection: str) -> tuple[list[int], str]:
        if link_type == "markdown":
            row = self.conn.execute(
                "SELECT id FROM documents WHERE active = 1 AND collection = ? AND rel_path = ?",
                (collection, norm),
            ).fetchone()
            return ([row[0]], "explicit") if row else ([], "")
        return self._wiki_targets(norm, collection)

    def link_edges(self, doc_ids: Sequence[int]) -> list[Edge]:
        """Resolved links from and to these documents (both ends active), at most MAX_EDGES."""
        if not doc_ids:
            return []
        marks = ",".join("?" * len(doc_ids))
        seeds = all_rows(
            self.conn.execute(
                f"SELECT id, collection, rel_path, lower(coalesce(title, '')) FROM documents WHERE id IN ({marks})",
                tuple(doc_ids),
            )
        )
        # Link rows that may touch a seed: written by it, or naming it (path, path suffix,
        # title), found through the target index; resolution below confirms each one.
        names = sorted({name for _, _, rel, title in seeds for name in _names(rel, title)})
        name_marks = ",".join("?" * len(names))
        rows = all_rows(
            self.conn.execute(
                f"""
            SELECT l.source_doc_id, l.link_type, l.target_ref_norm,
                   coalesce(l.target_collection, d.collection)
            FROM doc_links l JOIN documents d ON d.id = l.source_doc_id AND d.active = 1
            WHERE l.source_doc_id IN ({marks}) OR l.target_ref_norm IN ({name_marks})
            LIMIT ?
            """,
                (*doc_ids, *names, MAX_EDGES),
            )
        )
        seed_set = set(doc_ids)
        edges: list[Edge] = []
        for source, link_type, norm, collection in rows:
            targets, confidence = self._resolve(link_type, norm, collection)
            edges.extend(
                (source, target, confidence)
                for target in targets
                if target != source and (source in seed_set or target in seed_set)
            )
        return edges


def _names(rel_path: str, title: str) -> set[str]:
    """How a link may name a document: its path and every '/'-suffix of it, each with and
    without .md (``a/b/c.md`` → ``c``, ``b/c.md`` …), and its title."""
    parts = rel_path.split("/")
    names = {title} if title else set()
    for i in range(len(parts)):
        suffix = "/".join(parts[i:])
        names |= {suffix, suffix.lower(), suffix.lower().removesuffix(".md")}
    return names


def _like_literal(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
