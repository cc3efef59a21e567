"""One runner for every registry operation with a CLI binding.

``register`` turns each binding (schemas/operations.yaml ``cli``) into a typer
command: its arguments and options become the command's parameters, so --help
and parsing are typer's own. ``run`` is the one path of every such command:
flags -> input fields (an unset option sends nothing, so the schema default
holds) -> the prepare hook -> the generated input model -> the handler -> the
output model as JSON, or the registry's renderer as text.
"""

from __future__ import annotations

import inspect
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from gno_contracts.operations import BY_ID, CLI_FORMATS, OPERATIONS, CliParam, CliShape, Operation

from gno.cli.output import (
    dump,
    json_text,
    page,
    write_err,
    write_json,
    write_partial,
    write_styled,
)
from gno.errors import ValidationError
from gno.render.style import terminal_safe
from gno.services import resolve

KINDS: dict[str, Any] = {"bool": bool, "int": int, "float": float, "str": str, "list": list[str]}
Param = inspect.Parameter


def settings(ctx: typer.Context) -> Any:
    return ctx.find_root().obj


# ---------------------------------------------------------------- building commands


def parameter(p: CliParam) -> Param:
    """The typer parameter of one registry argument or option."""
    if p.kind == "bool" and p.flags:
        option = typer.Option(*p.flags, help=p.help)
        return Param(p.name, Param.KEYWORD_ONLY, annotation=Annotated[bool, option], default=False)
    kind = KINDS[p.kind]
    if not p.flags:
        argument = typer.Argument(help=p.help)
        if p.required:
            return Param(p.name, Param.KEYWORD_ONLY, annotation=Annotated[kind, argument])
        return Param(
            p.name, Param.KEYWORD_ONLY, annotation=Annotated[kind | None, argument], default=None
        )
    # The schema default applies when the option is absent; --help still names it.
    shown = f"{p.help}  [default: {p.shown}]" if p.shown is not None else p.help
    option = typer.Option(*p.flags, help=shown)
    return Param(
        p.name, Param.KEYWORD_ONLY, annotation=Annotated[kind | None, option], default=None
    )


def format_parameters(formats: tuple[str, ...]) -> list[Param]:
    """The output format flags (declared once, in the registry's ``cli_formats``)."""
    return [
        Param(
            f"format_{name}",
            Param.KEYWORD_ONLY,
            annotation=Annotated[bool, typer.Option(f"--{name}", help=CLI_FORMATS[name])],
            default=False,
        )
        for name in formats
    ]


def command(
    params: list[Param], body: Callable[..., None], doc: str | None = None
) -> Callable[..., None]:
    """A function typer can read: ``ctx`` then ``params``, calling ``body(ctx, **values)``."""

    def invoke(ctx: typer.Context, **values: Any) -> None:
        body(ctx, **values)

    every = [Param("ctx", Param.POSITIONAL_OR_KEYWORD, annotation=typer.Context), *params]
    invoke.__signature__ = inspect.Signature(every)  # type: ignore[attr-defined]
    invoke.__annotations__ = {p.name: p.annotation for p in every} | {"return": None}
    invoke.__doc__ = doc
    return invoke


def register(groups: dict[str, typer.Typer]) -> None:
    """Add a command for every operation with a CLI binding, in registry order.

    A first word no group owns yet (`graph` of `graph query`) becomes a group; the
    operation whose command is that word alone, or a two-word one marked ``default``
    (`tags list`), is what the group runs when invoked without a subcommand."""
    shapes = [op.cli_shape for op in OPERATIONS if op.cli_shape is not None]
    prefixes = {s.command.split()[0] for s in shapes if len(s.command.split()) == 2}
    for word in sorted(prefixes - set(groups)):
        groups[word] = typer.Typer(
            invoke_without_command=True, rich_markup_mode=None, add_completion=False
        )
    defaults: set[str] = set()
    for op in OPERATIONS:
        shape = op.cli_shape
        if shape is None:
            continue
        *group, name = shape.command.split()
        params = [parameter(p) for p in shape.params] + format_parameters(shape.formats)

        def body(ctx: typer.Context, _op: Operation = op, **values: Any) -> None:
            run(ctx, _op, values)

        def alone(ctx: typer.Context, _op: Operation = op, **values: Any) -> None:
            if ctx.invoked_subcommand is None:
                run(ctx, _op, values)

        if not group and name in groups:  # `graph` itself, beside `graph query`
            groups[name].callback(help=op.summary)(command(params, alone, op.summary))
            defaults.add(name)
            continue
        groups[" ".join(group)].command(name, help=op.summary)(command(params, body))
        if shape.default and group[0] not in defaults:
            groups[group[0]].callback(help=op.summary)(command(params, alone, op.summary))
            defaults.add(group[0])
    root = groups[""]
    for word in sorted(prefixes):
        if not any(g.name == word for g in root.registered_groups):
            root.add_typer(groups[word], name=word)


