"""Defect 1 as it was met: one read-only `gno_multi_get` call froze a real `gno mcp` process
(the glob's regex backtracked holding the GIL; `ping` got no answer). Bounded by timeouts."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

GNO = [sys.executable, "-m", "gno.cli.entry"]
ANSWER_SECONDS = 30


def _gno(*args: str) -> None:
    subprocess.run([*GNO, *args], check=True, capture_output=True, timeout=120)


def test_multi_get_with_a_star_run_pattern_keeps_the_server_answering(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / ("a" * 40 + ".md")).write_text("# Long name\n\nbody\n")
    (root / "b.md").write_text("# Bee\n\nbody\n")
    _gno("init", str(root), "--name", "coll")
    _gno("update")
    proc = subprocess.Popen(
        [*GNO, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=os.environ.copy(),
    )
    replies: queue.Queue[dict] = queue.Queue()

    def read() -> None:
        assert proc.stdout
        for line in proc.stdout:
            replies.put(json.loads(line))

    threading.Thread(target=read, daemon=True).start()

    def send(message: dict) -> None:
        assert proc.stdin
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"},
                },
            }
        )
        assert replies.get(timeout=ANSWER_SECONDS)["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        pattern = "coll/" + "*" * 16 + "x"
        send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "gno_multi_get", "arguments": {"pattern": pattern}},
            }
        )
        send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        got = {}
        while len(got) < 2:  # raises queue.Empty if the server froze
            reply = replies.get(timeout=ANSWER_SECONDS)
            got[reply["id"]] = reply
        assert got[3]["result"] == {}
        result = got[2]["result"]
        assert result["structuredContent"]["documents"] == []
        assert result["structuredContent"]["meta"]["returned"] == 0
    finally:
        proc.kill()
        proc.wait(timeout=10)
