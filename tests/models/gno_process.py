"""Running `gno` as a real process against the fake hub (see conftest.py for the fixtures)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

GNO = [sys.executable, "-m", "gno.cli.entry"]


def gno(env: dict[str, str], *args: str, **popen: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GNO, *args],
        env=env,
        cwd=Path(env["GNO_CONFIG_DIR"]).parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **popen,  # type: ignore[arg-type]
    )


def models_dir(env: dict[str, str]) -> Path:
    return Path(env["GNO_CACHE_DIR"]) / "models"


def ok(env: dict[str, str], *args: str) -> Any:
    """Run a `--json` command that must succeed; its stdout as JSON."""
    done = gno(env, *args)
    assert done.returncode == 0, f"gno {' '.join(args)} -> {done.returncode}: {done.stderr}"
    return json.loads(done.stdout)


def error(env: dict[str, str], code: int, *args: str) -> dict[str, Any]:
    """Run a `--json` command that must fail with ``code``; its error@1.0 ``error`` object."""
    done = gno(env, *args)
    assert done.returncode == code, f"gno {' '.join(args)} -> {done.returncode}: {done.stderr}"
    assert done.stdout == ""
    return json.loads(done.stderr)["error"]


def with_tty_stderr(env: dict[str, str], *args: str) -> tuple[int, str]:
    """Run gno with stderr on a pseudo-terminal; (exit code, what it wrote there)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [*GNO, *args],
        env=env | {"COLUMNS": "160"},
        cwd=Path(env["GNO_CONFIG_DIR"]).parent,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the process closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=120), b"".join(chunks).decode("utf-8", errors="replace")
