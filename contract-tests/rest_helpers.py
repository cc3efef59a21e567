"""Helpers of the REST contract tests: an indexed corpus with vectors (tiny model),
a real `gno serve` (or `gno daemon`) process, and an httpx client for it."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from contract_helpers import GNO, MISC, NOTES, gno_env, run_gno, write_tree

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
URL_LINE = re.compile(r"gno (?:serve|daemon): (http://[^\s]+:(\d+))")
START_SECONDS = 60


def build_corpus(root: Path, *, vectors: bool = True) -> dict[str, str]:
    """init + two collections + update (+ embed with a tiny random-weight model)."""
    notes = write_tree(root / "corpus" / "notes", NOTES)
    misc = write_tree(root / "corpus" / "misc", MISC)
    env = gno_env(root)
    if vectors:
        from tests.tiny_gguf import write_tiny_bert

        env["GNO_EMBED_MODEL"] = f"file:{write_tiny_bert(root / 'tiny-bert.gguf')}"
    steps = [
        ["init", "--json"],
        ["collection", "add", str(notes), "--name", "notes", "--json"],
        ["collection", "add", str(misc), "--name", "misc", "--json"],
        ["update", "--json"],
    ]
    if vectors:
        steps.append(["embed", "--json"])
    for args in steps:
        done = run_gno(env, *args)
        assert done.returncode == 0, (args, done.stderr)
    return env


@dataclass
class Server:
    proc: subprocess.Popen[str]
    url: str
    port: int
    stderr: list[str]

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=30)


def start_server(env: dict[str, str], *flags: str, command: str = "serve") -> Server:
    """`gno serve --port 0 …` (or ``command``) as a real process; returns once it printed
    its URL. ``url`` is the loopback URL, also for a wildcard bind."""
    proc = subprocess.Popen(
        [str(GNO), command, "--port", "0", *flags],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(env["GNO_CONFIG_DIR"]).parent,
    )
    errors: list[str] = []
    threading.Thread(target=lambda: errors.extend(proc.stderr or []), daemon=True).start()
    found: list[re.Match[str]] = []

    def read_url() -> None:
        for line in proc.stdout or []:
            if match := URL_LINE.search(line):
                found.append(match)
                return

    reader = threading.Thread(target=read_url, daemon=True)
    reader.start()
    reader.join(START_SECONDS)
    if not found:
        proc.kill()
        proc.wait()
        raise AssertionError(f"gno {command} did not start: {''.join(errors)}")
    port = int(found[0].group(2))
    return Server(proc, f"http://127.0.0.1:{port}", port, errors)


@contextlib.contextmanager
def running(env: dict[str, str], *flags: str, command: str = "serve") -> Iterator[Server]:
    server = start_server(env, *flags, command=command)
    try:
        yield server
    finally:
        if server.proc.poll() is None:
            server.proc.send_signal(signal.SIGTERM)
            try:
                server.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(server.proc.pid, signal.SIGKILL)
                server.proc.wait()


@contextlib.contextmanager
def with_gateway(env: dict[str, str], tmp: Path, block: dict[str, Any]) -> Iterator[dict[str, str]]:
    """A copy of the corpus's config dir whose index.yml has this gateway block."""
    config_dir = tmp / "config"
    shutil.copytree(env["GNO_CONFIG_DIR"], config_dir)
    config_file = config_dir / "index.yml"
    data = yaml.safe_load(config_file.read_text())
    data["gateway"] = block
    config_file.write_text(yaml.safe_dump(data))
    yield env | {"GNO_CONFIG_DIR": str(config_dir)}
