"""Read commands: search, get, multi-get, ls, status, peek."""

from __future__ import annotations

from typing import Annotated

import typer

from gno.cli.app import app, summary
from gno.cli.common import build, call, pick_format, split_csv
from gno.cli.output import (
    dump,
    render_documents,
    render_multi_get,
    render_search,
    write,
    write_json,
)

Json = Annotated[bool, typer.Option("--json", help="JSON output.")]
Files = Annotated[bool, typer.Option("--files", help="One line per hit: #docid,score,uri.")]
Csv = Annotated[bool, typer.Option("--csv", help="CSV with header docid,score,uri,title,relPath.")]
Md = Annotated[bool, typer.Option("--md", help="Markdown report.")]
Xml = Annotated[bool, typer.Option("--xml", help="XML report.")]


def _search_family(op_id: str) -> None:
    """Register `gno search` or `gno vsearch`: same flags, same output, another handler."""

    @app.command(op_id, help=summary(op_id))
    def command(
        ctx: typer.Context,
        query: Annotated[
            list[str], typer.Argument(help='Query: terms, "phrases", -excluded, prefixes.')
        ],
        limit: Annotated[
            int | None,
            typer.Option(
                "-n", "--limit", help="Max results (default 5 in the terminal, 20 otherwise)."
            ),
        ] = None,
        min_score: Annotated[
            float | None,
            typer.Option("--min-score", help="Drop hits below this normalized score (0-1)."),
        ] = None,
        collection: Annotated[
            str | None, typer.Option("-c", "--collection", help="Only this collection.")
        ] = None,
        since: Annotated[
            str | None, typer.Option("--since", help="ISO date/time or today, last week, recent...")
        ] = None,
        until: Annotated[
            str | None, typer.Option("--until", help="ISO date/time or relative token.")
        ] = None,
        category: Annotated[
            str | None, typer.Option("--category", help="Comma-separated categories (any).")
        ] = None,
        author: Annotated[str | None, typer.Option("--author", help="Author substring.")] = None,
        intent: Annotated[
            str | None,
            typer.Option("--intent", help="What you are after; steers snippets, never searched."),
        ] = None,
        exclude: Annotated[
            str | None,
            typer.Option("--exclude", help="Comma-separated terms whose documents are dropped."),
        ] = None,
        tags_all: Annotated[
            str | None, typer.Option("--tags-all", help="Comma-separated tags, all required.")
        ] = None,
        tags_any: Annotated[
            str | None, typer.Option("--tags-any", help="Comma-separated tags, any.")
        ] = None,
        lang: Annotated[
            str | None,
            typer.Option("--lang", help="Only documents with text in this language (BCP-47)."),
        ] = None,
        project_root: Annotated[
            list[str] | None,
            typer.Option("--project-root", help="Project root hint (repeatable, max 16)."),
        ] = None,
        full: Annotated[
            bool, typer.Option("--full", help="Whole mirror instead of a snippet.")
        ] = False,
        line_numbers: Annotated[
            bool, typer.Option("--line-numbers", help="Prefix snippet lines with their number.")
        ] = False,
        source: Annotated[bool, typer.Option("--source", help="Include source.absPath.")] = False,
        json_: Json = False,
        files: Files = False,
        csv: Csv = False,
        md: Md = False,
        xml: Xml = False,
    ) -> None:
        from gno_contracts.models.search_input import SearchInput

        fmt = pick_format(ctx, json=json_, files=files, csv=csv, md=md, xml=xml)
        inp = build(
            SearchInput,
            query=" ".join(query),
            limit=(5 if fmt is None else 20) if limit is None else limit,
            minScore=min_score,
            collection=collection,
            since=since,
            until=until,
            categories=split_csv(category),
            author=author,
            intent=intent,
            exclude=split_csv(exclude),
            tagsAll=split_csv(tags_all),
            tagsAny=split_csv(tags_any),
            lang=lang,
            projectHints=project_root,
            full=full,
            includeAbsPath=source,
        )
        result = call(ctx, op_id, inp)
        if fmt == "json":
            write_json(result)
        else:
            write(render_search(dump(result), fmt, full=full, line_numbers=line_numbers))


_search_family("search")
_search_family("vsearch")


