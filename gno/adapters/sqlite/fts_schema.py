"""The FTS5 table behind BM25 search and its rebuild from the stored mirrors.

Prefix indexes (FTS5's ``prefix`` option): a query term other than a stopword or a short
word matches as a prefix of its stem (``"sampling"*`` -> every indexed term starting with
``sampl``). Without a prefix index of that length, FTS5 reads the doclist of every indexed
term under the prefix and merges them, positions included, into one list in memory, and
bm25() does it a second time for its IDF pass (``xQueryPhrase``). That merge grows with the
corpus: at 10x the opentelemetry-docs corpus it was most of a search's CPU
(bench/README.md, "10x scale, session 8"). With an index for the stem's length the prefix
reads one stored doclist, which an AND can also skip through.

The lengths are 4 to 12 characters, the stems of most query words; a shorter or longer stem
still matches, through the merge, as before. Each length stores the postings of every
token at least that long once more, so the short lengths cost the most: with 3 as well the
index of the opentelemetry-docs corpus grew 40 % (2.60x its Markdown, above the 2.5x
target), with 4-12 it grows 30 % (2.42x), and the median search of the bench was the same.
Matching and scores are the same with or without prefix indexes.
"""

from __future__ import annotations

from collections.abc import Iterator

import apsw

from gno.adapters.sqlite.cursor import all_rows

PREFIX_LENGTHS = "4 5 6 7 8 9 10 11 12"
NO_PREFIX_TOKENIZERS = ("trigram",)  # substring matching: a prefix index would not be used
REBUILD_BATCH = 500  # documents per executemany while the table is refilled


def fts_table_sql(tokenize: str) -> str:
    """CREATE statement of ``documents_fts`` for an FTS5 ``tokenize`` argument."""
    prefix = f",\n    prefix = '{PREFIX_LENGTHS}'" if has_prefix_indexes(tokenize) else ""
    return (
        "CREATE VIRTUAL TABLE documents_fts USING fts5 (\n"
        "    filepath, title, body,\n"
        "    content = '', contentless_delete = 1,\n"
        f"    tokenize = '{tokenize}'{prefix}\n"
        ")"
    )


def has_prefix_indexes(tokenize: str) -> bool:
    return tokenize.split()[0] not in NO_PREFIX_TOKENIZERS


def rebuild_fts(conn: apsw.Connection, tokenize: str) -> None:
    """Drop ``documents_fts`` and create it again (``fts_table_sql``), refilled with the rows
    the writer gives it (``DocumentWrites._replace_fts``): every active document that has a
    mirror, as (path, title, mirror) through ``index_text``. Rowids stay the document ids.
    A table that gets no prefix indexes is left as it is."""
    if not has_prefix_indexes(tokenize):
        return
    conn.execute("DROP TABLE IF EXISTS documents_fts")
    conn.execute(fts_table_sql(tokenize))
    insert = "INSERT INTO documents_fts (rowid, filepath, title, body) VALUES (?, ?, ?, ?)"
    for rows in _indexed_documents(conn):
        conn.executemany(insert, rows)


def _indexed_documents(conn: apsw.Connection) -> Iterator[list[tuple[int, str, str, str]]]:
    """Every active document that has a mirror as the writer gives it to ``documents_fts``:
    (id, path, title, mirror) through ``index_text``, in batches by id (the mirrors of a
    large index do not fit in memory at once)."""
    from gno.core.fts import index_text

    for rows in _stored_documents(conn):
        yield [(i, index_text(p), index_text(t or ""), index_text(b)) for i, p, t, b in rows]


def _stored_documents(conn: apsw.Connection) -> Iterator[list[tuple[int, str, str | None, str]]]:
    """(id, path, title, mirror) of every active document that has a mirror, in batches by id."""
    last = -1
    while True:
        rows = all_rows(
            conn.execute(
                "SELECT d.id, d.rel_path, d.title, c.markdown FROM documents d "
                "JOIN content c ON c.mirror_hash = d.mirror_hash "
                "WHERE d.active = 1 AND d.id > ? ORDER BY d.id LIMIT ?",
                (last, REBUILD_BATCH),
            )
        )
        if not rows:
            return
        yield rows
        last = int(rows[-1][0])


def reindex_invisible(conn: apsw.Connection) -> None:
    """Index again, in ``documents_fts`` and ``outline_fts``, the documents whose path, title
    or mirror holds an invisible character (gno.core.invisible): before ``index_text``
    dropped them, each one split a word in two. Every other row stays as it is."""
    from gno.core.fts import index_text
    from gno.core.invisible import drop_invisible

    insert = "INSERT INTO documents_fts (rowid, filepath, title, body) VALUES (?, ?, ?, ?)"
    for batch in _stored_documents(conn):
        rows = [
            (i, index_text(p), index_text(t or ""), index_text(b))
            for i, p, t, b in batch
            if any(drop_invisible(text) != text for text in (p, t or "", b))
        ]
        for table in ("documents_fts", "outline_fts"):
            conn.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(row[0],) for row in rows])
        conn.executemany(insert, rows)
        conn.executemany(OUTLINE_INSERT, outline_rows(rows))


def outline_table_sql(tokenize: str) -> str:
    """CREATE statement of ``outline_fts`` (gno.core.outline): path, title, outline of every
    active document, rowid = document id; small, so no prefix indexes."""
    return (
        "CREATE VIRTUAL TABLE outline_fts USING fts5 (\n"
        "    filepath, title, outline,\n"
        "    content = '', contentless_delete = 1,\n"
        f"    tokenize = '{tokenize}'\n"
        ")"
    )


def outline_rows(rows: list[tuple[int, str, str, str]]) -> list[tuple[int, str, str, str]]:
    """``documents_fts`` rows (id, path, title, body; index_text applied) -> ``outline_fts`` rows."""
    from gno.core.outline import outline_fields

    return [(doc_id, path, *outline_fields(title, body)) for doc_id, path, title, body in rows]


OUTLINE_INSERT = "INSERT INTO outline_fts (rowid, filepath, title, outline) VALUES (?, ?, ?, ?)"


def rebuild_outline(conn: apsw.Connection, tokenize: str) -> None:
    """Drop ``outline_fts`` and fill it again from the stored mirrors (migration 12)."""
    conn.execute("DROP TABLE IF EXISTS outline_fts")
    conn.execute(outline_table_sql(tokenize))
    for rows in _indexed_documents(conn):
        conn.executemany(OUTLINE_INSERT, outline_rows(rows))


def tokenize_spec(tokenizer: str) -> str:
    """The FTS5 ``tokenize`` argument of a configured tokenizer name. trigram (GNO's option
    for substring and CJK matching) indexes every three characters: words shorter than
    three characters match nothing and the index is several times larger."""
    from gno.core.fts import TOKENIZER  # only a new or migrating index asks: not every read

    by_name = {
        "porter": TOKENIZER,
        "unicode61": "unicode61 remove_diacritics 2",
        "trigram": "trigram",
    }
    return by_name[tokenizer]
