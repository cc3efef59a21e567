"""gno's public surface matches the committed snapshots (contract-tests/snapshots/):
MCP tool lists (core and full, writes off and on), the OpenAPI document and the
--help text of every CLI command. A difference is either a bug or a deliberate
change: then `make snapshots` rewrites them and the commit names the change."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "snapshots.py"


def test_public_surface_matches_snapshots(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env |= {"GNO_CONFIG_DIR": str(tmp_path / "c"), "GNO_DATA_DIR": str(tmp_path / "d")}
    env |= {"GNO_CACHE_DIR": str(tmp_path / "k"), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
