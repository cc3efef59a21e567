"""Compiled project context (``gno-compiled-context-v1``): one Context Capsule compiled
into a Markdown document a project can keep beside its code (GNO's
``POST /api/context/compiled/preview`` and ``/check``). Pure functions of the Capsule
dict; the caller says which evidence is no longer fresh.

The first line is the header::

    <!-- gno-compiled-context-v1 capsule=<capsuleId> tokens=<T> bytes=<B> digest=<sha256> -->

``digest`` is the SHA-256 of everything after that line, so an edit by hand shows;
``tokens``/``bytes`` are the budget it was compiled for, so ``check`` can compile it
again and compare byte for byte. The whole document, header included, fits
``min(T, B)`` UTF-8 bytes: tokens are counted as the Capsule's ``unicode_conservative``
estimator counts them (one token per byte, never fewer than a real tokenizer's).

Inclusion: evidence the caller marks stale is left out with its content code; the rest is
taken in the Capsule's order while the document still fits (first fit: a shorter item
after one that did not fit may still come in); what is left out is counted under
"Not included". The size of that section is reserved at its largest before selection,
so the result never exceeds the budget. Evidence text stays in a fence longer than any
backtick run inside it (``capsule_text.fence``): indexed text cannot close the block.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gno.core.capsule import sha256_text, utf8_len
from gno.core.capsule_text import UNTRUSTED_NOTE, fence, guidance_section

VERSION = "gno-compiled-context-v1"
BUDGET_REASON = "budget"
MAX_BUDGET_DIGITS = 7  # budgets are at most 4,000,000
_HEADER = re.compile(
    rf"<!-- {VERSION} capsule=([0-9a-f]{{64}}) tokens=([1-9][0-9]{{0,6}}) "
    r"bytes=([1-9][0-9]{0,6}) digest=([0-9a-f]{64}) -->"
)


@dataclass(frozen=True)
class Header:
    capsule_id: str
    tokens: int
    bytes: int
    digest: str


@dataclass(frozen=True)
class Compiled:
    markdown: str
    digest: str  # SHA-256 of the body (everything after the header line)
    included: list[dict[str, Any]]  # evidence items, in the Capsule's order
    excluded: list[tuple[dict[str, Any], str]]  # (evidence item, reason)


def header_line(capsule_id: str, tokens: int, budget_bytes: int, digest: str) -> str:
    return f"<!-- {VERSION} capsule={capsule_id} tokens={tokens} bytes={budget_bytes} digest={digest} -->"


def parse_header(markdown: str) -> Header | None:
    """The header of a compiled document, or None when its first line is not one."""
    first = markdown.split("\n", 1)[0]
    if len(first) > 256:  # a header is about 200 characters; never scan a long line
        return None
    match = _HEADER.fullmatch(first)
    if match is None:
        return None
    capsule_id, tokens, budget_bytes, digest = match.groups()
    return Header(capsule_id, int(tokens), int(budget_bytes), digest)


def body_of(markdown: str) -> str:
    """Everything after the header line (what ``digest`` covers)."""
    return markdown.split("\n", 1)[1] if "\n" in markdown else ""


def _line(text: str | None) -> str:
    return " ".join((text or "").split()).replace("`", "'")


def _frame(c: dict[str, Any]) -> str:
    r = c["retrieval"]
    out = [
        f"# Project context: {_line(c['goal'])}",
        "",
        f"- **Capsule:** `{c['capsuleId']}` (index `{r['indexSnapshot']['after']}`, "
        f"{r['depthPolicy']} retrieval)",
        "- **Check:** `POST /api/context/compiled/check` with this file and its Capsule "
        "before relying on it.",
        "",
        UNTRUSTED_NOTE,
        *guidance_section(c, with_ids=False),
        "",
        "## Evidence",
    ]
    return "\n".join(out) + "\n"


def _block(n: int, e: dict[str, Any]) -> str:
    return (
        "\n".join(
            [
                "",
                f"### [{n}] {e['uri']}:L{e['startLine']}-L{e['endLine']}",
                "",
                f"- **Evidence:** `{e['evidenceId']}` (passage `{e['passageHash']}`)",
                f"- **Title:** {_line(e['title']) or '(none)'}",
                f"- **Heading:** {_line(e['heading']) or '(none)'}",
                "",
                fence(e["text"], "untrusted"),
            ]
        )
        + "\n"
    )


def _tail(counts: Mapping[str, int], gaps: list[dict[str, Any]]) -> str:
    out: list[str] = []
    if counts:
        out += ["", "## Not included", ""]
        out += [f"- {reason}: {counts[reason]}" for reason in sorted(counts)]
    if gaps:
        out += ["", "## Gaps", ""] + [f"- {_line(g['facet'])} ({g['code']})" for g in gaps]
    return "\n".join(out) + ("\n" if out else "")


def frame_bytes(capsule: dict[str, Any], stale: Mapping[str, str]) -> int:
    """The smallest document this Capsule compiles to: header, frame and the largest
    "Not included" section, no evidence. A budget below it cannot hold anything."""
    evidence = capsule["evidence"]
    reasons = {BUDGET_REASON, *stale.values()}
    worst_tail = _tail(dict.fromkeys(reasons, max(1, len(evidence))), capsule["coverage"]["gaps"])
    header = header_line(capsule["capsuleId"], 10**MAX_BUDGET_DIGITS - 1,
                         10**MAX_BUDGET_DIGITS - 1, "0" * 64)  # fmt: skip
    return utf8_len(header) + 1 + utf8_len(_frame(capsule)) + utf8_len(worst_tail)


def compile_markdown(
    capsule: dict[str, Any], stale: Mapping[str, str], tokens: int, budget_bytes: int
) -> Compiled | None:
    """The compiled document for this budget; ``stale`` maps an evidence id to the content
    code that keeps it out. None when the budget cannot hold even the frame."""
    limit = min(tokens, budget_bytes)
    spent = frame_bytes(capsule, stale)
    if spent > limit:
        return None
    blocks: list[str] = []
    included: list[dict[str, Any]] = []
    excluded: list[tuple[dict[str, Any], str]] = []
    for e in capsule["evidence"]:
        if e["evidenceId"] in stale:
            excluded.append((e, stale[e["evidenceId"]]))
            continue
        block = _block(len(included) + 1, e)
        size = utf8_len(block)
        if spent + size > limit:
            excluded.append((e, BUDGET_REASON))
            continue
        spent += size
        blocks.append(block)
        included.append(e)
    counts = Counter(reason for _, reason in excluded)
    body = _frame(capsule) + "".join(blocks) + _tail(counts, capsule["coverage"]["gaps"])
    digest = sha256_text(body)
    markdown = header_line(capsule["capsuleId"], tokens, budget_bytes, digest) + "\n" + body
    return Compiled(markdown, digest, included, excluded)
