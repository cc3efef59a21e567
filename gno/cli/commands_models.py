"""Model commands: list, path, clear."""

from __future__ import annotations

from typing import Annotated

import typer

from gno.cli.app import models_app, summary
from gno.cli.common import call, pick_format
from gno.cli.output import dump, write, write_json

Json = Annotated[bool, typer.Option("--json", help="JSON output.")]
Md = Annotated[bool, typer.Option("--md", help="Markdown output.")]


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
    chosen = [
        role
        for role, on in (("embed", embed), ("rerank", rerank), ("expand", expand), ("gen", gen))
        if on
    ]
    inp = ModelsClearInput.model_validate({"roles": chosen} if chosen and not all_ else {})
    result = call(ctx, "models_clear", inp)
    r = dump(result)
    write_json(result) if fmt == "json" else write(
        f"Removed {len(r['removed'])} file(s), {_size(r['freedBytes'])}."
    )
