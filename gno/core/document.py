"""Everything gno derives from one document's mirror: title, metadata, tags,
links, chunks with their language, and the text FTS5 indexes. Pure."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from gno.core.chunker import Chunk, chunk_text, code_family
from gno.core.content_types import ContentTypes
from gno.core.frontmatter import Metadata, extract_metadata, parse_frontmatter
from gno.core.journal import headings as journal_headings
from gno.core.language import detect_language
from gno.core.links import Link, parse_links
from gno.core.mirror import canonicalize, sha256_text
from gno.core.regions import Regions, fence_spans
from gno.core.relations import frontmatter_relations
from gno.core.tags import collect_tags, hashtags
from gno.core.typed_metadata import typed_metadata

CODE_EXTENSIONS = frozenset(
    [
        ".c",
        ".cc",
        ".cpp",
        ".cs",
        ".go",
        ".java",
        ".js",
        ".jsx",
        ".m",
        ".mm",
        ".php",
        ".py",
        ".rb",
        ".rs",
        ".swift",
        ".ts",
        ".tsx",
    ]
)
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$")
_PATH_TYPES = (
    (re.compile(r"meeting|standup|retro|minutes"), "meeting"),
    (re.compile(r"spec|rfc|adr|design"), "spec"),
    (re.compile(r"notes|journal|log"), "notes"),
)


@dataclass(frozen=True)
class ChunkInfo:
    chunk: Chunk
    language: str | None


@dataclass(frozen=True)
class Analysis:
    mirror: str
    mirror_hash: str
    title: str
    metadata: Metadata
    tags: list[str]
    links: list[Link]
    chunks: list[ChunkInfo]
    content_type: str
    content_type_source: str
    categories: list[str]
    body_start_line: int  # first mirror line after the frontmatter
    frontmatter_type: str | None = None  # frontmatter `type`, lower-cased (content-type rules)
    typed_metadata: dict[str, tuple[str, Any]] = field(default_factory=dict)  # typed_metadata.py
    # What the knowledge delta journal records of this version, found where the document
    # is analysed (a sync's worker processes), not in the process that writes the index.
    headings: frozenset[str] = frozenset()
    relations: tuple[tuple[str, str], ...] = ()


def first_h1(mirror: str, start_line: int = 0) -> str | None:
    """The first level-1 ATX heading after ``start_line`` outside fenced code."""
    fences = fence_spans(mirror)
    fence_starts = [start for start, _ in fences]
    offset = 0
    for i, line in enumerate(mirror.split("\n")):
        at, offset = offset, offset + len(line) + 1
        if i < start_line or not line.startswith("#"):
            continue
        k = bisect.bisect_right(fence_starts, at) - 1
        if k >= 0 and at < fences[k][1]:
            continue
        if m := _H1.match(line):
            return m.group(1).strip()
    return None


def file_stem(rel_path: str) -> str:
    name = rel_path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def infer_content_type(rel_path: str, ext: str) -> tuple[str, str]:
    if ext in CODE_EXTENSIONS:
        return "code", "path-ext"
    lowered = rel_path.lower()
    for pattern, kind in _PATH_TYPES:
        if pattern.search(lowered):
            return kind, "path-ext"
    return "prose", "fallback"


def analyze(
    raw_markdown: str,
    rel_path: str,
    ext: str,
    *,
    markdown_syntax: bool,
    converter_title: str | None = None,
    content_types: ContentTypes | None = None,
) -> Analysis:
    mirror = canonicalize(raw_markdown)
    fm = parse_frontmatter(mirror) if markdown_syntax else parse_frontmatter("")
    metadata = extract_metadata(fm)
    fm_title = fm.data.get("title")
    title = (
        (fm_title.strip() if isinstance(fm_title, str) and fm_title.strip() else None)
        or converter_title
        or (first_h1(mirror, fm.end_line) if markdown_syntax else None)
        or file_stem(rel_path)
    )
    regions = Regions(mirror, fm.end_offset) if markdown_syntax else None
    tags = collect_tags(metadata.tags + (hashtags(mirror, regions) if regions else []))
    links = parse_links(mirror, rel_path, regions) if regions else []
    # What detection finds, never a collection's languageHint: content is stored once for
    # every collection holding it, and the hint is applied when results are read.
    chunks = [
        ChunkInfo(c, detect_language(mirror[c.pos : c.end]))
        for c in chunk_text(mirror, code_family(rel_path))
    ]
    fm_type_value = fm.data.get("type")
    fm_type = fm_type_value.strip().lower() if isinstance(fm_type_value, str) else None
    configured = content_types.classify(rel_path, fm_type) if content_types else None
    content_type, source = configured or infer_content_type(rel_path, ext)
    if configured and content_types and metadata.frontmatter_date is None:
        # a temporal type's document is dated by its name, never by its file time
        metadata.frontmatter_date = content_types.temporal_date(content_type, rel_path)
    categories = list(dict.fromkeys([content_type, *metadata.categories]))
    return Analysis(
        mirror=mirror,
        mirror_hash=sha256_text(mirror),
        title=title,
        metadata=metadata,
        tags=tags,
        links=links,
        chunks=chunks,
        content_type=content_type,
        content_type_source=source,
        categories=categories,
        body_start_line=fm.end_line + 1,
        frontmatter_type=fm_type or None,
        typed_metadata=typed_metadata(fm.data),
        headings=journal_headings(mirror, fm.end_line),
        relations=tuple(frontmatter_relations(mirror)),
    )
