"""Peak RSS of reading one ``.json`` chat export through the record lane (adapter only, no
index): ``python bench/json_export_memory.py [tiny|real|blob]``.

``tiny``: 32 MiB of 1.3 M ``{"text":"a","id":N}`` messages (the worst case for a parser
that builds every message at once); ``real``: 31 MiB of 48 k messages shaped like an
assistant export (author object, content parts, reactions), indented, non-ASCII text;
``blob``: 31 MiB that is nearly all one ``attachments`` list of 440 k small objects beside
100 messages (a value outside the messages, skipped unbuilt). Each
file is written to a temporary folder; the reading runs in a child process so its peak is
its own (bench/README.md, "Streamed .json chat exports")."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

# VmHWM, not ru_maxrss: Linux carries ru_maxrss over an exec from the parent that wrote the file.
CHILD = """
import re, sys, time
from gno.ingest.record_lane import read_container
import gno.adapters.records.chat
def hwm():
    with open("/proc/self/status") as status:
        return int(re.search(r"VmHWM:\\s+(\\d+)", status.read()).group(1))
base = hwm()
started = time.monotonic()
count = sum(1 for _ in read_container(sys.argv[1], ".json", "bench"))
peak = hwm()
print(f"{count} items; peak RSS {peak // 1024} MiB, {(peak - base) // 1024} MiB over the "
      f"baseline; {time.monotonic() - started:.1f} s")
"""


def tiny(path: Path) -> None:
    budget, parts, size = 32 * 2**20 - 40, [], 1
    while size < budget:
        part = json.dumps({"text": "a", "id": len(parts)}, separators=(",", ":"))
        parts.append(part)
        size += len(part) + 1
    path.write_text("[" + ",".join(parts) + "]")


def real(path: Path) -> None:
    rng = random.Random(7)
    words = ["the", "lunch", "cafe", "iguana", "meeting", "review", "été", "naïve", "東京", "ok"]
    messages, size = [], 0
    while size < 27 * 2**20:
        n = len(messages)
        text = " ".join(rng.choice(words) for _ in range(rng.randint(5, 120)))
        message = {
            "id": f"msg-{n}",
            "conversation_id": f"c{n // 200}",
            "author": {"name": rng.choice(["cy", "ana", "bo"]), "role": "user"},
            "created_at": 1_700_000_000 + n * 37,
            "content": [{"type": "text", "text": text}],
            "reactions": [{"emoji": "+1", "count": 2}],
        }
        size += len(json.dumps(message, ensure_ascii=False).encode()) + 2
        messages.append(message)
    doc = {"export": {"tool": "chat", "version": 3}, "messages": messages}
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")


def blob(path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        messages = [{"id": n, "author": "cy", "text": f"message {n}"} for n in range(100)]
        out.write('{"messages": ' + json.dumps(messages) + ', "attachments": [')
        for n in range(440_000):
            sep = "," if n else ""
            out.write(
                f'{sep}{{"name": "file{n}.png", "size": {n}, "tags": ["a", "b"], "ok": true}}'
            )
        out.write("]}")


def main() -> None:
    kinds = sys.argv[1:] or ["tiny", "real", "blob"]
    with tempfile.TemporaryDirectory() as folder:
        for kind in kinds:
            path = Path(folder) / f"{kind}.json"
            {"tiny": tiny, "real": real, "blob": blob}[kind](path)
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(path)], check=True, capture_output=True, text=True
            )
            print(f"{kind} ({path.stat().st_size / 2**20:.1f} MiB): {done.stdout.strip()}")


if __name__ == "__main__":
    main()
