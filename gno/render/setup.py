"""Terminal renderings of `gno doctor` and `gno setup`, and their exit codes."""

from __future__ import annotations

from gno_contracts.models.doctor import DoctorResult
from gno_contracts.models.setup_command_result import SetupCommandResult

from gno.render import Shown, View

MARKS = {"ok": "ok   ", "warn": "warn ", "error": "ERROR"}


def _status(value: object) -> str:
    return str(getattr(value, "value", value))


def doctor_report(result: DoctorResult, view: View) -> Shown:
    if view.fmt == "md":
        lines = ["# gno doctor", "", "| check | status | summary | fix |", "|---|---|---|---|"]
        for c in result.checks:
            fix = f"`{c.command}`" if c.command else ""
            lines.append(f"| {c.name} | {_status(c.status)} | {c.message} | {fix} |")
        lines += ["", f"Healthy: {'yes' if result.healthy else 'no'}"]
        return Shown("\n".join(lines) + "\n")
    lines = []
    for c in result.checks:
        status = _status(c.status)
        line = f"{MARKS[status]} {c.name}: {c.message}"
        if c.command and status != "ok":
            line += f"\n      fix: {c.command}"
        lines.append(line)
        lines += [f"      - {d}" for d in c.details or []]
    lines.append("Healthy." if result.healthy else "Not healthy: fix the ERROR lines above.")
    return Shown("\n".join(lines) + "\n")


def doctor_exit(result: DoctorResult) -> Shown:
    return Shown(code=0 if result.healthy else 2)


def setup_report(result: SetupCommandResult, view: View) -> Shown:
    c, s = result.collection, result.sync
    verb = "Added" if result.created else "Reused"
    lines = [
        f"{verb} collection {c.name} -> {c.path}",
        f"Indexed: {s.filesAdded} added, {s.filesUpdated} updated, "
        f"{s.filesUnchanged} unchanged, {s.filesErrored} errors",
    ]
    ready = result.activation.ready
    lines.append("Lexical proof: passed" if ready else "Lexical proof: FAILED")
    semantic = result.semantic
    lines.append(
        f"Semantic: {_status(semantic.status)}"
        + (f" ({semantic.message})" if semantic.message else "")
    )
    for conn in result.connectors:
        where = f" -> {conn.path}" if conn.path else ""
        lines.append(f"Connector {conn.id}: {_status(conn.status)}{where}")
        if conn.smoke is not None:
            code = f" [{_status(conn.smoke.code)}]" if conn.smoke.code else ""
            lines.append(f"  smoke test: {_status(conn.smoke.status)}{code}: {conn.smoke.message}")
    lines += ["Next:", *(f"  {step}" for step in result.nextSteps)]
    return Shown("\n".join(lines) + "\n")


def setup_exit(result: SetupCommandResult) -> Shown:
    return Shown(code=2 if _status(result.status) == "failed" else 0)
