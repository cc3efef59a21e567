"""Which operations a retrieval trace records (spec/traces.md), apart from the recorder.

Every CLI, MCP and REST call of these asks whether to record; this module is all that
question imports, so a read with tracing off never loads the recorder.
"""

from __future__ import annotations

TRACED_OPERATIONS = {
    "search": "retrieval",
    "vsearch": "retrieval",
    "query": "retrieval",
    "ask": "retrieval",
    "ask_verified": "retrieval",  # MCP gno_ask (verify: true)
    "context_build": "context",
    "get": "get",
}
