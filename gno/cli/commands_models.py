"""Model commands: list, path, clear, pull, use."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from gno.cli.app import models_app, summary
from gno.cli.common import build, call, pick_format, settings
from gno.cli.output import dump, write, write_err, write_json

Json = Annotated[bool, typer.Option("--json", help="JSON output.")]
Md = Annotated[bool, typer.Option("--md", help="Markdown output.")]
AllRoles = Annotated[bool, typer.Option("--all", help="Every role (the default).")]
Embed = Annotated[bool, typer.Option("--embed", help="The embedding model.")]
Rerank = Annotated[bool, typer.Option("--rerank", help="The reranker.")]
Expand = Annotated[bool, typer.Option("--expand", help="The query expansion model.")]
Gen = Annotated[bool, typer.Option("--gen", help="The generation model.")]


def _roles(all_: bool, **flags: bool) -> dict[str, list[str]]:
    """The ``roles`` input field: the roles flagged, or none (= all) with --all or no flag."""
    chosen = [role for role, on in flags.items() if on]
    return {"roles": chosen} if chosen and not all_ else {}


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


@models_app.command("list", help=summary("models_list"))
def models_list(ctx: typer.Context, json_: Json = False, md: Md = False) -> None:
    from gno_contracts.models.models_list_input import ModelsListInput

    fmt = pick_format(ctx, json=json_, md=md)
    result = call(ctx, "models_list", ModelsListInput())
    if fmt == "json":
        write_json(result)
        return
    r = dump(result)
    bullet = "- " if fmt == "md" else ""
    lines = [f"Preset: {r['activePreset']}", ""]
    for role in ("embed", "rerank", "expand", "gen"):
        if entry := r.get(role):
            state = f"on disk, {_size(entry['size'])}" if entry["cached"] else "not on disk"
            lines.append(f"{bullet}{role}: {entry['uri']} ({state}; from {entry['source']})")
    lines += ["", f"Cache: {r['cacheDir']} ({_size(r['totalSize'])})"]
    write("\n".join(lines))


@models_app.command("path", help=summary("models_path"))
def models_path(ctx: typer.Context, json_: Json = False) -> None:
    from gno_contracts.models.models_path_input import ModelsPathInput

    fmt = pick_format(ctx, json=json_)
    result = call(ctx, "models_path", ModelsPathInput())
    write_json(result) if fmt == "json" else write(dump(result)["cacheDir"])


@models_app.command("clear", help=summary("models_clear"))
def models_clear(
    ctx: typer.Context,
    all_: Annotated[
        bool, typer.Option("--all", help="Every cached model file (the default).")
    ] = False,
    embed: Annotated[bool, typer.Option("--embed", help="The embedding model's file.")] = False,
    rerank: Annotated[bool, typer.Option("--rerank", help="The reranker's file.")] = False,
    expand: Annotated[bool, typer.Option("--expand", help="The expansion model's file.")] = False,
    gen: Annotated[bool, typer.Option("--gen", help="The generation model's file.")] = False,
    json_: Json = False,
) -> None:
    from gno_contracts.models.models_clear_input import ModelsClearInput

    fmt = pick_format(ctx, json=json_)
    roles = _roles(all_, embed=embed, rerank=rerank, expand=expand, gen=gen)
    inp = ModelsClearInput.model_validate(roles)
    result = call(ctx, "models_clear", inp)
    r = dump(result)
    write_json(result) if fmt == "json" else write(
        f"Removed {len(r['removed'])} file(s), {_size(r['freedBytes'])}."
    )


@models_app.command("pull", help=summary("models_pull"))
def models_pull(
    ctx: typer.Context,
    all_: AllRoles = False,
    embed: Embed = False,
    rerank: Rerank = False,
    expand: Expand = False,
    gen: Gen = False,
    force: Annotated[
        bool, typer.Option("--force", help="Download again even when cached.")
    ] = False,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")] = False,
    json_: Json = False,
) -> None:
    from gno_contracts.models.models_pull_input import ModelsPullInput

    from gno.models.progress import download_progress

    fmt = pick_format(ctx, json=json_)
    roles = _roles(all_, embed=embed, rerank=rerank, expand=expand, gen=gen)
    inp = ModelsPullInput.model_validate(roles | {"force": force})
    show = fmt is None and not no_progress and not settings(ctx).quiet and sys.stderr.isatty()
    with download_progress(show) as report:
        result = call(ctx, "models_pull", inp, progress=report)
    if fmt == "json":
        write_json(result)
        return
    r = dump(result)
    lines = []
    for item in r["results"]:
        size = f", {_size(item['size'])}" if "size" in item else ""
        if item["status"] == "skipped":
            lines.append(f"{item['role']}: skipped {item['uri'] or '(none)'} ({item['reason']})")
        else:
            lines.append(f"{item['role']}: {item['status']} {item['uri']} ({item['path']}{size})")
    lines.append(
        f"{r['downloaded']} downloaded, {r['cached']} already cached, {r['skipped']} skipped."
    )
    write("\n".join(lines))


@models_app.command("use", help=summary("models_use"))
def models_use(
    ctx: typer.Context,
    preset: Annotated[
        str,
        typer.Argument(help="Preset id: slim-tuned, slim, balanced, quality, or one of index.yml."),
    ],
    json_: Json = False,
) -> None:
    from gno_contracts.models.models_use_input import ModelsUseInput

    fmt = pick_format(ctx, json=json_)
    result = call(ctx, "models_use", build(ModelsUseInput, preset=preset))
    if fmt == "json":
        write_json(result)
        return
    r = dump(result)
    write(f"Active preset: {r['activePreset']} (was {r['previousPreset'] or 'unknown'})")
    if r["embedModelChanged"]:
        write_err(f"Warning: {r['note']}")
