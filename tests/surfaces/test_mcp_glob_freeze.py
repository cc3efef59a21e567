"""Defect 1 as it was met: one read-only `gno_multi_get` call froze a real `gno mcp` process
(the glob's regex backtracked holding the GIL; `ping` got no answer). Bounded by timeouts."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.mcp_stdio import GNO, mcp_stdio


def _gno(*args: str) -> None:
    subprocess.run([*GNO, *args], check=True, capture_output=True, timeout=120)


def test_multi_get_with_a_star_run_pattern_keeps_the_server_answering(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / ("a" * 40 + ".md")).write_text("# Long name\n\nbody\n")
    (root / "b.md").write_text("# Bee\n\nbody\n")
    _gno("init", str(root), "--name", "coll")
    _gno("update")
    with mcp_stdio() as mcp:
        pattern = "coll/" + "*" * 16 + "x"
        mcp.send(
            {
                "id": 2,
                "method": "tools/call",
                "params": {"name": "gno_multi_get", "arguments": {"pattern": pattern}},
            }
        )
        mcp.send({"id": 3, "method": "ping"})
        got = {}
        while len(got) < 2:  # raises queue.Empty if the server froze
            reply = mcp.reply()
            got[reply["id"]] = reply
        assert got[3]["result"] == {}
        result = got[2]["result"]
        assert result["structuredContent"]["documents"] == []
        assert result["structuredContent"]["meta"]["returned"] == 0
