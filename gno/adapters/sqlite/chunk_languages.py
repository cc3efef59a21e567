"""Chunk languages as detection finds them (migration 13).

Before, a collection's ``languageHint`` was written into its chunks' ``language``. Chunks are
stored once per content, so the hint reached every other collection holding the same text,
and stayed after its collection was removed or the hint changed. The hint is now applied
when results are read (spec/cli.md, ``--language``); this puts back what detection finds in
the chunks of every document that was ingested under a hint.
"""

from __future__ import annotations

import apsw

from gno.core.language import detect_language


def redetect_hinted(conn: apsw.Connection) -> None:
    hinted = conn.execute(
        "SELECT DISTINCT d.mirror_hash, c.markdown FROM documents d "
        "JOIN content c ON c.mirror_hash = d.mirror_hash WHERE d.language_hint IS NOT NULL"
    ).fetchall()
    for mirror_hash, markdown in hinted:
        text = str(markdown)
        spans = conn.execute(
            "SELECT seq, pos, end_pos FROM content_chunks WHERE mirror_hash = ?", (mirror_hash,)
        ).fetchall()
        conn.executemany(
            "UPDATE content_chunks SET language = ? WHERE mirror_hash = ? AND seq = ?",
            [
                (detect_language(text[int(str(pos)) : int(str(end))]), mirror_hash, seq)
                for seq, pos, end in spans
            ],
        )
