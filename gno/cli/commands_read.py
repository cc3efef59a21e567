"""Read commands: search, get, multi-get, ls, status, peek."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gno.cli.app import app, summary
from gno.cli.common import build, call, pick_format, split_csv
from gno.cli.output import (
    dump,
    render_documents,
    render_multi_get,
    render_search,
    write,
    write_err,
    write_json,
)
from gno.errors import ValidationError

Json = Annotated[bool, typer.Option("--json", help="JSON output.")]
Files = Annotated[bool, typer.Option("--files", help="One line per hit: #docid,score,uri.")]
Csv = Annotated[bool, typer.Option("--csv", help="CSV with header docid,score,uri,title,relPath.")]
Md = Annotated[bool, typer.Option("--md", help="Markdown report.")]
Xml = Annotated[bool, typer.Option("--xml", help="XML report.")]


Query = Annotated[list[str], typer.Argument(help='Query: terms, "phrases", -excluded, prefixes.')]
Limit = Annotated[
    int | None,
    typer.Option("-n", "--limit", help="Max results (default 5 in the terminal, 20 otherwise)."),
]
MinScore = Annotated[
    float | None, typer.Option("--min-score", help="Drop hits below this normalized score (0-1).")
]
Collection = Annotated[str | None, typer.Option("-c", "--collection", help="Only this collection.")]
Since = Annotated[
    str | None, typer.Option("--since", help="ISO date/time or today, last week, recent...")
]
Until = Annotated[str | None, typer.Option("--until", help="ISO date/time or relative token.")]
Category = Annotated[
    str | None, typer.Option("--category", help="Comma-separated categories (any).")
]
Author = Annotated[str | None, typer.Option("--author", help="Author substring.")]
Intent = Annotated[
    str | None,
    typer.Option("--intent", help="What you are after; steers snippets, never searched."),
]
Exclude = Annotated[
    str | None, typer.Option("--exclude", help="Comma-separated terms whose documents are dropped.")
]
TagsAll = Annotated[
    str | None, typer.Option("--tags-all", help="Comma-separated tags, all required.")
]
TagsAny = Annotated[str | None, typer.Option("--tags-any", help="Comma-separated tags, any.")]
Lang = Annotated[
    str | None, typer.Option("--lang", help="Only documents with text in this language (BCP-47).")
]
ProjectRoot = Annotated[
    list[str] | None, typer.Option("--project-root", help="Project root hint (repeatable, max 16).")
]
Full = Annotated[bool, typer.Option("--full", help="Whole mirror instead of a snippet.")]
LineNumbers = Annotated[
    bool, typer.Option("--line-numbers", help="Prefix snippet lines with their number.")
]
Source = Annotated[bool, typer.Option("--source", help="Include source.absPath.")]


def _search_fields(fmt: str | None, flags: dict[str, Any]) -> dict[str, Any]:
    """Search-family flags (a command's locals) as input-model fields (CLI -> MCP spellings)."""
    return {
        "query": " ".join(flags["query"]),
        "limit": (5 if fmt is None else 20) if flags["limit"] is None else flags["limit"],
        "minScore": flags["min_score"],
        "collection": flags["collection"],
        "since": flags["since"],
        "until": flags["until"],
        "categories": split_csv(flags["category"]),
        "author": flags["author"],
        "intent": flags["intent"],
        "exclude": split_csv(flags["exclude"]),
        "tagsAll": split_csv(flags["tags_all"]),
        "tagsAny": split_csv(flags["tags_any"]),
        "lang": flags["lang"],
        "projectHints": flags["project_root"],
        "full": flags["full"],
        "includeAbsPath": flags["source"],
    }


def _render(result: Any, fmt: str | None, full: bool, line_numbers: bool) -> None:
    if fmt == "json":
        write_json(result)
    else:
        write(render_search(dump(result), fmt, full=full, line_numbers=line_numbers))


def _search_family(op_id: str) -> None:
    """Register `gno search` or `gno vsearch`: same flags, same output, another handler."""

    @app.command(op_id, help=summary(op_id))
    def command(
        ctx: typer.Context, query: Query, limit: Limit = None, min_score: MinScore = None,
        collection: Collection = None, since: Since = None, until: Until = None, category: Category = None,
        author: Author = None, intent: Intent = None, exclude: Exclude = None, tags_all: TagsAll = None,
        tags_any: TagsAny = None, lang: Lang = None, project_root: ProjectRoot = None, full: Full = False,
        line_numbers: LineNumbers = False, source: Source = False,
        json_: Json = False, files: Files = False, csv: Csv = False, md: Md = False, xml: Xml = False,
    ) -> None:  # fmt: skip
        from gno_contracts.models.search_input import SearchInput

        fmt = pick_format(ctx, json=json_, files=files, csv=csv, md=md, xml=xml)
        inp = build(SearchInput, **_search_fields(fmt, dict(locals())))
        _render(call(ctx, op_id, inp), fmt, full, line_numbers)


_search_family("search")
_search_family("vsearch")


@app.command("query", help=summary("query"))
def query_command(
    ctx: typer.Context, query: Query, limit: Limit = None, min_score: MinScore = None,
    collection: Collection = None, since: Since = None, until: Until = None, category: Category = None,
    author: Author = None, intent: Intent = None, exclude: Exclude = None, tags_all: TagsAll = None,
    tags_any: TagsAny = None, lang: Lang = None, project_root: ProjectRoot = None, full: Full = False,
    line_numbers: LineNumbers = False, source: Source = False,
    fast: Annotated[bool, typer.Option("--fast", help="BM25 + vectors only: no expansion, rerank or graph.")] = False,
    thorough: Annotated[bool, typer.Option("--thorough", help="Larger candidate pool (40).")] = False,
    expand: Annotated[bool, typer.Option("--expand", help="Balanced mode: generated query expansion on (default: slim presets only).")] = False,
    no_expand: Annotated[bool, typer.Option("--no-expand", help="Balanced mode: no generated query expansion.")] = False,
    no_rerank: Annotated[bool, typer.Option("--no-rerank", help="No reranking.")] = False,
    candidate_limit: Annotated[int | None, typer.Option("-C", "--candidate-limit", help="Rerank pool (1-100).")] = None,
    query_mode: Annotated[list[str] | None, typer.Option("--query-mode", help="term:<text>, intent:<text> or hyde:<text> (repeatable).")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Stage lines on stderr (meta.explain with --json).")] = False,
    target: Annotated[str | None, typer.Option("--target", help="With `gno query diagnose <query>`: the document to explain.")] = None,
    json_: Json = False, files: Files = False, csv: Csv = False, md: Md = False, xml: Xml = False,
) -> None:  # fmt: skip
    from gno_contracts.models.query_input import QueryInput

    fmt = pick_format(ctx, json=json_, files=files, csv=csv, md=md, xml=xml)
    if fast and thorough:
        raise ValidationError("Choose --fast or --thorough, not both")
    if expand and no_expand:
        raise ValidationError("Choose --expand or --no-expand, not both")
    modes = []
    for raw in query_mode or []:
        mode, sep, text = raw.partition(":")
        if not sep or mode not in ("term", "intent", "hyde") or not text.strip():
            raise ValidationError(
                f"Invalid --query-mode {raw!r}: use term:<text>, intent:<text> or hyde:<text>"
            )
        modes.append({"mode": mode, "text": text.strip()})
    depth = {"fast": fast, "thorough": thorough, "candidateLimit": candidate_limit, "queryModes": modes or None,
             "expand": True if expand else False if no_expand else None, "rerank": False if no_rerank else None}  # fmt: skip
    if (
        target and query and query[0] == "diagnose"
    ):  # GNO's spelling: gno query diagnose <q> --target <ref>
        _diagnose(ctx, fmt, query[1:], target, dict(locals()), depth)
        return
    fields = _search_fields(fmt, dict(locals()))
    extra = depth | {"explain": explain}
    result = call(ctx, "query", build(QueryInput, **fields, **extra))
    if explain and fmt != "json" and result.meta.explain:
        for line in result.meta.explain.lines:
            write_err(f"[explain] {line.stage}: {line.message}")
    _render(result, fmt, full, line_numbers)


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


def _diagnose(
    ctx: typer.Context,
    fmt: str | None,
    words: list[str],
    target: str,
    flags: dict[str, Any],
    depth: dict[str, Any],
) -> None:
    from gno_contracts.models.query_diagnose_input import QueryDiagnoseInput

    if fmt not in (None, "json"):
        raise ValidationError("query diagnose prints JSON or terminal text only")
    fields = _search_fields(fmt, flags | {"query": words})
    result = call(
        ctx,
        "query_diagnose",
        build(QueryDiagnoseInput, **fields, **depth, target=target),
    )
    if fmt == "json":
        write_json(result)
        return
    d = dump(result)
    lines = [f"Target: {d['target']['ref']} ({d['target']['status']})"]
    if d["target"]["filterReasons"]:
        lines.append("Filtered out by: " + ", ".join(d["target"]["filterReasons"]))
    for stage in d["stages"]:
        where = f"rank {stage['rank']}" if stage["rank"] else "absent"
        fate = "survived" if stage["survived"] else f"dropped ({stage['dropReason']})"
        lines.append(f"  {stage['id']:7s} {stage['status']:7s} {where:10s} {fate}")
    lines.append(f"Mode: {d['meta']['mode']}, results: {d['meta']['totalResults']}")
    write("\n".join(lines))
