"""Console-script entry point: argument normalisation and the error contract.

Exit codes (surfaces.md §2.1): 0 success, 1 validation/usage, 2 runtime,
3 not running, 130 interrupted (Ctrl-C or SIGTERM). With ``--json`` an error is an
``error@1.0`` object on stderr and stdout stays empty.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

from gno.cli.output import json_text, write_err


def hoist_globals(argv: list[str], with_value: frozenset[str], flags: frozenset[str]) -> list[str]:
    """Global options GNO accepts anywhere on the line (``app.global_options``) moved to the
    front: typer wants them before the command."""
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest.extend(argv[i:])
            break
        name = arg.split("=", 1)[0]
        if name in with_value:
            if "=" in arg:
                front.append(arg)
            else:
                front.extend(argv[i : i + 2])
                i += 1
        elif arg in flags:
            front.append(arg)
        else:
            rest.append(arg)
        i += 1
    return front + rest


def wants_json(argv: list[str]) -> bool:
    return "--json" in argv[: argv.index("--")] if "--" in argv else "--json" in argv


def emit_error(code: str, message: str, as_json: bool, details: dict | None = None) -> None:
    if as_json:
        body: dict = {"code": code, "message": message}
        if details:
            body["details"] = details
        sys.stderr.write(json_text({"error": body}) + "\n")
    else:
        write_err(f"Error: {message}")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def stop_on_sigterm() -> None:
    """SIGTERM stops a command the way Ctrl-C does: a sync keeps its committed batches,
    stops its worker processes and exits 130. Killed outright instead, it would leave
    the workers behind, waiting forever. (`gno serve` installs its own handlers.)"""
    with contextlib.suppress(ValueError):  # only the main thread may set handlers
        signal.signal(signal.SIGTERM, _interrupt)


def run(argv: list[str]) -> int:
    from typer._click.exceptions import ClickException

    from gno.cli.app import app, global_options
    from gno.errors import GnoError

    stop_on_sigterm()
    if os.environ.get("_GNO_COMPLETE"):  # a completion script asks (gno/cli/completion.py)
        from typer._completion_classes import completion_init

        completion_init()
    args = hoist_globals(argv, *global_options())
    as_json = wants_json(args)
    try:
        result = app(args=args, prog_name="gno", standalone_mode=False)
    except GnoError as exc:
        emit_error(exc.cli_code, exc.message, as_json, exc.details)
        return exc.exit_code
    except ClickException as exc:
        emit_error("VALIDATION", exc.format_message(), as_json)
        if not as_json:
            sys.stderr.write("Run `gno --help` for usage.\n")
        return 1
    except KeyboardInterrupt:
        emit_error("RUNTIME", "Interrupted", as_json)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: say so plainly, keep the error contract
        emit_error(
            "RUNTIME", f"Internal error ({type(exc).__name__}: {exc}). Please report it.", as_json
        )
        return 2
    return result if isinstance(result, int) else 0


def main() -> None:
    code = run(sys.argv[1:])
    with contextlib.suppress(BrokenPipeError):
        sys.stdout.flush()
    sys.exit(code)


if __name__ == "__main__":
    main()
