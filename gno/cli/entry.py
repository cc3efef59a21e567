"""Console-script entry point: argument normalisation and the error contract.

Exit codes (surfaces.md §2.1): 0 success, 1 validation/usage, 2 runtime,
3 not running, 130 interrupted (Ctrl-C or SIGTERM). With ``--json`` an error is an
``error@1.0`` object on stderr and stdout stays empty.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import signal
import sys

from gno.start_stand_ins import defer_stdlib, without_pydantic_plugins


def hoist_globals(argv: list[str], with_value: frozenset[str], flags: frozenset[str]) -> list[str]:
    """Global options GNO accepts anywhere on the line (the registry's ``cli_globals``) moved to the
    front: typer wants them before the command."""
    front: list[str] = []
    rest: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "--":
            rest += [arg, *args]
        elif arg.split("=", 1)[0] in with_value:
            front += [arg] if "=" in arg else [arg, *itertools.islice(args, 1)]
        else:
            (front if arg in flags else rest).append(arg)
    return front + rest


def emit_error(code: str, message: str, as_json: bool, details: dict | None = None) -> None:
    from gno.cli.output import write_err
    from gno.errors import error_body
    from gno.render import json_text

    if as_json:
        sys.stderr.write(json_text(error_body(code, message, details)) + "\n")
    else:
        write_err(f"Error: {message}")


def stop_on_sigterm() -> None:
    """SIGTERM stops a command as Ctrl-C does (a sync keeps its committed batches, stops its
    workers, exits 130) instead of leaving its workers behind; both also set the flag a sync
    checks between batches (``gno.interrupts``). `gno serve` has its own handlers."""
    from gno import interrupts

    interrupts.requested = False  # a new command (tests run several in one process)
    with contextlib.suppress(ValueError):  # only the main thread may set handlers
        signal.signal(signal.SIGTERM, interrupts.stop)
        signal.signal(signal.SIGINT, interrupts.stop)


def run(argv: list[str]) -> int:
    from gno.cli.settings import HOISTED_FLAGS, HOISTED_VALUES
    from gno.errors import GnoError

    stop_on_sigterm()
    args = hoist_globals(argv, HOISTED_VALUES, HOISTED_FLAGS)
    as_json = "--json" in (args[: args.index("--")] if "--" in args else args)
    try:
        return _run(args)
    except GnoError as exc:
        emit_error(exc.cli_code, exc.message, as_json, exc.details)
        return exc.exit_code
    except KeyboardInterrupt:
        emit_error("RUNTIME", "Interrupted", as_json)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        # typer's usage errors (only the typer path imports it)
        click = sys.modules.get("typer._click.exceptions")
        if click is not None and isinstance(exc, click.ClickException):
            emit_error("VALIDATION", exc.format_message(), as_json)
            if not as_json:
                sys.stderr.write("Run `gno --help` for usage.\n")
            return 1
        # a bug: say so plainly, keep the error contract
        emit_error(
            "RUNTIME", f"Internal error ({type(exc).__name__}: {exc}). Please report it.", as_json
        )
        return 2


def _run(args: list[str]) -> int:
    """The lean path when it can read the line (gno/cli/fast.py), else the typer app."""
    from gno.cli import fast

    parsed = fast.parse(args)
    if parsed is not None:
        from gno.cli.runner import run
        from gno.cli.settings import Settings

        options, op, values = parsed
        try:
            return run(Settings(**options), op, values)
        except KeyboardInterrupt:
            return 130  # as typer answers a Ctrl-C inside a command: no message
        except BrokenPipeError:  # as typer does: the reader is gone, exit 1 without noise
            from typer._click.utils import PacifyFlushWrapper  # flushes ignore the closed pipe

            sys.stdout, sys.stderr = PacifyFlushWrapper(sys.stdout), PacifyFlushWrapper(sys.stderr)
            raise SystemExit(1) from None
    gc.enable()
    from gno.cli.app import build

    completing = bool(os.environ.get("_GNO_COMPLETE"))
    if completing:  # a completion script asks (gno/cli/completion.py): every command
        from typer._completion_classes import completion_init

        completion_init()
    app = build(None if completing else frozenset(args))
    result = app(args=args, prog_name="gno", standalone_mode=False)
    return result if isinstance(result, int) else 0


def main() -> None:
    # No cyclic garbage collection while modules load (a few % of the start, nothing to
    # collect): runner.call turns it back on before the handler, the typer path before typer.
    gc.disable()
    defer_stdlib()
    without_pydantic_plugins()
    code = run(sys.argv[1:])
    # The exit's last collection would walk every object the modules made (10+ ms); the runner
    # closed the store, so exit frees them by reference count alone (bench/README.md, session 9).
    gc.freeze()
    with contextlib.suppress(BrokenPipeError):
        sys.stdout.flush()
    sys.exit(code)


if __name__ == "__main__":
    main()