# ---------------------------------------------------------------- running one


def pick_format(ctx: typer.Context, chosen: list[str]) -> str | None:
    """The one output format asked for (None = terminal text); global --json counts."""
    if settings(ctx).json and "json" not in chosen:
        chosen.append("json")
    if len(chosen) > 1:
        raise ValidationError(
            f"Choose one output format, not {' and '.join('--' + c for c in chosen)}"
        )
    return chosen[0] if chosen else None


def split_csv(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def collect(shape: CliShape, values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Flags -> (input fields, view flags). Options come before arguments, so
    `gno embed notes -c misc` embeds misc; an option left unset sends nothing."""
    by_name = {p.name: p for p in shape.params}
    fields: dict[str, Any] = {}
    view: dict[str, Any] = {}
    cleared = set()
    for p in sorted(shape.params, key=lambda p: not p.flags):
        raw = values[p.name]
        if p.view:
            view[p.name if p.to is None else p.to] = raw
        if p.clears is not None:
            cleared |= {p.clears} if raw else set()
        if p.to is None:
            continue
        if p.kind == "bool" and p.flags:
            if raw and p.excludes and values[p.excludes]:
                other = max(by_name[p.excludes].flags, key=len)
                raise ValidationError(f"Choose {max(p.flags, key=len)} or {other}, not both")
            if p.append is not None:
                if raw:
                    fields.setdefault(p.to, []).append(p.append)
            elif p.value is not None:
                fields.update({p.to: p.value} if raw else {})
            else:
                fields[p.to] = raw  # a flag is its own value: absent means off
            continue
        if raw is None:
            continue
        if p.split is not None:
            raw = resolve(p.split)(raw)
        elif p.csv:
            raw = split_csv(raw)
        elif p.join is not None:
            raw = p.join.join(raw)
        fields.setdefault(p.to, raw)
    for name in cleared:
        fields.pop(name, None)
    return fields, view


def build(op: Operation, fields: dict[str, Any]) -> Any:
    """The operation's generated input model; a bad value is a usage error (exit 1)."""
    from pydantic import ValidationError as PydanticError

    from gno.services import model

    try:
        return model(op.input_model).model_validate(fields)
    except PydanticError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "input"
        raise ValidationError(f"Invalid {where}: {first['msg']}") from None


@contextmanager
def progress(
    ctx: typer.Context, shape: CliShape, fmt: str | None, view: dict[str, Any]
) -> Iterator[Any]:
    """The progress callback of a long command: a bar on a terminal, never with a
    format, -q or a pipe; None otherwise."""
    show = fmt is None and not settings(ctx).quiet and sys.stderr.isatty()
    if shape.progress == "answer":  # generated text straight to the terminal
        if fmt is None and sys.stdout.isatty():
            streamed: list[str] = view.setdefault("streamed", [])

            def stream(text: str) -> None:
                streamed.append(text)
                write_partial(text)

            yield stream
        else:
            yield None
        return
    if shape.progress == "download":
        from gno.models.progress import download_progress

        with download_progress(show and not view.get("no_progress")) as report:
            yield report
        return
    from gno.render.progress import sync_progress

    with sync_progress(show) as bar:
        if bar is not None and shape.progress == "embed":  # embed reports (done, total)
            yield lambda done, total: bar("embed", done, total)
        else:
            yield bar


def call(ctx: typer.Context, op: Operation, inp: Any, **extra: Any) -> Any:
    from gno.services import handler

    verbose = settings(ctx).verbose
    if verbose:  # the plan: the operation and the input it runs with
        write_err(f"[verbose] {op.id}: {json_text(dump(inp), indent=None)}")
    app = settings(ctx).make_app()
    started = time.perf_counter()
    try:
        result = handler(op.id)(app, inp, **extra)
        from gno.services.trace_surface import TRACED_OPERATIONS, record_call

        if op.id in TRACED_OPERATIONS and (trace_id := record_call(app, op.id, inp, result)):
            write_err(f"Trace: {trace_id}")  # stdout stays the result (spec/traces.md)
        return result
    finally:
        if verbose:
            write_err(f"[verbose] {op.id}: {(time.perf_counter() - started) * 1000:.1f} ms")
            for role, found in app.models.roles_used().items():
                why = app.unavailable.get(role, "not available")
                write_err(f"[verbose] model {role}: {app.model_uri(role) if found else why}")
        app.close()


def show(ctx: typer.Context, shown: Any, fmt: str | None) -> None:
    """A renderer's text on stdout: through the pager when it is taller than the terminal
    (terminal text on a terminal, unless --no-pager), styled text as the renderer made it."""
    text = shown.out if shown.styled else terminal_safe(shown.out)
    if fmt is None and settings(ctx).pager and sys.stdout.isatty() and page(text):
        return
    write_styled(text)


def run(ctx: typer.Context, op: Operation, values: dict[str, Any]) -> None:
    from gno.render import Shown, View

    shape = op.cli_shape
    assert shape is not None
    fmt = pick_format(ctx, [f for f in shape.formats if values.pop(f"format_{f}")])
    fields, flags = collect(shape, values)
    fields.update(dict(shape.fixed))
    target = op
    if shape.prepare is not None:
        op_id, fields = resolve(shape.prepare)(op.id, fields, fmt)
        target = BY_ID[op_id]
    inp = build(target, fields)
    if shape.progress is None:
        result = call(ctx, target, inp)
    else:
        with progress(ctx, shape, fmt, flags) as report:
            result = call(ctx, target, inp, progress=report)
    if flags.get("output"):  # --output: the same text into a file, atomically
        write_output(flags["output"], shape, fmt, flags, result)
    elif fmt == "json":
        write_json(result)
    elif shape.render is not None:
        streamed = "".join(flags["streamed"]) if "streamed" in flags else None
        # For people (terminal text on a terminal): colour unless --no-color/NO_COLOR, and
        # snippet line numbers; --line-numbers asks for them everywhere.
        people = fmt is None and sys.stdout.isatty()
        numbers = bool(flags.get("line_numbers")) or (people and "line_numbers" in flags)
        color = people and settings(ctx).color
        view = View(
            fmt,
            bool(flags.get("full")),
            numbers,
            streamed=streamed,
            color=color,
            quiet=settings(ctx).quiet,
        )
        shown: Shown = resolve(shape.render)(result, view)
        if shown.err:
            write_err(shown.err)
        if shown.out is not None and not (shape.quiet and settings(ctx).quiet):
            show(ctx, shown, fmt)
    if shape.exit is not None:
        ending: Shown = resolve(shape.exit)(result)
        if ending.err:
            write_err(ending.err)
        if ending.code:
            raise typer.Exit(ending.code)


def write_output(
    path: str, shape: CliShape, fmt: str | None, flags: dict[str, Any], result: Any
) -> None:
    """``--output <file>``: written to a temporary file beside it, then renamed, so a failure
    never leaves a partial file (the error is raised before anything is written)."""
    import os
    import tempfile
    from pathlib import Path

    from gno.cli.output import dump, json_text
    from gno.render import Shown, View

    if fmt == "json":
        text = json_text(dump(result)) + "\n"
    else:
        assert shape.render is not None
        shown: Shown = resolve(shape.render)(result, View(fmt, False, False))
        text = (shown.out or "") + "\n"
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    except OSError as exc:
        raise ValidationError(f"Cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
