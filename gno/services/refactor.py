"""Rename and move with a plan: ``gno_rename_note``/``gno_move_note`` (preview, apply) and
``POST /api/docs/{id}/refactor-plan``.

Preview reads the moved document and every document whose links name it (the index
says which: ``projection().link_refs``), and builds the plan (``core/refactor_plan``).
Apply takes the writer lease (``.mcp-write.lock``), finishes any apply a crash left
(``gno.refactor_journal``), builds the plan again from the files as they are now and
refuses when its digest differs from the reviewed one (``stale_plan``: some involved
file, or the target path, changed). Then it changes every file all-or-nothing through
the journal and syncs the touched paths inline so the index converges; a failed sync
leaves the files committed and says ``applied_with_sync_pending``.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gno_contracts.models.api_refactor_plan import ApiRefactorPlan
from gno_contracts.models.api_refactor_plan_input import ApiRefactorPlanInput
from gno_contracts.models.file_refactor_result import FileRefactorResult
from gno_contracts.models.move_note_input import MoveNoteInput
from gno_contracts.models.rename_note_input import RenameNoteInput
from gno_contracts.models.update_input import UpdateInput

from gno.app import App
from gno.config import Collection
from gno.core.identity import parse_ref, path_id_ref
from gno.core.link_resolver import Doc
from gno.core.link_spans import apply_edits
from gno.core.mime import extension
from gno.core.note_files import check_note_path
from gno.core.plan_digest import sha256_bytes
from gno.core.refactor_plan import Plan, SourceText, build_plan
from gno.core.write_paths import check_rel_path, check_segment
from gno.errors import DocumentNotFoundError, GnoError, InvalidPathError, ValidationError
from gno.file_writes import (
    HELD_FOLDERS,
    MAX_WRITE_BYTES,
    open_parent,
    read_existing,
    resolve_inside,
)
from gno.held_folders import Place
from gno.index_lock import write_lease
from gno.paths import expand_home
from gno.ports import Store
from gno.refactor_journal import Change, CommitFailed, commit, recover_if_pending, recover_pending
from gno.services.documents import resolve_to_write
from gno.services.sync_paths import MAX_SYNC_PATHS, resolve_paths

MARKDOWN_EXTS = (".md", ".markdown")
SYNC_INSTRUCTION = "Run gno update (or gno_sync) to bring the index up to date."


@dataclass
class _Request:
    operation: str  # rename | move
    ref: str
    name: str | None
    folder: str | None


@dataclass
class _Built:
    plan: Plan
    collection: Collection
    root: Path
    source: SourceText
    target_rel: str
    texts: dict[str, SourceText]  # relPath (source collection) or uri -> what was read


def _root(collection: Collection) -> Path:
    return Path(os.path.abspath(expand_home(collection.path)))


def _read(root: Path, doc: Doc, read_only: bool) -> SourceText:
    """A document's file as the planner needs it; only a regular file inside the root. A file
    over the write limit is fingerprinted (read in blocks) but never rewritten."""
    path = resolve_inside(root, doc.rel_path)
    try:
        fd = _open_note(root, path)
    except OSError as exc:
        raise DocumentNotFoundError(f"Cannot read {doc.uri}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise InvalidPathError(f"{doc.uri} is not a regular file")
        data = handle.read(MAX_WRITE_BYTES + 1)
        if len(data) > MAX_WRITE_BYTES:
            digest = hashlib.sha256(data)
            while block := handle.read(1 << 20):
                digest.update(block)
            return SourceText(doc, None, digest.hexdigest(), False)
    text = None
    if doc.rel_path.lower().endswith(MARKDOWN_EXTS):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
    return SourceText(doc, text, sha256_bytes(data), text is not None and not read_only)


def _open_note(root: Path, path: Path) -> int:
    """A descriptor on the file at ``path``, opened relative to its folder held from the
    root (``open_parent``): a folder on the way swapped for a link out of the root after
    ``resolve_inside`` checked it is ``INVALID_PATH``, so a private file never stands in
    for the note (its bytes would be moved into the collection, its hash shown)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW
    if not HELD_FOLDERS:
        return os.open(path, flags)
    folder = open_parent(root, path)
    try:
        return os.open(path.name, flags, dir_fd=folder)
    finally:
        os.close(folder)


