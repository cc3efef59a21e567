"""Frontmatter and document metadata (engine.md §2.6).

The block is read as YAML with PyYAML's *base* loader: full YAML syntax (folded
and quoted multi-line titles are common in real notes) but every scalar stays a
string, so ``no`` stays "no" and dates are parsed by gno, not by YAML. When the
block is not valid YAML, a small line parser (GNO's approach: ``key: value``,
``[a, b]``, ``- item`` lists, one nested map level) recovers what it can.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gno.core.comma_list import comma_list
from gno.core.frontmatter_span import FRONTMATTER_RE as _FRONTMATTER
from gno.core.yaml_depth import nesting_depth
from gno.errors import FrontmatterError

_KEY = re.compile(r"[A-Za-z0-9_][\w .-]*")
# Logseq page property `key:: value` (the first lines of a page without frontmatter).
_PROPERTY = re.compile(r"([A-Za-z0-9_][\w-]*)::[ \t]*(.*)")
LOGSEQ_PROPERTY_LINES = 10
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_DATE_KEY = re.compile(
    r"(^|_)(date|time|created|updated|published|modified|deadline|expires|expiry|start|end)(_|$)"
)
DATE_KEYS = ("date", "published", "published_at", "created", "created_at", "updated", "updated_at")
AUTHOR_KEYS = ("author", "by", "owner", "creator")

Value = str | list[str] | dict[str, "Value"]

# YAML is parsed recursively (PyYAML builds nested values with recursive calls), so a
# block nested a few hundred levels deep would exhaust the stack: deeper is refused.
MAX_FRONTMATTER_DEPTH = 64


@dataclass
class Frontmatter:
    """A parsed frontmatter block and where it ends in the mirror."""

    data: dict[str, Value] = field(default_factory=dict)
    end_line: int = 0  # last mirror line of the block (0 when there is none)
    end_offset: int = 0  # code-point offset just past the block


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _scalar_or_list(raw: str) -> Value:
    raw = raw.strip()
    if raw.startswith("[") and raw.endswith("]"):
        return [_unquote(item) for item in raw[1:-1].split(",") if item.strip()]
    return _unquote(raw)


def normalize_key(key: str) -> str:
    key = _CAMEL.sub("_", key.strip()).lower()
    return re.sub(r"[^a-z0-9]+", "_", key).strip("_")


def _key_line(line: str) -> tuple[str, Value] | None:
    """``key: value`` (or Logseq's ``key:: value``, whose value is a comma list, never a
    YAML ``[a, b]``) -> (key, value); found with ``find`` and a fullmatch on the key, so
    a hostile line costs one pass."""
    colon = line.find(":")
    if colon <= 0:
        return None
    key = line[:colon].rstrip()
    rest = line[colon + 1 :]
    logseq = rest.startswith(":")
    if logseq:
        rest = rest[1:]
    if not _KEY.fullmatch(key) or (rest and not rest[0].isspace()):
        return None
    return key, rest.strip() if logseq else _scalar_or_list(rest)


def logseq_properties(text: str) -> dict[str, Value]:
    """Logseq page properties (``key:: value``) among the first lines of a page."""
    data: dict[str, Value] = {}
    for line in text.split("\n", LOGSEQ_PROPERTY_LINES)[:LOGSEQ_PROPERTY_LINES]:
        if m := _PROPERTY.fullmatch(line.strip()):
            data.setdefault(m.group(1), m.group(2).strip())
    return data


def _yaml_block(block: str) -> dict[str, Value] | None:
    import yaml

    if nesting_depth(block) > MAX_FRONTMATTER_DEPTH:
        raise FrontmatterError(f"Frontmatter nests deeper than {MAX_FRONTMATTER_DEPTH} levels")
    loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
    try:
        data = yaml.load(block, Loader=loader)
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


def parse_frontmatter(text: str) -> Frontmatter:
    match = _FRONTMATTER.match(text)
    if not match:
        return Frontmatter(data=logseq_properties(text) if "::" in text else {})
    end_offset = match.end()
    end_line = text.count("\n", 0, end_offset)
    block = match.group(1) or ""
    # Logseq `key:: value` lines mean nothing sensible as YAML (`tags:: #a` is a comment
    # there): such a block goes to the line parser, which reads them as properties.
    logseq = "::" in block and any(_PROPERTY.fullmatch(line) for line in block.split("\n"))
    parsed = None if logseq else _yaml_block(block)
    if parsed is not None:
        return Frontmatter(
            data={str(k): v for k, v in parsed.items()}, end_line=end_line, end_offset=end_offset
        )
    data: dict[str, Value] = {}
    current: str | None = None
    for line in (match.group(1) or "").split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t-":
            if current is None:
                continue
            stripped = line.strip()
            if stripped.startswith("- "):
                existing = data.get(current)
                items = existing if isinstance(existing, list) else []
                items.append(_unquote(stripped[2:]))
                data[current] = items
            elif line[0] in " \t" and (nested := _key_line(stripped)):
                existing = data.get(current)
                mapping = existing if isinstance(existing, dict) else {}
                mapping[nested[0]] = nested[1]
                data[current] = mapping
            continue
        key_value = _key_line(line)
        if not key_value:
            current = None
            continue
        current = key_value[0]
        data[current] = key_value[1]
    return Frontmatter(data=data, end_line=end_line, end_offset=end_offset)


def as_list(value: Value | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [v.strip() for v in value if isinstance(v, str) and v.strip()]
    if isinstance(value, dict):
        return []
    return comma_list(value)


def parse_date(value: str) -> str | None:
    """ISO-8601 (UTC) for a date or date-time string, else None."""
    from datetime import UTC, date, datetime  # only a sync or a filter parses dates

    from gno.core.dates import utc_iso

    value = value.strip()
    if not value:
        return None
    try:
        if len(value) == 10:
            parsed = datetime.combine(date.fromisoformat(value), datetime.min.time(), UTC)
        else:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=UTC)
    except ValueError:
        return None
    return utc_iso(parsed)


@dataclass
class Metadata:
    """What a document's frontmatter says about it: author, dates, categories and the rest."""

    author: str | None = None
    frontmatter_date: str | None = None
    date_fields: dict[str, str] = field(default_factory=dict)
    categories: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    doc_type: str | None = None


