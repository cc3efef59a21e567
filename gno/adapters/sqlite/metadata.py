"""Per-document content-type fingerprint and typed frontmatter metadata (mixed into
SqliteStore; migration 8 columns ``frontmatter_type``, ``content_rules_fp``,
``metadata_json``), and the per-collection metadata registry GET /api/metadata reads."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import apsw

MAX_METADATA_DOCS = 200_000  # documents scanned per registry request


class MetadataStore:
    conn: apsw.Connection

    def set_doc_meta(
        self,
        doc_id: int,
        frontmatter_type: str | None,
        rules_fp: str | None,
        metadata_json: str | None,
    ) -> None:
        self.conn.execute(
            "UPDATE documents SET frontmatter_type = ?, content_rules_fp = ?, metadata_json = ? "
            "WHERE id = ?",
            (frontmatter_type, rules_fp, metadata_json, doc_id),
        )

    def doc_meta(self, doc_id: int) -> tuple[str | None, str | None, str | None]:
        """(content_type_source, frontmatter_type, content_rules_fp) of one document."""
        row = self.conn.execute(
            "SELECT content_type_source, frontmatter_type, content_rules_fp FROM documents "
            "WHERE id = ?",
            (doc_id,),
        ).fetchone()
        return (row[0], row[1], row[2]) if row else (None, None, None)

    def mirror_content_types(self, mirror_hashes: list[str]) -> dict[str, tuple[str, str]]:
        """(content type, its source) of an active document per mirror hash."""
        out: dict[str, tuple[str, str]] = {}
        for i in range(0, len(mirror_hashes), 10_000):
            batch = mirror_hashes[i : i + 10_000]
            marks = ",".join("?" * len(batch))
            for mirror, kind, source in self.conn.execute(
                f"SELECT mirror_hash, content_type, content_type_source FROM documents "
                f"WHERE active = 1 AND mirror_hash IN ({marks}) ORDER BY id",
                tuple(batch),
            ):
                if kind and mirror not in out:
                    out[mirror] = (kind, source or "")
        return out

    def metadata_registry(
        self, collection: str | None, values: int
    ) -> tuple[list[dict[str, Any]], int]:
        """Each key: its type(s), how many active documents have it, its commonest values."""
        where = "active = 1 AND metadata_json IS NOT NULL"
        params: tuple[Any, ...] = ()
        if collection:
            where += " AND collection = ?"
            params = (collection,)
        keys: dict[str, dict[str, Any]] = {}
        documents = 0
        rows = self.conn.execute(
            f"SELECT metadata_json FROM documents WHERE {where} LIMIT {MAX_METADATA_DOCS}", params
        )
        for (text,) in rows:
            try:
                data = json.loads(text)
            except ValueError:
                continue
            documents += 1
            for key, pair in data.items():
                if not isinstance(pair, list) or len(pair) != 2:
                    continue
                kind, value = pair
                entry = keys.setdefault(key, {"types": Counter(), "count": 0, "values": Counter()})
                entry["types"][kind] += 1
                entry["count"] += 1
                for item in value if isinstance(value, list) else [value]:
                    entry["values"][str(item)[:256]] += 1
        out = []
        for key in sorted(keys):
            entry = keys[key]
            kind = entry["types"].most_common(1)[0][0]
            out.append(
                {
                    "key": key,
                    "type": kind,
                    "types": sorted(entry["types"]),
                    "documentCount": entry["count"],
                    "values": [
                        {"value": v, "count": c}
                        for v, c in sorted(entry["values"].items(), key=lambda vc: (-vc[1], vc[0]))[
                            :values
                        ]
                    ],
                }
            )
        return out, documents
