"""One runner for every registry operation with a CLI binding.

``run`` is the one path of every such command, whether typer parsed the line
(``commands.py``) or the lean path did (``fast.py``): flags -> input fields (an unset
option sends nothing, so the schema default holds) -> the prepare hook -> the
generated input model -> the handler -> the output model as JSON, or the registry's
renderer as text. It imports no typer: `gno search` never loads it.
"""

from __future__ import annotations

import gc
import sys
import time
from typing import Any

from gno_contracts.operations import BY_ID, CliShape, Operation

from gno.cli.output import dump, json_text, page, write_err, write_json, write_partial, write_styled
from gno.cli.settings import Settings
from gno.errors import ValidationError
from gno.render.style import terminal_safe
from gno.services import resolve

# ---------------------------------------------------------------- running one


def pick_format(settings: Settings, chosen: list[str]) -> str | None:
    """The one output format asked for (None = terminal text); global --json counts."""
    if settings.json and "json" not in chosen:
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


def call(settings: Settings, op: Operation, inp: Any, **extra: Any) -> Any:
    from gno.services import handler
    from gno.services.call import Call, bind

    verbose = settings.verbose
    if verbose:  # the plan: the operation and the input it runs with
        write_err(f"[verbose] {op.id}: {json_text(dump(inp), indent=None)}")
    app = settings.make_app()
    started = time.perf_counter()
    gc.enable()  # off while the CLI started (entry.main)
    try:
        with bind(Call("cli")):
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


def show(settings: Settings, shown: Any, fmt: str | None) -> None:
    """A renderer's text on stdout: through the pager when it is taller than the terminal
    (terminal text on a terminal, unless --no-pager), styled text as the renderer made it."""
    text = shown.out if shown.styled else terminal_safe(shown.out)
    if fmt is None and settings.pager and sys.stdout.isatty() and page(text):
        return
    write_styled(text)


def run(settings: Settings, op: Operation, values: dict[str, Any]) -> int:
    """Run one command; its exit code (0, or what the binding's ``exit`` rule says)."""
    from gno.render import Shown, View

    shape = op.cli_shape
    assert shape is not None
    fmt = pick_format(settings, [f for f in shape.formats if values.pop(f"format_{f}")])
    fields, flags = collect(shape, values)
    fields.update(dict(shape.fixed))
    target = op
    if shape.prepare is not None:
        op_id, fields = resolve(shape.prepare)(op.id, fields, fmt)
        target = BY_ID[op_id]
    inp = build(target, fields)
    if shape.progress is None:
        result = call(settings, target, inp)
    else:
        from gno.render.progress import reporter

        # A bar on a terminal, never with a format, -q or a pipe; an answer streamed to one.
        bar = fmt is None and not settings.quiet and sys.stderr.isatty()
        stream = write_partial if fmt is None and sys.stdout.isatty() else None
        with reporter(shape.progress, bar, flags, stream) as report:
            result = call(settings, target, inp, progress=report)
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
        color = people and settings.color
        view = View(
            fmt,
            bool(flags.get("full")),
            numbers,
            streamed=streamed,
            color=color,
            quiet=settings.quiet,
        )
        shown: Shown = resolve(shape.render)(result, view)
        if shown.err:
            write_err(shown.err)
        if shown.out is not None and not (shape.quiet and settings.quiet):
            show(settings, shown, fmt)
    if shape.exit is not None:
        ending: Shown = resolve(shape.exit)(result)
        if ending.err:
            write_err(ending.err)
        return ending.code
    return 0


def write_output(
    path: str, shape: CliShape, fmt: str | None, flags: dict[str, Any], result: Any
) -> None:
    """``--output <file>``: written to a temporary file beside it, then renamed, so a failure
    never leaves a partial file (the error is raised before anything is written)."""
    import os
    import tempfile
    from pathlib import Path

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
