"""Capture: one note with provenance, written and indexed before the call returns.

Path: an explicit ``path`` wins; else ``folderPath``/``title`` give a safe ``.md`` name;
else ``inbox/YYYY-MM-DD/capture-<12 hex of contentHash>.md``. Collisions count files on
disk and documents in the index. Default policy: ``open_existing`` for the generated
hash path (the same text captured twice is one note), ``error`` otherwise;
``create_with_suffix`` takes ``name-2.md``, ``name-3.md``…; MCP's legacy ``overwrite``
replaces. A ``requestId`` seen before answers the first receipt and writes nothing.
Everything runs under the writer lease; the note is synced inline (never embedded:
the embedding backlog picks it up).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from gno_contracts.models.capture_input import CaptureInput
from gno_contracts.models.mcp_capture_result import McpCaptureResult

from gno.app import App
from gno.core.frontmatter import parse_frontmatter
from gno.core.note_files import (
    MAX_CONTENT_BYTES,
    capture_path,
    check_note_path,
    check_text,
    content_hash,
    file_name_for_title,
    join_folder,
    note_text,
)
from gno.core.note_presets import preset
from gno.core.write_paths import check_segment
from gno.errors import DuplicateError, FileMissingError, ValidationError
from gno.file_writes import read_existing
from gno.index_lock import write_lease
from gno.services.note_writer import (
    Target,
    free_suffix,
    now_stamp,
    occupied,
    on_disk,
    remember_request,
    replayed,
    sync_now,
    tags_of,
    target,
    uri_of,
    writable_collection,
    write_file,
)

SOURCE_FIELDS = (
    "title",
    "url",
    "uri",
    "docid",
    "mime",
    "ext",
    "author",
    "observedAt",
    "externalId",
)


def note_body(title: str | None, content: str | None, preset_id: str | None) -> str:
    """What goes below the frontmatter: the content as given, else the preset's scaffold
    under the title heading."""
    if content is not None and content.strip():
        return content
    chosen = preset(preset_id)
    heading = f"# {title.strip()}\n" if title and title.strip() else ""
    scaffold = chosen.body if chosen else ""
    body = f"{heading}\n{scaffold}" if heading and scaffold else heading or scaffold
    if not body.strip():
        raise ValidationError(
            "Content is empty: give content, or a title or preset to scaffold the note"
        )
    return body


def frontmatter_of(
    title: str | None, preset_id: str | None, tags: list[str], source: dict[str, Any] | None
) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if title and title.strip():
        data["title"] = title.strip()
    chosen = preset(preset_id)
    if chosen:
        data.update(chosen.frontmatter)
    if tags:
        data["tags"] = list(tags)
    if source is not None:
        data["source"] = dict(source)
    return data


def _source(inp: CaptureInput) -> dict[str, Any]:
    given = inp.source.model_dump(mode="json", exclude_none=True) if inp.source else {}
    out: dict[str, Any] = {
        "kind": str(given.get("kind") or "direct"),
        "capturedAt": given.get("capturedAt") or now_stamp(),
    }
    for key in SOURCE_FIELDS:
        if given.get(key):
            out[key] = given[key]
    return out


def _planned(app: App, inp: CaptureInput, body_hash: str) -> tuple[Target, str]:
    """The target and the policy that applies to it."""
    collection = writable_collection(app, inp.collection)
    if inp.path:
        rel, default = inp.path, "error"
    elif inp.title and inp.title.strip():
        rel, default = (
            join_folder(inp.folderPath, check_segment(file_name_for_title(inp.title))),
            "error",
        )
    elif inp.folderPath and inp.folderPath.strip("/"):
        rel, default = join_folder(inp.folderPath, f"capture-{body_hash[:12]}.md"), "error"
    else:
        rel, default = capture_path(body_hash, datetime.now(UTC)), "open_existing"
    policy = str(inp.collisionPolicy.value) if inp.collisionPolicy else default
    check_note_path(rel, "capture")
    return target(collection, rel), policy


def _existing_source(t: Target) -> dict[str, Any] | None:
    try:
        text = read_existing(t.path, root=t.root).decode("utf-8", errors="replace")
    except FileMissingError:
        return None
    value = parse_frontmatter(text).data.get("source")
    if not isinstance(value, dict) or not isinstance(value.get("kind"), str):
        return None
    if value["kind"] not in ("direct", "web", "email", "meeting", "chat", "file", "api", "unknown"):
        return None
    keep = {
        k: v
        for k, v in value.items()
        if k in ("kind", "capturedAt", *SOURCE_FIELDS) and isinstance(v, str)
    }
    return keep if "capturedAt" in keep else None


def capture(app: App, inp: CaptureInput) -> McpCaptureResult:
    content = check_text(inp.content) if inp.content is not None else None
    if inp.title is not None:
        check_text(inp.title, "Title")
    tags = tags_of(inp.tags)
    body = check_text(
        note_body(inp.title, content, str(inp.presetId.value) if inp.presetId else None)
    )
    body_hash = content_hash(body)
    source = _source(inp)
    with write_lease(app.paths):
        if (first := replayed(app, inp.requestId, "capture")) is not None:
            return McpCaptureResult.model_validate(first)
        t, policy = _planned(app, inp, body_hash)
        outcome = "created"
        if occupied(app, t):
            if inp.overwrite:
                outcome = "overwritten"
            elif policy == "open_existing":
                # Only the index still has it (the file was deleted since the last sync):
                # there is nothing to open, and the text must not be dropped.
                outcome = "opened_existing" if on_disk(t) else "created"
            elif policy == "create_with_suffix":
                t, outcome = free_suffix(app, t), "created_with_suffix"
            else:
                raise DuplicateError(
                    f"{uri_of(app, t.collection.name, t.rel)} already exists "
                    "(collisionPolicy open_existing or create_with_suffix to go ahead)"
                )
        if outcome == "opened_existing":
            source = _existing_source(t) or source
        else:
            preset_id = str(inp.presetId.value) if inp.presetId else None
            text = note_text(frontmatter_of(inp.title, preset_id, tags, source), body)
            check_text(text)
            write_file(t, text, replace=outcome == "overwritten")
        doc = sync_now(app, t)
        receipt = {
            "uri": uri_of(app, t.collection.name, t.rel),
            "docid": doc.docid,
            "collection": t.collection.name,
            "relPath": t.rel,
            "absPath": str(t.path),
            "serverInstanceId": app.jobs.instance_id,
            "created": outcome in ("created", "created_with_suffix", "overwritten"),
            "openedExisting": outcome == "opened_existing",
            "createdWithSuffix": outcome == "created_with_suffix",
            "overwritten": outcome == "overwritten",
            "contentHash": body_hash,
            "source": source,
            "tags": tags,
            "sync": {"status": "completed", "jobId": None},
            "embed": {
                "status": "not_requested",
                "reason": "Capture never embeds; gno embed (or the daemon) picks the note up",
            },
            "collisionPolicyResult": outcome,
        }
        remember_request(app, inp.requestId, "capture", receipt)
    return McpCaptureResult.model_validate(receipt)


def read_note_file(path: str, what: str) -> str:
    """A note's text from the file ``path`` the user named (``what`` names it in errors).
    It is opened without blocking and checked on the descriptor (``read_regular``): a named
    pipe would wait for a writer forever and a device stream without end, so either is
    refused unread, and so is a file over the limit (not read to be cut, which could split
    a character)."""
    from gno.ingest.reading import FileTooLarge, read_regular

    try:
        data = read_regular(path, MAX_CONTENT_BYTES)
    except FileTooLarge:
        raise ValidationError(
            f"{what} is larger than {MAX_CONTENT_BYTES} bytes (1 MiB), the most a note holds"
        ) from None
    except OSError as exc:
        raise ValidationError(f"Cannot read {what}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError(f"{what} is not UTF-8 text") from None
