"""One runner for every registry operation with a CLI binding, whether typer parsed the line
(``commands.py``) or the lean path did (``fast.py``): flags -> input fields (an unset option
sends nothing, so the schema default holds) after the binding's rules, prompt, routes and
prepare hook -> the input (``lean_input`` or the generated model) -> the handler -> JSON or
the registry's renderer. It imports no typer: `gno search` never loads it."""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import Any

from gno_contracts.operations import BY_ID, CliShape, Operation

from gno.cli.output import page, write_err, write_partial, write_styled
from gno.cli.settings import Settings
from gno.errors import ValidationError
from gno.render import dump, json_text
from gno.render.style import terminal_safe
from gno.services import resolve, validated
from gno.services.wire import lean_input


def pick_format(settings: Settings, chosen: list[str]) -> str | None:
    """The one output format asked for (None = terminal text); global --json counts."""
    chosen += ["json"] if settings.json and "json" not in chosen else []
    if len(chosen) > 1:
        raise ValidationError("Choose one output format, not --" + " and --".join(chosen))
    return chosen[0] if chosen else None


def given(value: Any) -> bool:
    """The parameter was on the line: an option's value, or a flag that is on."""
    return value is not None and value is not False


def collect(shape: CliShape, values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Flags -> (input fields, view flags), after the binding's ``rules``. Options come before
    arguments, so `gno embed notes -c misc` embeds misc; an option left unset sends nothing."""
    for when, needs, refuses, message in shape.rules:
        applies = when is None or given(values[when])
        missing = needs is not None and not values[needs]
        if applies and (missing or (refuses is not None and given(values[refuses]))):
            raise ValidationError(message)
    by_name = {p.name: p for p in shape.params}
    fields: dict[str, Any] = {}
    view: dict[str, Any] = {}
    cleared = set()
    for p in sorted(shape.params, key=lambda p: not p.flags):
        raw = values[p.name]
        if raw and p.excludes and values[p.excludes]:
            other = max(by_name[p.excludes].flags, key=len)
            raise ValidationError(f"Choose {max(p.flags, key=len)} or {other}, not both")
        if p.view:
            view[p.name if p.to is None else p.to] = raw
        if p.clears is not None:
            cleared |= {p.clears} if raw else set()
        if p.env is not None and raw:  # the catalog reads the run's model choices there
            if p.kind == "bool":
                os.environ.pop(p.env, None)
            else:
                os.environ[p.env] = raw
        if p.to is None:
            continue
        if p.kind == "bool" and p.flags:
            if p.append is not None:
                if raw:
                    fields.setdefault(p.to, []).append(p.append)
            elif p.value is not None:
                fields.update({p.to: p.value, **dict(p.sets or ())} if raw else {})
            else:
                fields[p.to] = raw  # a flag is its own value: absent means off
            continue
        if raw is None:
            continue
        if p.split is not None:  # a comma list (`csv: true`), globs with braces, ...
            raw = resolve(p.split)(raw)
        elif p.join is not None:
            raw = p.join.join(raw)
        fields.setdefault(p.to, raw)
    for name in cleared:
        fields.pop(name, None)
    for name in [n for n in fields if "." in n]:  # `source.url`: a field of `source`
        head, _, tail = name.partition(".")
        fields.setdefault(head, {})[tail] = fields.pop(name)
    return fields, view


def ask(settings: Settings, shape: CliShape, fields: dict[str, Any]) -> None:
    """The binding's ``prompt`` when its first field is left out, on a terminal only: else (or
    with --yes) its ``missing`` usage error, not a prompt that would hang a pipe."""
    first = shape.prompt[0][0]
    if fields.get(first):
        return
    if settings.yes or not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise ValidationError(shape.missing or f"Missing {first}")
    import typer

    for name, question, default in shape.prompt:
        if name == first or name not in fields:
            fields[name] = typer.prompt(question, default=default, err=True).strip()


def call(settings: Settings, op: Operation, inp: Any, **extra: Any) -> Any:
    from gno.services.call import Call, bind
    from gno.services.wire import execute

    verbose = settings.verbose
    if verbose:  # the plan: the operation and the input it runs with
        write_err(f"[verbose] {op.id}: {json_text(dump(inp), indent=None)}")
    app = settings.make_app()
    started = time.perf_counter()
    gc.freeze()  # what the imports made is never garbage: no collection need walk it
    gc.enable()  # off while the CLI started (entry.main)
    try:
        with bind(Call("cli")):
            result = execute(app, op, inp, **extra)
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


def run(settings: Settings, op: Operation, values: dict[str, Any]) -> int:
    """Run one command; its exit code (0, or what the binding's ``exit`` rule says)."""
    from gno.render import Shown

    shape = op.cli_shape
    assert shape is not None
    fmt = pick_format(settings, [f for f in shape.formats if values[f"format_{f}"]])
    fields, flags = collect(shape, values)
    fields.update(dict(shape.fixed))
    if fmt is not None:  # e.g. GNO's 20 hits in every machine format, 5 in the terminal
        fields = dict(shape.formatted) | fields
    if shape.prompt:
        ask(settings, shape, fields)
    routed = next((o for name, o in shape.routes if given(values[name])), op.id)
    if shape.prepare is not None:
        routed, fields = resolve(shape.prepare)(routed, fields, fmt)
    target = BY_ID[routed]
    inp: Any = lean_input(target, fields)
    if inp is None:
        inp = validated(target.id, fields)
    if shape.progress is None:
        result = call(settings, target, inp)
    else:
        from gno.render.progress import reporter

        # A bar on a terminal, never with a format, -q or a pipe; an answer streamed to one.
        bar = fmt is None and not settings.quiet and sys.stderr.isatty()
        stream = write_partial if fmt is None and sys.stdout.isatty() else None
        with reporter(shape.progress, bar, flags, stream) as report:
            result = call(settings, target, inp, progress=report)
    deliver(settings, shape, fmt, flags, result)
    if shape.exit is not None:
        ending: Shown = resolve(shape.exit)(result)
        if ending.err:
            write_err(ending.err)
        return ending.code
    return 0


def deliver(
    settings: Settings, shape: CliShape, fmt: str | None, flags: dict[str, Any], result: Any
) -> None:
    """The result as JSON or the renderer's text: on stdout (through the pager when it is
    taller than the terminal, unless --no-pager), or with ``--output`` into a file written at
    once (a temporary file beside it, renamed), so a failure never leaves a partial file."""
    from gno.render import View

    output = flags.get("output")
    if fmt == "json":  # JSON escapes control characters itself (gno.render.json_text)
        text = json_text(dump(result))
        return write_file(output, text) if output else write_styled(text)
    if shape.render is None:
        return
    # For people (terminal text on a terminal): colour unless --no-color/NO_COLOR, and
    # snippet line numbers; --line-numbers asks for them everywhere.
    people = fmt is None and not output and sys.stdout.isatty()
    numbers = bool(flags.get("line_numbers")) or (people and "line_numbers" in flags)
    streamed = "".join(flags["streamed"]) if "streamed" in flags else None
    view = View(fmt, bool(flags.get("full")), numbers, streamed=streamed,
                color=people and settings.color, quiet=settings.quiet)  # fmt: skip
    shown = resolve(shape.render)(result, view)
    if shown.err:
        write_err(shown.err)
    if output:
        write_file(output, shown.out or "")
    elif shown.out is not None and not (shape.quiet and settings.quiet):
        text = shown.out if shown.styled else terminal_safe(shown.out)
        if not (fmt is None and not settings.no_pager and sys.stdout.isatty() and page(text)):
            write_styled(text)


def write_file(path: str, text: str) -> None:
    from pathlib import Path

    from gno.file_writes import write_atomic

    try:  # private, as the temporary file it used to be renamed from
        write_atomic(Path(path), (text + "\n").encode("utf-8"), mode=0o600)
    except OSError as exc:
        raise ValidationError(f"Cannot write {path}: {exc.strerror or exc}") from None
