"""The typed edge layer, read from the index (mixed into SqliteStore).

Links and relations are stored as written and resolved here, at read time, into a
``Projection`` (``gno.core.typed_graph``) that is kept until the index changes:
the key is SQLite's ``PRAGMA data_version`` (moves when another connection
commits) with this connection's ``total_changes()`` (moves with its own writes),
so a read never sees edges older than the documents it reads.
"""

from __future__ import annotations

import apsw

from gno.core.link_resolver import Doc
from gno.core.typed_graph import Projection, build_projection

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


class EdgeStore:
    conn: apsw.Connection
    _projection: tuple[tuple[int, int], Projection] | None = None

    def _generation(self) -> tuple[int, int]:
        ((version,),) = self.conn.execute("PRAGMA data_version").fetchall()
        return int(version), self.conn.total_changes()

    def projection(self) -> Projection:
        """The resolved typed graph of the whole index, rebuilt only after a change."""
        key = self._generation()
        if self._projection is not None and self._projection[0] == key:
            return self._projection[1]
        with self.conn:  # one read transaction: documents and links of the same state
            docs = [Doc(*row) for row in self.conn.execute(_DOCS)]
            links = self.conn.execute(_LINKS).fetchall()
            relations = self.conn.execute(_RELATIONS).fetchall()
        built = build_projection(docs, links, relations)
        self._projection = (key, built)
        return built