def _flatten(value: Value | None) -> Value | None:
    """YAML reads a Logseq ``tags:: [[a]], [[b]]`` as lists of lists: one level is enough."""
    if not isinstance(value, list):
        return value
    flat: list[str] = []
    for item in value:
        if isinstance(item, list):
            flat += [v for v in item if isinstance(v, str)]
        elif isinstance(item, str):
            flat.append(item)
    return flat


def _unwrap_ref(value: str) -> str:
    """Logseq writes tags as page refs or hashtags: ``[[project]]``, ``#urgent``."""
    if value.startswith("[[") and value.endswith("]]"):
        return value[2:-2].strip()
    return value.lstrip("#")


def extract_metadata(fm: Frontmatter) -> Metadata:
    normalized = {normalize_key(k): v for k, v in fm.data.items()}
    meta = Metadata()
    for key in AUTHOR_KEYS:
        value = normalized.get(key)
        if isinstance(value, str) and value.strip():
            meta.author = value.strip()
            break
    for key, value in normalized.items():
        if isinstance(value, str) and _DATE_KEY.search(key) and (iso := parse_date(value)):
            meta.date_fields[key] = iso
    for key in DATE_KEYS:
        if key in meta.date_fields:
            meta.frontmatter_date = meta.date_fields[key]
            break
    raw_categories = normalized.get(
        "category", normalized.get("categories", normalized.get("type"))
    )
    meta.categories = [c.lower() for c in as_list(raw_categories)]
    doc_type = normalized.get("type")
    meta.doc_type = doc_type.strip() if isinstance(doc_type, str) and doc_type.strip() else None
    meta.tags = [_unwrap_ref(tag) for tag in as_list(_flatten(normalized.get("tags")))]
    return meta
