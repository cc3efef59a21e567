"""The Web UI's `/traces` page in a real Chromium against a real `gno serve` with retrieval
tracing on (spec/traces.md): the list shows the traces the server recorded, a trace shows
its query (replay mode) and ranked hits without any document text, judging a hit and
exporting the trace go through the REST routes and show up on the page (and in `gno trace
show`), deleting a trace and purging all empty the list. Skips without Chromium/Playwright."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import PageWatch, open_page, shoot
from contract_helpers import indexed_notes, run_gno
from rest_helpers import Server, running

pytestmark = pytest.mark.slow

BODY = "The okapiwhistle lantern is kept in the north shed."


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("webui-traces")
    env = indexed_notes(
        root, {"lantern.md": f"# Lantern\n\n{BODY}\n", "shed.md": "# Shed\n\nokapiwhistle tools\n"}
    )
    config = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    config.write_text(
        config.read_text() + "retrievalTraces:\n  enabled: true\n  redactionMode: replay\n"
    )
    with running(env) as srv:
        srv.env = env
        yield srv


def traced_search(server: Server, page: Any) -> str:
    answer = page.request.post(server.url + "/api/search", data={"query": "okapiwhistle"})
    assert answer.ok, answer.text()
    trace_id = answer.headers.get("x-gno-trace-id")
    assert trace_id and trace_id.startswith("trc_")
    return trace_id


def test_traces_page_lists_shows_judges_exports_and_deletes(server: Server, page: Any) -> None:
    watch = PageWatch(page)
    open_page(page, server.url + "/")
    assert page.locator("nav a[href='/traces']").is_visible()  # the feature is on
    trace_id = traced_search(server, page)
    second = traced_search(server, page)

    open_page(page, server.url + "/traces")
    rows = page.locator("[data-testid=trace-list] tr[data-trace]")
    assert rows.count() == 2
    assert rows.first.get_attribute("data-trace") == second  # newest first
    shoot(page, "traces")

    page.locator(f"a[href='/traces?id={trace_id}']").click()
    page.wait_for_selector("[data-testid=trace-hits] li")
    assert "okapiwhistle" in page.locator("[data-testid=trace-facts]").inner_text()  # replay mode
    hits = page.locator("[data-testid=trace-hits] li")
    assert hits.count() == 2
    main_text = page.locator("main").inner_text()
    assert "gno://notes/lantern.md" in main_text
    assert "north shed" not in main_text  # a trace keeps no document text
    shoot(page, "trace")

    lantern = hits.filter(has_text="gno://notes/lantern.md")
    lantern.locator("button", has_text="irrelevant").click()
    page.wait_for_selector("[data-testid=trace-judgments] li[data-label=irrelevant]")
    page.locator("button", has_text="Export receipt").click()
    page.wait_for_selector("[data-testid=trace-exports] li")
    shown = run_gno(server.env, "trace", "show", trace_id, "--json")
    assert shown.returncode == 0, shown.stderr
    detail = json.loads(shown.stdout)
    assert [(j["label"], j["targetRef"]) for j in detail["judgments"]] == [
        ("irrelevant", "gno://notes/lantern.md")
    ]
    assert [x["format"] for x in detail["exports"]] == ["agentic-receipt"]

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("button", has_text="Delete trace").click()
    page.wait_for_url(server.url + "/traces")
    page.wait_for_selector(f"[data-testid=trace-list] tr[data-trace='{second}']")
    assert page.locator("[data-testid=trace-list] tr[data-trace]").count() == 1
    gone = run_gno(server.env, "trace", "show", trace_id, "--json")
    assert gone.returncode == 1

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("button", has_text="Purge all traces").click()
    page.wait_for_selector("[data-testid=trace-list] td.muted")
    listed = json.loads(run_gno(server.env, "trace", "list", "--json").stdout)
    assert listed["traces"] == []
    assert watch.problems == []


def test_an_unknown_trace_says_not_found(server: Server, page: Any) -> None:
    open_page(page, server.url + "/traces?id=trc_" + "0" * 32)
    assert "NOT_FOUND" in page.locator("main [role=alert]").inner_text()
