"""Rendering command results: JSON (the schema object) and the text formats.

Everything the CLI prints goes through ``write``/``write_err`` (text, made
``terminal_safe``) or ``write_json``/``json_text`` (JSON, control characters
escaped): indexed data (titles, file names, snippets) is hostile, and a control
sequence in it must not reach the terminal (set its title, clear it, move the
cursor, answer back), with or without colour.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

FORMATS = ("json", "files", "csv", "md", "xml")
TERMINAL_SNIPPET = 200
REPORT_SNIPPET = 500


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    return '"' + escape(text).replace('"', "&quot;") + '"'


# What a terminal acts on: C0 controls but TAB and LF (ESC starts every sequence, CR
# overwrites the line), DEL, and C1 (U+0080-U+009F; U+009B is a one-character CSI).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# json.dumps escapes C0 itself; DEL and C1 it leaves raw unless ensure_ascii.
_JSON_RAW = re.compile("[\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """``text`` without the control characters a terminal would interpret."""
    return _CONTROLS.sub("", text)


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """JSON with every control character escaped: the data stays intact, the terminal
    sees none of it raw."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def dump(model: Any) -> dict[str, Any] | list[Any]:
    """The wire form: fields the handler set (explicit nulls included), JSON types."""
    return model.model_dump(mode="json", exclude_unset=True)


def _line(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def write(text: str) -> None:
    """Human text to stdout, terminal-safe."""
    sys.stdout.write(_line(terminal_safe(text)))


def write_err(text: str) -> None:
    """Human text to stderr (errors, warnings, explain lines), terminal-safe."""
    sys.stderr.write(_line(terminal_safe(text)))


def write_json(model: Any) -> None:
    sys.stdout.write(_line(json_text(dump(model))))


def _cut(text: str, limit: int, full: bool = False) -> str:
    if full or len(text) <= limit:
        return text
    return text[:limit] + "..."


def _numbered(text: str, start: int) -> str:
    return "\n".join(f"{start + i}: {line}" for i, line in enumerate(text.split("\n")))


def _snippet(hit: dict[str, Any], limit: int, full: bool, line_numbers: bool) -> str:
    text = _cut(hit.get("snippet", ""), limit, full)
    if line_numbers:
        text = _numbered(text, (hit.get("snippetRange") or {}).get("startLine", 1))
    return text


def _csv_field(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


def render_search(
    payload: dict[str, Any], fmt: str | None, *, full: bool = False, line_numbers: bool = False
) -> str:
    hits, meta = payload["results"], payload["meta"]
    if fmt == "files":
        return "\n".join(f"{h['docid']},{h['score']:.4f},{h['uri']}" for h in hits)
    if fmt == "csv":
        rows = ["docid,score,uri,title,relPath"]
        rows += [
            ",".join(
                [
                    _csv_field(h["docid"]),
                    f"{h['score']:.4f}",
                    _csv_field(h["uri"]),
                    _csv_field(h.get("title", "")),
                    _csv_field(h["source"]["relPath"]),
                ]
            )
            for h in hits
        ]
        return "\n".join(rows)
    if fmt == "md":
        out = [f'# Search Results for "{meta["query"]}"', ""]
        for h in hits:
            out += [
                f"## {h.get('title') or h['uri']}",
                "",
                f"- **URI:** {h['uri']}",
                f"- **Score:** {h['score']:.4f}",
                f"- **DocID:** {h['docid']}",
                "",
                "```",
                _snippet(h, REPORT_SNIPPET, full, line_numbers),
                "```",
                "",
            ]
        if not hits:
            out.append("No results found.")
        return "\n".join(out)
    if fmt == "xml":
        out = [
            f"<searchResults><meta query={quoteattr(meta['query'])} mode={quoteattr(meta['mode'])} "
            f'total="{meta["totalResults"]}"/>'
        ]
        for h in hits:
            parts = [
                f"<docid>{escape(h['docid'])}</docid>",
                f"<score>{h['score']:.4f}</score>",
                f"<uri>{escape(h['uri'])}</uri>",
                f"<title>{escape(h.get('title', ''))}</title>",
                f"<relPath>{escape(h['source']['relPath'])}</relPath>",
                f"<snippet>{escape(_snippet(h, REPORT_SNIPPET, full, line_numbers))}</snippet>",
            ]
            out.append("<result>" + "".join(parts) + "</result>")
        return "\n".join([*out, "</searchResults>"])
    if not hits:
        return "No results found."
    out = []
    for h in hits:
        out.append(f"[{h['docid']}] {h['uri']} (score: {h['score']:.2f})")
        if h.get("title"):
            out.append(f"  {h['title']}")
        snippet = _snippet(h, TERMINAL_SNIPPET, full, line_numbers)
        out += ["    " + line for line in snippet.split("\n")] + [""]
    relaxed = ", not every term matched" if meta.get("relaxed") else ""
    out.append(f'{len(hits)} result(s) for "{meta["query"]}" ({meta["mode"]}{relaxed})')
    return "\n".join(out)


def render_documents(payload: dict[str, Any], fmt: str | None) -> str:
    """ls output."""
    docs = payload["documents"]
    if fmt == "files":
        return "\n".join(f"{d['docid']},{d['uri']}" for d in docs)
    if fmt == "md":
        lines = ["# Documents", ""] + [
            f"- [{d.get('title') or d['uri']}]({d['uri']}) `{d['docid']}`" for d in docs
        ]
        return "\n".join(lines)
    meta = payload["meta"]
    lines = [
        f"{d['docid']}  {d['uri']}" + (f"  {d['title']}" if d.get("title") else "") for d in docs
    ]
    lines.append(f"{meta['returned']} of {meta['total']} document(s)")
    return "\n".join(lines)


def render_multi_get(payload: dict[str, Any], fmt: str | None) -> str:
    docs, skipped = payload["documents"], payload.get("skipped", [])
    if fmt == "files":
        return "\n".join(f"{d['docid']},{d['uri']}" for d in docs)
    out = []
    for d in docs:
        if fmt == "md":
            out += [
                f"## {d.get('title') or d['uri']}",
                "",
                f"- **URI:** {d['uri']}",
                "",
                d["content"],
                "",
            ]
        else:
            trunc = " (truncated)" if d.get("truncated") else ""
            out += [
                f"=== {d['uri']} ===",
                f"Lines: {d.get('totalLines', 0)}{trunc}",
                d["content"],
                "",
            ]
    if skipped:
        out += ["--- Skipped ---"] + [f"{s['ref']}: {s['reason']}" for s in skipped]
    return "\n".join(out)
