"""Index-building commands: init, collection *, update, cleanup."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer

from gno.cli.app import app, collection_app, summary
from gno.cli.common import build, call, pick_format, settings, split_csv
from gno.cli.output import dump, write, write_err, write_json
from gno.core.globs import split_globs

Json = Annotated[bool, typer.Option("--json", help="JSON output.")]
Md = Annotated[bool, typer.Option("--md", help="Markdown output.")]
Pattern = Annotated[
    str | None, typer.Option("--pattern", help="Glob of files to index (default **/*).")
]
Include = Annotated[
    str | None, typer.Option("--include", help="Comma-separated extension allowlist (.md,.pdf).")
]
Exclude = Annotated[
    str | None, typer.Option("--exclude", help="Comma-separated names or globs to skip.")
]
UpdateCmd = Annotated[
    str | None, typer.Option("--update", help="Shell command run in the folder before each sync.")
]
Language = Annotated[
    str | None,
    typer.Option("--language", help="BCP-47 language of the collection (skips detection)."),
]


def _collection_fields(
    path: str | None,
    name: str | None,
    pattern: str | None,
    include: str | None,
    exclude: str | None,
    update: str | None,
) -> dict[str, Any]:
    """The collection flags shared by `init` and `collection add`, as input-model fields."""
    return {
        "path": path,
        "name": name,
        "pattern": pattern,
        "include": split_csv(include),
        "exclude": None if exclude is None else split_globs(exclude),
        "updateCmd": update,
    }


def _say(ctx: typer.Context, message: str) -> None:
    if not settings(ctx).quiet:
        write(message)


@app.command("init", help=summary("init"))
def init(
    ctx: typer.Context,
    path: Annotated[
        str | None, typer.Argument(help="Folder to add as the first collection.")
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Collection name (default: folder name).")
    ] = None,
    pattern: Pattern = None,
    include: Include = None,
    exclude: Exclude = None,
    update: UpdateCmd = None,
    tokenizer: Annotated[
        str | None,
        typer.Option(
            "--tokenizer",
            help="FTS tokenizer: porter (default), unicode61, or GNO's 'snowball english' (= porter).",
        ),
    ] = None,
    language: Language = None,
    json_: Json = False,
) -> None:
    from gno_contracts.models.init_input import InitInput

    fmt = pick_format(ctx, json=json_)
    fields = _collection_fields(path, name, pattern, include, exclude, update)
    inp = build(InitInput, **fields, tokenizer=tokenizer, language=language)
    result = call(ctx, "init", inp)
    if fmt == "json":
        write_json(result)
        return
    r = dump(result)
    _say(
        ctx,
        f"{'Initialized' if r['created'] else 'Already initialized'}: config {r['configPath']}, index {r['dbPath']}",
    )
    if r.get("collection"):
        _say(
            ctx,
            f"Collection {r['collection']['name']} -> {r['collection']['path']}. Next: gno update",
        )


def _collection_line(c: dict[str, Any]) -> str:
    extra = f" include={','.join(c['include'])}" if c["include"] else ""
    return f"{c['name']}: {c['path']} (pattern {c['pattern']}{extra})"


@collection_app.command("add", help=summary("collection_add"))
def collection_add(
    ctx: typer.Context,
    path: Annotated[str, typer.Argument(help="Folder to index.")],
    name: Annotated[
        str | None, typer.Option("-n", "--name", help="Collection name (default: folder name).")
    ] = None,
    pattern: Pattern = None,
    include: Include = None,
    exclude: Exclude = None,
    update: UpdateCmd = None,
    language: Language = None,
    json_: Json = False,
) -> None:
    from gno_contracts.models.collection_add_input import CollectionAddInput

    fmt = pick_format(ctx, json=json_)
    fields = _collection_fields(path, name, pattern, include, exclude, update)
    inp = build(CollectionAddInput, **fields, languageHint=language)
    result = call(ctx, "collection_add", inp)
    if fmt == "json":
        write_json(result)
    else:
        _say(
            ctx,
            f"Added collection {_collection_line(dump(result)['collection'])}\nNext: gno update",
        )


@collection_app.command("list", help=summary("collection_list"))
def collection_list(ctx: typer.Context, json_: Json = False, md: Md = False) -> None:
    from gno_contracts.models.collection_list_input import CollectionListInput

    fmt = pick_format(ctx, json=json_, md=md)
    result = call(ctx, "collection_list", CollectionListInput())
    if fmt == "json":
        write_json(result)
        return
    items = dump(result)
    prefix = "- " if fmt == "md" else ""
    write(
        "\n".join(prefix + _collection_line(c) for c in items)
        if items
        else "No collections. Add one: gno collection add <path>"
    )


@collection_app.command("remove", help=summary("collection_remove"))
def collection_remove(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Collection name.")],
    json_: Json = False,
) -> None:
    from gno_contracts.models.collection_remove_input import CollectionRemoveInput

    fmt = pick_format(ctx, json=json_)
    result = call(ctx, "collection_remove", build(CollectionRemoveInput, collection=name))
    write_json(result) if fmt == "json" else _say(
        ctx, f"Removed collection {name}. {dump(result).get('note', '')}"
    )


@collection_app.command("rename", help=summary("collection_rename"))
def collection_rename(
    ctx: typer.Context,
    old: Annotated[str, typer.Argument(help="Current name.")],
    new: Annotated[str, typer.Argument(help="New name.")],
    json_: Json = False,
) -> None:
    from gno_contracts.models.collection_rename_input import CollectionRenameInput

    fmt = pick_format(ctx, json=json_)
    result = call(ctx, "collection_rename", build(CollectionRenameInput, oldName=old, newName=new))
    write_json(result) if fmt == "json" else _say(
        ctx, f"Renamed collection {old} -> {dump(result)['collection']['name']}"
    )


@contextmanager
def _progress(enabled: bool) -> Iterator[Any]:
    """A rich progress bar on stderr, or a no-op callback."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    tasks: dict[str, Any] = {}
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    ) as bar:

        def report(collection: str, done: int, total: int) -> None:
            if collection not in tasks:
                tasks[collection] = bar.add_task(collection, total=total)
            bar.update(tasks[collection], completed=done)

        yield report


