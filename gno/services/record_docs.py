"""What a record's document takes from its record and its container (spec/records.md):

- its **date** is the record's own (mail ``Date``, event start, message time), so date
  bounds and the recency order see when the message was sent, not when the mailbox file
  last changed;
- its **content type** comes from the index.yml rules by the *container's* path (a
  ``meetings/`` prefix types the transcripts in ``meetings/``), so graph hints, temporal
  dating and ``searchBoost`` apply to records as to files.

Both live in the container's import fingerprint (``container_fingerprint``) and in each
record's content hash, so a rules change touching a container re-imports it and
re-converts its records, and an index made before this re-imports each container once.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

from gno.core.content_types import NEUTRAL, ContentTypes
from gno.core.frontmatter import parse_date
from gno.ingest.pipeline import Converted

# 2: records dated by their own date, typed by their container; 3: control characters shown
# as control pictures and lone surrogates as U+FFFD (such a record was refused, or stopped
# its container's import): each container is imported once more
RECORD_DOCS_VERSION = "3"
DATE_FIELDS = ("date", "start", "timestamp")  # mail, calendar, chat: the record's moment


def container_fingerprint(adapter_fingerprint: str, rules: ContentTypes, container: str) -> str:
    """The adapter's fingerprint, this lane's version and the rules that can type the
    container's records: a change of any re-imports the container."""
    rules_fp = rules.doc_fingerprint(container, None)
    text = (
        f"{adapter_fingerprint}\0{RECORD_DOCS_VERSION}\0{'' if rules_fp == NEUTRAL else rules_fp}"
    )
    return hashlib.sha256(text.encode()).hexdigest()


def record_date(info: dict[str, Any]) -> str | None:
    """The record's moment as ISO-8601 UTC, from its ``dateFields``; None when it has none."""
    dates = info.get("dateFields") or {}
    for name in DATE_FIELDS:
        value = dates.get(name)
        if isinstance(value, str) and (iso := parse_date(value)) is not None:
            return iso
    return None


def dated_and_typed(
    result: Converted, info: dict[str, Any], container: str, rules: ContentTypes
) -> Converted:
    analysis = result.analysis
    changes: dict[str, Any] = {
        "metadata": replace(analysis.metadata, frontmatter_date=record_date(info))
    }
    if (typed := rules.classify(container, None)) is not None:
        kind, source = typed
        rest = [c for c in analysis.categories if c != analysis.content_type]
        changes |= {
            "content_type": kind,
            "content_type_source": source,
            "categories": list(dict.fromkeys([kind, *rest])),
        }
    return replace(result, analysis=replace(analysis, **changes))
