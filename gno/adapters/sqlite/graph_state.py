"""The ``graph_state`` token (migration 11) and the triggers that draw it again.

Answers of `gno links`, `backlinks`, `graph`, `graph query` and `impact` are kept beside the
index under this token (gno/services/graph_cache.py); every change of what they answer from
draws a new one, inside the writing transaction.
"""

from __future__ import annotations

import apsw

# Columns of ``documents`` a graph read answers from (gno/services/graph_cache.py).
_GRAPH_DOC_COLUMNS = (
    "active, docid, collection, rel_path, uri, title, content_type, content_type_source"
)


def create_graph_state(conn: apsw.Connection) -> None:
    """The token's table, its first random value, and one trigger per change that matters:
    active documents' identity, titles and content types, stored links, frontmatter
    relations and the content-type rules in ``schema_meta``."""
    statements = [
        "CREATE TABLE graph_state (id INTEGER PRIMARY KEY CHECK (id = 1), token BLOB NOT NULL)",
        "INSERT INTO graph_state (id, token) VALUES (1, randomblob(16))",
    ]
    rules = "'content_type_rules'"  # gno.core.rules_meta.RULES_META, as stored
    events = {
        "documents": ["INSERT", "DELETE", f"UPDATE OF {_GRAPH_DOC_COLUMNS}"],
        "doc_links": ["INSERT", "DELETE", "UPDATE"],
        "doc_relations": ["INSERT", "DELETE", "UPDATE"],
        "schema_meta": [
            f"INSERT ON schema_meta WHEN NEW.key = {rules}",
            f"DELETE ON schema_meta WHEN OLD.key = {rules}",
            f"UPDATE ON schema_meta WHEN {rules} IN (OLD.key, NEW.key)",
        ],
    }
    for table, kinds in events.items():
        for kind in kinds:
            name = f"graph_state_{table}_{kind.split()[0].lower()}"
            event = kind if " ON " in kind else f"{kind} ON {table}"
            statements.append(
                f"CREATE TRIGGER {name} AFTER {event} BEGIN "
                "UPDATE graph_state SET token = randomblob(16) WHERE id = 1; END"
            )
    for statement in statements:
        conn.execute(statement)
