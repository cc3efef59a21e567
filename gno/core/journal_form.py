"""A journal entry's stored form and its wire form (change@1.0): what the writer packs into
``document_changes.entry_json`` and what a page of ``changes`` unpacks it into.

Rows keep a compact form (about half the bytes of the wire shape): a snapshot is
[relPath, sourceHash, mirrorHash | "=" (same as source) | null, active]; docid and
URI are derived again on read; a delta keeps only its non-empty lists, and typed edges
are left out when they are exactly the ones the links imply (mentions / related_to).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gno.core.identity import docid_for, make_uri
from gno.core.journal import CHANGE_PREFIX, iso_second

_DELTA_KEYS = (("h", "headings"), ("l", "links"), ("e", "typedEdges"))
_DATE_KEYS = (("da", "added"), ("dr", "removed"), ("dc", "changed"))


def _pack_snapshot(snap: dict[str, Any] | None) -> list[Any] | None:
    if snap is None:
        return None
    mirror = snap["mirrorHash"]
    return [
        snap["relPath"],
        snap["sourceHash"],
        "=" if mirror == snap["sourceHash"] else mirror,
        1 if snap["active"] else 0,
    ]


def _unpack_snapshot(packed: list[Any] | None, collection: str) -> dict[str, Any] | None:
    if packed is None:
        return None
    rel_path, source_hash, mirror, active = packed
    return {
        "relPath": rel_path,
        "docid": docid_for(source_hash),
        "uri": make_uri(collection, rel_path),
        "sourceHash": source_hash,
        "mirrorHash": source_hash if mirror == "=" else mirror,
        "active": bool(active),
    }


_IMPLIED = (("wiki:", "mentions:"), ("markdown:", "related_to:"))


def _implied_edges(links: list[str]) -> list[str]:
    out = []
    for item in links:
        for prefix, edge in _IMPLIED:
            if item.startswith(prefix):
                out.append(edge + item[len(prefix) :])
    return sorted(out)


def pack_entry(
    previous: dict[str, Any] | None, current: dict[str, Any] | None, delta: dict[str, Any]
) -> str:
    packed: dict[str, Any] = {"p": _pack_snapshot(previous), "c": _pack_snapshot(current)}
    for short, name in _DELTA_KEYS:
        part = delta[name]
        if part["added"] or part["removed"]:
            packed[short] = [part["added"], part["removed"]]
    links, edges = delta["links"], delta["typedEdges"]
    implied = [_implied_edges(links["added"]), _implied_edges(links["removed"])]
    if implied == [edges["added"], edges["removed"]]:
        packed.pop("e", None)
    else:
        packed["e"] = [edges["added"], edges["removed"]]
    for short, name in _DATE_KEYS:
        if delta["dates"][name]:
            packed[short] = delta["dates"][name]
    if delta["truncated"]:
        packed["t"] = 1
    return json.dumps(packed, ensure_ascii=False, separators=(",", ":"))


def unpack_entry(text: str, collection: str) -> dict[str, Any]:
    """The wire shape (previous, current, structureDelta) of a stored entry."""
    packed = json.loads(text)
    return {
        "previous": _unpack_snapshot(packed["p"], collection),
        "current": _unpack_snapshot(packed["c"], collection),
        "structureDelta": _delta(packed),
    }


# The C scanner without json.loads' checks, one entry at a time. One parse of the joined
# page (sessions 11-13) held a page-sized text and every parsed entry at once: a 1,000-entry
# page faulted in about 400 fresh pages of memory on every read, and now none.
_decode = json.JSONDecoder().raw_decode


def wire_changes(rows: Sequence[tuple[int, int, str, str, str]]) -> list[dict[str, Any]]:
    """change@1.0 entries, keys in schema order, of stored rows (sequence, observed_ms,
    kind, collection, stored text). Each second's ISO prefix is formatted once and each
    entry's dict built once: this is the whole of `changes` but the query."""
    out = []
    second, prefix = -1, ""
    for sequence, ms, kind, collection, text in rows:
        entry = _decode(text)[0]  # freed once unpacked: its memory holds the next entry's
        if ms // 1000 != second:
            second = ms // 1000
            prefix = iso_second(second)
        out.append(
            {  # one literal: the dict is sized once, not grown key by key
                "id": f"{CHANGE_PREFIX}{sequence}",
                "kind": kind,
                "collection": collection,
                "observedAt": f"{prefix}{ms % 1000:03d}Z",
                "previous": _unpack_snapshot(entry["p"], collection),
                "current": _unpack_snapshot(entry["c"], collection),
                "structureDelta": _delta(entry),
            }
        )
    return out


# A page's empty parts are shared, their arrays tuples (they serialize as JSON arrays): a
# sync's page is mostly "created, no links, no dates", and a fresh empty pair per entry was
# a third of a 1,000-entry page's memory, faulted in page by page on every read. The wire
# form is read-only to every surface (they serialize it; the SDK validates a copy).
_NONE: tuple[()] = ()
_EMPTY_PAIR = {"added": _NONE, "removed": _NONE}
_NO_DATES = {"added": _NONE, "removed": _NONE, "changed": _NONE}


def _delta(packed: dict[str, Any]) -> dict[str, Any]:
    """An entry's structureDelta in the schema's order (a page goes out as built:
    core.wire.Formed). Written out rather than through helpers: this runs once per entry of
    a page, a thousand times."""
    get = packed.get
    h, lk, e = get("h"), get("l"), get("e")
    if e:
        edges = {"added": e[0], "removed": e[1]}
    elif "e" in packed or not lk:
        edges = _EMPTY_PAIR
    else:
        edges = {
            "added": _implied_edges(lk[0]) if lk[0] else _NONE,
            "removed": _implied_edges(lk[1]) if lk[1] else _NONE,
        }
    da, dr, dc = get("da"), get("dr"), get("dc")
    return {
        "headings": {"added": h[0], "removed": h[1]} if h else _EMPTY_PAIR,
        "links": {"added": lk[0], "removed": lk[1]} if lk else _EMPTY_PAIR,
        "typedEdges": edges,
        "dates": (
            {"added": da or _NONE, "removed": dr or _NONE, "changed": dc or _NONE}
            if da or dr or dc
            else _NO_DATES
        ),
        "truncated": bool(get("t")),
    }
