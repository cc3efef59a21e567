"""The SDK keeps `import gno` and a local search lean: a fresh interpreter that imports
gno, opens Gno() and searches loads no server, MCP, HTTP client or model library."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.conftest import sync

HEAVY = ("fastapi", "mcp", "numpy", "llama_cpp", "uvicorn", "starlette", "httpx", "watchfiles")


def test_import_gno_loads_no_sdk_until_asked() -> None:
    probe = "import sys, gno; print(json.dumps(sorted(m for m in sys.modules if m.startswith(('gno', 'pydantic')))))"
    done = subprocess.run(
        [sys.executable, "-c", "import json; " + probe], capture_output=True, text=True, timeout=60
    )
    assert json.loads(done.stdout) == ["gno"], done.stderr


def test_local_search_in_a_fresh_interpreter_loads_no_heavy_module(make_app: Any) -> None:
    app, _ = make_app({"a.md": "# Tail sampling\n\nslow traces\n"})
    sync(app)
    probe = (
        "import sys, json; from gno import Gno; hits = Gno().search(query='slow traces'); "
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r} or m == 'asyncio'); "
        "print(json.dumps([heavy, [h.uri for h in hits.results]]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    heavy, uris = json.loads(done.stdout)
    assert heavy == [], heavy
    assert uris == ["gno://notes/a.md"]