@app.command("get", help=summary("get"))
def get(
    ctx: typer.Context,
    ref: Annotated[
        str, typer.Argument(help="#docid, gno://collection/path[:line] or collection/path[:line].")
    ],
    from_line: Annotated[
        int | None, typer.Option("--from", help="First line (overrides :line).")
    ] = None,
    lines: Annotated[int | None, typer.Option("-l", "--limit", help="Number of lines.")] = None,
    line_numbers: Annotated[
        bool, typer.Option("--line-numbers", help="Prefix lines with their number.")
    ] = False,
    source: Annotated[bool, typer.Option("--source", help="Include source.absPath.")] = False,
    json_: Json = False,
    md: Md = False,
) -> None:
    from gno_contracts.models.get_input import GetInput

    fmt = pick_format(ctx, json=json_, md=md)
    inp = build(
        GetInput,
        ref=ref,
        fromLine=from_line,
        lineCount=lines,
        lineNumbers=line_numbers,
        includeAbsPath=source,
    )
    result = call(ctx, "get", inp)
    if fmt == "json":
        write_json(result)
        return
    payload = dump(result)
    if fmt == "md":
        write(
            f"# {payload.get('title') or payload['uri']}\n\n- **URI:** {payload['uri']}\n"
            f"- **DocID:** {payload['docid']}\n- **Lines:** {payload['totalLines']}\n\n{payload['content']}"
        )
    else:
        write(payload["content"])


@app.command("multi-get", help=summary("multi_get"))
def multi_get(
    ctx: typer.Context,
    refs: Annotated[
        list[str], typer.Argument(help="Refs, comma-separated refs, docids or globs (notes/*.md).")
    ],
    max_bytes: Annotated[
        int, typer.Option("--max-bytes", help="Per-document byte budget (cut at a line).")
    ] = 10240,
    line_numbers: Annotated[
        bool, typer.Option("--line-numbers", help="Prefix lines with their number.")
    ] = False,
    json_: Json = False,
    files: Files = False,
    md: Md = False,
) -> None:
    from gno_contracts.models.multi_get_input import MultiGetInput

    fmt = pick_format(ctx, json=json_, files=files, md=md)
    result = call(
        ctx,
        "multi_get",
        build(MultiGetInput, refs=refs, maxBytes=max_bytes, lineNumbers=line_numbers),
    )
    write_json(result) if fmt == "json" else write(render_multi_get(dump(result), fmt))


@app.command("ls", help=summary("ls"))
def ls(
    ctx: typer.Context,
    scope: Annotated[
        str | None, typer.Argument(help="Collection name or gno://collection/prefix.")
    ] = None,
    limit: Annotated[int, typer.Option("-n", "--limit", help="Max documents.")] = 20,
    offset: Annotated[int, typer.Option("--offset", help="Skip this many.")] = 0,
    json_: Json = False,
    files: Files = False,
    md: Md = False,
) -> None:
    from gno_contracts.models.ls_input import LsInput

    fmt = pick_format(ctx, json=json_, files=files, md=md)
    result = call(ctx, "ls", build(LsInput, scope=scope, limit=limit, offset=offset))
    write_json(result) if fmt == "json" else write(render_documents(dump(result), fmt))


@app.command("status", help=summary("status"))
def status(ctx: typer.Context, json_: Json = False, md: Md = False) -> None:
    from gno_contracts.models.status_input import StatusInput

    fmt = pick_format(ctx, json=json_, md=md)
    result = call(ctx, "status", StatusInput())
    if fmt == "json":
        write_json(result)
        return
    s = dump(result)
    bullet = "- " if fmt == "md" else "  "
    lines = ["# gno status", ""] if fmt == "md" else []
    lines += [
        f"Index: {s['indexName']}",
        f"Config: {s.get('configPath')}",
        f"Database: {s.get('dbPath')}",
        f"Health: {'OK' if s['healthy'] else 'DEGRADED'}",
        "",
        "Collections:",
    ]
    for c in s["collections"]:
        warn = "" if c.get("healthy", True) else "  (root missing)"
        lines.append(
            f"{bullet}{c['name']}: {c['documentCount']} documents, {c['chunkCount']} chunks — {c['path']}{warn}"
        )
    if not s["collections"]:
        lines.append(f"{bullet}(none) — add one with: gno collection add <path> --name <name>")
    lines += [
        "",
        f"Documents: {s['totalDocuments']}",
        f"Chunks: {s['totalChunks']}",
        f"Embedding backlog: {s['embeddingBacklog']}",
        f"Recent errors (24h): {s.get('recentErrors', 0)}",
        f"Last updated: {s.get('lastUpdated') or 'never'}",
    ]
    write("\n".join(lines))


@app.command("peek", help=summary("peek"))
def peek(ctx: typer.Context, json_: Json = False) -> None:
    from gno_contracts.models.peek_input import PeekInput

    fmt = pick_format(ctx, json=json_)
    result = call(ctx, "peek", PeekInput())
    if fmt == "json":
        write_json(result)
        return
    p = dump(result)
    if not p["initialized"]:
        write("gno is not initialized here. Run: gno init")
        return
    lines = [
        f"{p['counts']['documents']} documents in {p['counts']['collections']} collection(s); "
        f"embedding backlog {p['backlog']['pending']}; errors (24h) {p['backlog']['failed']}",
        f"serve: {p['serve']['url'] if p['serve']['running'] else 'not running'}",
        "Recent:",
    ]
    lines += [f"  {r['docid']}  {r['uri']}  {r['modifiedAt']}" for r in p["recent"]]
    write("\n".join(lines))