def _call_with_progress(
    ctx: typer.Context, fmt: str | None, op_id: str, inp: Any, label: str | None = None
) -> Any:
    """Run a long operation with a progress bar on a terminal (never with --json, -q or a pipe).
    ``label`` names the bar for handlers that report (done, total) without a name."""
    show = fmt is None and not settings(ctx).quiet and sys.stderr.isatty()
    with _progress(show) as report:
        progress = report
        if report is not None and label is not None:
            progress = lambda done, total: report(label, done, total)  # noqa: E731
        return call(ctx, op_id, inp, progress=progress)


@app.command("update", help=summary("update"))
def update(
    ctx: typer.Context,
    collection: Annotated[
        str | None, typer.Option("-c", "--collection", help="Only this collection.")
    ] = None,
    git_pull: Annotated[
        bool, typer.Option("--git-pull", help="git pull in collection roots first.")
    ] = False,
    json_: Json = False,
) -> None:
    from gno_contracts.models.update_input import UpdateInput

    fmt = pick_format(ctx, json=json_)
    inp = build(UpdateInput, collection=collection, gitPull=git_pull, runUpdateCmd=True)
    result = _call_with_progress(ctx, fmt, "update", inp)
    r = dump(result)
    if fmt == "json":
        write_json(result)
    else:
        for c in r["collections"]:
            _say(
                ctx,
                f"{c['collection']}: {c['filesProcessed']} files, {c['filesAdded']} added, "
                f"{c['filesUpdated']} updated, {c['filesUnchanged']} unchanged, {c['filesErrored']} errors, "
                f"{c['filesMarkedInactive']} removed ({c['durationMs']} ms)",
            )
            for err in c["errors"][:10]:
                write_err(f"  {err['code']}: {err['relPath'] or c['collection']}: {err['message']}")
        if not r["collections"]:
            _say(ctx, "No collections configured. Add one: gno collection add <path> --name <name>")
    if r.get("interrupted"):
        write_err("Interrupted: finished files are saved; run `gno update` again to continue.")
        raise typer.Exit(130)


@app.command("cleanup", help=summary("cleanup"))
def cleanup(ctx: typer.Context, json_: Json = False) -> None:
    from gno_contracts.models.cleanup_input import CleanupInput

    fmt = pick_format(ctx, json=json_)
    result = call(ctx, "cleanup", CleanupInput())
    if fmt == "json":
        write_json(result)
    else:
        r = dump(result)
        _say(
            ctx,
            f"Removed {r['deletedDocuments']} inactive documents, {r['deletedContent']} unused mirrors, "
            f"{r['deletedErrors']} old error records.",
        )


@app.command("embed", help=summary("embed"))
def embed(
    ctx: typer.Context,
    collection_arg: Annotated[str | None, typer.Argument(help="Only this collection.")] = None,
    collection: Annotated[
        str | None, typer.Option("-c", "--collection", help="Only this collection.")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Re-embed every chunk (stored text vectors are reused).")
    ] = False,
    batch_size: Annotated[
        int, typer.Option("--batch-size", help="Chunks per write transaction.")
    ] = 32,
    json_: Json = False,
) -> None:
    from gno_contracts.models.embed_input import EmbedInput

    fmt = pick_format(ctx, json=json_)
    inp = build(
        EmbedInput, collection=collection or collection_arg, force=force, batchSize=batch_size
    )
    result = _call_with_progress(ctx, fmt, "embed", inp, label="embed")
    r = dump(result)
    if fmt == "json":
        write_json(result)
    else:
        _say(
            ctx,
            f"Embedded {r['embedded']} chunks with {r['model']} ({r['errors']} errors, {r['duration']:.1f} s)",
        )
    if r.get("interrupted"):
        write_err("Interrupted: finished vectors are saved; run `gno embed` again to continue.")
        raise typer.Exit(130)


@app.command("index", help=summary("index"))
def index(
    ctx: typer.Context,
    collection_arg: Annotated[str | None, typer.Argument(help="Only this collection.")] = None,
    no_embed: Annotated[bool, typer.Option("--no-embed", help="Sync only.")] = False,
    git_pull: Annotated[
        bool, typer.Option("--git-pull", help="git pull in collection roots first.")
    ] = False,
    json_: Json = False,
) -> None:
    from gno_contracts.models.index_input import IndexInput

    fmt = pick_format(ctx, json=json_)
    inp = build(
        IndexInput, collection=collection_arg, noEmbed=no_embed, gitPull=git_pull, runUpdateCmd=True
    )
    result = _call_with_progress(ctx, fmt, "index", inp)
    r = dump(result)
    if fmt == "json":
        write_json(result)
    else:
        sync = r["syncResult"]
        _say(
            ctx,
            f"Synced {sync['totalFilesProcessed']} files ({sync['totalFilesAdded']} added, "
            f"{sync['totalFilesUpdated']} updated, {sync['totalFilesErrored']} errors)",
        )
        if embedded := r.get("embedResult"):
            _say(
                ctx,
                f"Embedded {embedded['embedded']} chunks with {embedded['model']} ({embedded['errors']} errors)",
            )
    if r["syncResult"].get("interrupted") or (r.get("embedResult") or {}).get("interrupted"):
        raise typer.Exit(130)