def _read_only(collection: Collection | None) -> bool:
    return bool(collection and collection.read_only)


def _target_rel(req: _Request, source_rel: str) -> str:
    ext = posixpath.splitext(source_rel)[1]
    name = req.name
    if name is not None:
        if "/" in name:
            raise InvalidPathError("name is a file name, not a path; use move for folders")
        check_segment(name)
        if not posixpath.splitext(name)[1] and ext:
            name += ext
        if extension(name) != extension(source_rel):  # a note renamed into an export
            check_note_path(name, "rename a note")
    if req.operation == "rename":
        if not name:
            raise ValidationError("name is required")
        folder = posixpath.dirname(source_rel)
    else:
        raw = (req.folder or "").strip()
        if raw.startswith("gno://"):
            raise ValidationError(
                "cross_collection_unsupported: folderPath is a folder of the same collection"
            )
        folder = "" if raw in ("", ".", "/") else check_rel_path(raw.rstrip("/"))
        name = name or posixpath.basename(source_rel)
    return check_rel_path(f"{folder}/{name}" if folder else name)


def _not_a_folder(root: Path, target_rel: str) -> str | None:
    """The first folder of ``target_rel`` that exists as something else (a note, a named
    pipe): apply would fail there at commit, so the plan says so first."""
    parts = target_rel.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        rel = "/".join(parts[:depth])
        try:
            mode = os.lstat(os.path.join(os.path.realpath(root), *parts[:depth])).st_mode
        except FileNotFoundError:
            return None  # made by apply from here on
        if not stat.S_ISDIR(mode):
            return rel
    return None


def _build(app: App, store: Store, req: _Request) -> _Built:
    proj = store.projection()
    row = resolve_to_write(app, store, parse_ref(req.ref.strip()))
    if row is None or row.id not in proj.docs:
        raise DocumentNotFoundError(f"Document not found: {req.ref}")
    src = proj.docs[row.id]
    collection = app.config.find(src.collection)
    if collection is None:
        raise DocumentNotFoundError(f"Collection not found: {src.collection}")
    root = _root(collection)
    target_rel = _target_rel(req, src.rel_path)
    if target_rel == src.rel_path:
        raise ValidationError(f"{src.uri} is already at {target_rel}")
    resolve_paths(collection, [target_rel])  # inside, not through a link, indexed by the rules
    target_path = resolve_inside(root, target_rel)
    blocking: list[str] = []
    warnings: list[str] = []
    if os.path.lexists(target_path):
        blocking.append("occupied_target")
        warnings.append(f"{target_rel} already exists in {src.collection}")
    elif (in_the_way := _not_a_folder(root, target_rel)) is not None:
        blocking.append("occupied_target")  # apply could make no folder there: a conflict
        warnings.append(f"{in_the_way} is a file, not a folder, in {src.collection}")
    if _read_only(collection):
        blocking.append("read_only_document")
        warnings.append(f"collection {src.collection} is read-only")
    for edge in proj.inbound.get(src.id, ()):
        if edge.edge_source == "frontmatter-relation":  # typed edges: reported, not rewritten
            warnings.append(
                f"{proj.docs[edge.source].uri}: frontmatter relation {edge.edge_type!r} names "
                "this document and is not rewritten"
            )
    source = _read(root, src, _read_only(collection))
    texts: dict[str, SourceText] = {}
    candidates: list[SourceText] = []
    linking = {ref[0] for ref in proj.link_refs.get(src.id, ())}
    if source.text is not None:
        linking.add(src.id)
    for doc_id in sorted(linking):
        doc = proj.docs[doc_id]
        owner = app.config.find(doc.collection)
        if owner is None:
            continue
        read = source if doc_id == src.id else _read_or_none(_root(owner), doc, _read_only(owner))
        if read is None:
            warnings.append(f"{doc.uri}: links here but could not be read; not rewritten")
            continue
        texts[doc.uri] = read
        candidates.append(read)
    target_fp = sha256_bytes(
        f"{'occupied' if blocking[:1] == ['occupied_target'] else 'free'}:{target_rel}".encode()
    )
    plan = build_plan(
        operation=req.operation,
        source=source,
        target_rel=target_rel,
        index=app.paths.index_name,
        candidates=candidates,
        resolver=proj.resolver,
        target_fingerprint=target_fp,
        blocking=blocking,
        warnings=warnings,
    )
    return _Built(plan, collection, root, source, target_rel, texts)


