"""Retrieval traces through the SDK (spec/traces.md, spec/sdk.md): a traced read tells its
trace id as ``last_trace_id`` on both transports (locally recorded as the CLI records it,
remotely from ``X-GNO-Trace-ID`` of ``/api/op``), and ``get(traceId=…)`` records the
opened document on that trace. Tracing off: no trace id, nothing recorded."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from gno import AsyncGno, Gno
from gno.paths import resolve_paths
from tests.conftest import sync
from tests.sdk.test_sdk_transports import FILES, _gno_serve

TRACE_ID = re.compile(r"^trc_[0-9a-f]{32}$")


def _enable_traces() -> None:
    config = resolve_paths().config_file
    config.write_text(
        config.read_text() + "\nretrievalTraces:\n  enabled: true\n  redactionMode: replay\n"
    )


def _traced_reads(client: Gno) -> list[str]:
    """Search, then open its first hit on that trace; the trace shows both."""
    hits = client.search(query="tail sampling")
    searched = client.last_trace_id
    assert searched is not None and TRACE_ID.match(searched)
    client.get(ref=hits.results[0].uri, traceId=searched)
    assert client.last_trace_id == searched  # the open is appended to the search's trace
    shown = client.trace_show(traceId=searched)
    assert client.last_trace_id is None  # trace_show is no traced read
    assert shown.trace.queryText == "tail sampling"
    assert [str(getattr(e.kind, "value", e.kind)) for e in shown.events][-1] == "open"
    client.context_build(goal="tail sampling", budgetTokens=12000, depthPolicy="fast")
    built = client.last_trace_id
    assert built is not None and built != searched
    client.search(query="tail sampling")
    again = client.last_trace_id
    assert again is not None and again not in (searched, built)  # a new trace, never cached
    return [searched, built, again]


def test_no_trace_id_while_tracing_is_off(make_app: Any) -> None:
    app, _ = make_app(FILES)
    sync(app)
    app.close()
    with Gno() as local:
        assert local.search(query="tail sampling").results
        assert local.last_trace_id is None
        assert local.trace_list().traces == []


def test_trace_ids_on_both_transports_against_gno_serve(make_app: Any) -> None:
    app, _ = make_app(FILES)
    sync(app)
    app.close()
    _enable_traces()
    proc, url = _gno_serve()
    try:
        with Gno() as local, Gno(url=url) as remote:
            here = _traced_reads(local)
            there = _traced_reads(remote)

            async def remote_async() -> str | None:
                async with AsyncGno(url=url) as client:
                    await client.query(query="slow traces", fast=True)
                    return client.last_trace_id

            queried = asyncio.run(remote_async())
            assert queried is not None and TRACE_ID.match(queried)
            listed = {t.traceId for t in local.trace_list(limit=100).traces}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert set(here + there + [queried]) <= listed
    assert len(set(here + there + [queried])) == 7