def _read_or_none(root: Path, doc: Doc, read_only: bool) -> SourceText | None:
    """A linking document that vanished since the last sync no longer links."""
    try:
        return _read(root, doc, read_only)
    except GnoError:
        return None


def _recover(app: App) -> None:
    recover_if_pending(app.paths)


def _apply_result(
    built_or_plan: dict[str, Any], status: str, fs: str, index: str, **extra: Any
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "schemaVersion": "1.0",
        "status": status,
        "planDigest": built_or_plan["planDigest"],
        "operation": built_or_plan["operation"],
        "source": built_or_plan["source"],
        "target": built_or_plan["target"],
        "filesystem": {"state": fs},
        "indexConvergence": {"state": index},
    }
    for key, value in extra.items():
        if key == "journal":
            result["filesystem"]["recoveryJournalId"] = value
        elif key == "instruction":
            result["indexConvergence"]["recoveryInstruction"] = value
        else:
            result[key] = value
    return result


def _check_apply(inp: RenameNoteInput | MoveNoteInput) -> str:
    """GNO's apply fields, all required before anything is read or written (the CLI's
    ``--apply`` and the REST routes fill them in)."""
    if (
        inp.schemaVersion is None
        or str(getattr(inp.schemaVersion, "value", inp.schemaVersion)) != "1.0"
    ):
        raise ValidationError('apply needs schemaVersion "1.0"')
    if not inp.planDigest:
        raise ValidationError("apply needs the planDigest of the reviewed preview")
    if str(getattr(inp.confirmation, "value", inp.confirmation)) != "apply":
        raise ValidationError('apply needs confirmation "apply"')
    if inp.confirm is not True:
        raise ValidationError("apply needs confirm: true")
    return str(getattr(inp.planDigest, "root", inp.planDigest))


def apply_plan(app: App, req: _Request, digest: str) -> dict[str, Any]:
    """Apply the reviewed plan if the files still match it (under the writer lease)."""
    with write_lease(app.paths):
        recover_pending(app.paths.data_dir)
        store = app.store()
        built = _build(app, store, req)
        plan = built.plan.payload
        if built.plan.digest != digest:
            stale = dict(plan, planDigest=digest)
            return _apply_result(
                stale, "stale_plan", "unchanged", "not_attempted", reasonCode="stale_plan"
            )
        if not built.plan.can_apply:
            code = plan["safety"]["blockingReasonCodes"][0]
            status = "conflict" if code == "occupied_target" else "unsupported"
            return _apply_result(plan, status, "unchanged", "not_attempted", reasonCode=code)
        changes, touched = _changes(app, built)
        try:
            journal_id = commit(
                app.paths.data_dir,
                digest,
                changes,
                Place(built.root, built.source.doc.rel_path),
                remove_was=built.source.fingerprint,
            )
        except CommitFailed as exc:
            if exc.stale and exc.rolled_back:  # a file was written since the plan read it
                stale = dict(plan, planDigest=digest)
                return _apply_result(
                    stale, "stale_plan", "unchanged", "not_attempted", reasonCode="stale_plan"
                )
            fs = "rolled_back" if exc.rolled_back else "recovery_required"
            code = "filesystem_commit_failed" if exc.rolled_back else "rollback_recovery_required"
            extra: dict[str, Any] = {"reasonCode": code}
            if not exc.rolled_back:
                extra["journal"] = exc.journal_id
            return _apply_result(plan, "failed_rolled_back", fs, "not_attempted", **extra)
        del journal_id
        if _converge(app, touched):
            src = built.source.doc
            moved = store.document_by_path(src.collection, built.target_rel)
            # index-only tags live on the row, not in the file (a kept row keeps its own)
            if moved is not None and moved.id != src.id:
                store.move_user_tags(src.id, moved.id)
            return _apply_result(plan, "applied", "committed", "converged")
        return _apply_result(
            plan, "applied_with_sync_pending", "committed", "pending",
            reasonCode="sync_pending", instruction=SYNC_INSTRUCTION,
        )  # fmt: skip


def _changes(app: App, built: _Built) -> tuple[list[Change], dict[str, list[str]]]:
    plan = built.plan
    src = built.source.doc
    changes: list[Change] = []
    touched: dict[str, list[str]] = {src.collection: [src.rel_path, built.target_rel]}
    if src.uri in plan.edits and built.source.text is not None:
        source_data = apply_edits(built.source.text, plan.edits[src.uri]).encode("utf-8")
    else:
        # The bytes that move, read again: bounded and non-blocking like every write that
        # starts from a file, and never through a link. The file may have changed since the
        # plan read it (another process does not take the lease): a named pipe there would
        # block the lease holder forever, a huge file fill memory, a link copy what it names.
        source_data = read_existing(resolve_inside(built.root, src.rel_path), root=built.root)
    changes.append(Change(Place(built.root, built.target_rel), source_data, create=True))
    for read in built.texts.values():
        doc = read.doc
        if doc.id == src.id or read.text is None:
            continue
        edits = plan.edits.get(doc.uri)
        if not edits:
            continue
        owner = app.config.find(doc.collection)
        assert owner is not None
        data = apply_edits(read.text, edits).encode("utf-8")
        changes.append(Change(Place(_root(owner), doc.rel_path), data, was=read.fingerprint))
        touched.setdefault(doc.collection, []).append(doc.rel_path)
    return changes, touched


def _converge(app: App, touched: dict[str, list[str]]) -> bool:
    """Sync the touched paths. In batches below the pipeline's pool threshold: a handful
    of small notes converts faster inline than through freshly spawned workers. The first
    batch holds the old and the new path, so the journal records one rename."""
    from gno.ingest.pipeline import POOL_THRESHOLD
    from gno.services.sync import sync_collections

    batch = max(2, min(MAX_SYNC_PATHS, POOL_THRESHOLD - 1))
    try:
        for collection, paths in touched.items():
            unique = list(dict.fromkeys(paths))
            for start in range(0, len(unique), batch):
                inp = UpdateInput.model_validate(
                    {"collection": collection, "paths": unique[start : start + batch]}
                )
                result, _ = sync_collections(app, inp)
                if result.totalFilesErrored:
                    return False
    except GnoError:
        return False
    return True


def _run(app: App, req: _Request, inp: RenameNoteInput | MoveNoteInput) -> FileRefactorResult:
    action = str(getattr(inp.action, "value", inp.action) or "preview")
    if action == "apply":
        digest = _check_apply(inp)
        return FileRefactorResult.model_validate(apply_plan(app, req, digest))
    _recover(app)
    return FileRefactorResult.model_validate(_build(app, app.store(), req).plan.payload)


def rename_note(app: App, inp: RenameNoteInput) -> FileRefactorResult:
    return _run(app, _Request("rename", inp.ref, inp.name, None), inp)


def move_note(app: App, inp: MoveNoteInput) -> FileRefactorResult:
    return _run(app, _Request("move", inp.ref, inp.name, inp.folderPath), inp)


def refactor_plan(app: App, inp: ApiRefactorPlanInput) -> ApiRefactorPlan:
    operation = str(getattr(inp.operation, "value", inp.operation))
    if operation == "duplicate":
        raise ValidationError("duplicate keeps every link as it is: it has no refactor plan")
    ref = inp.uri or path_id_ref(inp.id)
    _recover(app)
    built = _build(app, app.store(), _Request(operation, ref, inp.name, inp.folderPath))
    plan = built.plan.payload
    return ApiRefactorPlan.model_validate(
        plan
        | {
            "nextRelPath": plan["target"]["relPath"],
            "nextUri": plan["target"]["uri"],
            "refactorWarnings": plan["safety"]["warnings"],
        }
    )
