"""The Web UI's workspace pages in a real Chromium against a real `gno serve`: the graph, a
document's links and backlinks, the changes feed with its diffs, the editor (save, the 409
conflict view, capture) and ask. Each page exists only when the registry has the operations
behind it; a test whose feature is absent says so and skips, and the page is then not served.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import PageWatch, open_page, poll, shoot
from contract_helpers import NOTES, indexed_notes, run_gno
from rest_helpers import Server, running

from gno.web import available_features

pytestmark = pytest.mark.slow
FEATURES = set(available_features())


def needs(*features: str) -> pytest.MarkDecorator:
    missing = [f for f in features if f not in FEATURES]
    return pytest.mark.skipif(
        bool(missing), reason=f"the registry has no REST routes for {', '.join(missing)} yet"
    )


HUB = "# Hub\n\nLinks to [[Alpha Notes]], [[Beta Plan]] and [gamma](sub/gamma.md).\n"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("webui-workspace")
    env = indexed_notes(root, {**NOTES, "hub.md": HUB})
    return {"env": env, "root": root, "notes": root / "notes"}


@pytest.fixture(scope="module")
def server(home: dict[str, Any]) -> Iterator[Server]:
    with running(home["env"]) as server:
        yield server


def fetch_json(page: Any, path: str, body: dict[str, Any] | None = None) -> Any:
    init = (
        ""
        if body is None
        else (
            ", {method: 'POST', headers: {'content-type': 'application/json'}, "
            f"body: JSON.stringify({json.dumps(body)})}}"
        )
    )
    return json.loads(page.evaluate(f"fetch({json.dumps(path)}{init}).then(r => r.text())"))


def test_absent_features_offer_no_page_or_link(server: Server, page: Any) -> None:
    open_page(page, server.url + "/")
    for feature, path in {"graph": "/graph", "changes": "/changes", "ask": "/ask"}.items():
        link = page.locator(f"nav a[data-page='{path}']")
        assert link.is_visible() == (feature in FEATURES), feature
    if "graph" not in FEATURES:
        response = page.request.get(server.url + "/graph")
        assert response.status == 404


@needs("graph")
def test_graph_page_draws_the_index_and_opens_a_hub(server: Server, page: Any) -> None:
    watch = PageWatch(page)
    open_page(page, server.url + "/graph")
    canvas = page.locator("[data-testid=graph-canvas]")
    assert int(canvas.get_attribute("data-nodes") or 0) >= 3
    poll(page, "document.querySelector('[data-testid=graph-canvas]').dataset.settled === 'true'")
    shoot(page, "graph")
    hubs = page.locator("[data-testid=graph-report] a")
    assert "Hub" in hubs.all_inner_texts()
    hubs.filter(has_text="Hub").first.click()
    page.wait_for_url("**/doc?**")
    page.wait_for_selector("[data-testid=doc-body]")
    assert watch.problems == []


@needs("graph")
def test_neighbourhood_lists_the_linked_documents(server: Server, page: Any) -> None:
    open_page(page, server.url + "/graph?uri=gno://notes/hub.md")
    nearby = page.locator("[data-testid=graph-report] a").all_inner_texts()
    assert {"Alpha Notes", "Beta Plan"} <= set(nearby)


@needs("links")
def test_a_document_shows_its_links_and_backlinks(server: Server, page: Any) -> None:
    watch = PageWatch(page)
    open_page(page, server.url + "/doc?uri=gno://notes/beta.md")
    backlinks = page.locator("[data-testid=doc-backlinks] a").all_inner_texts()
    assert {"Alpha Notes", "Hub"} <= set(backlinks)
    open_page(page, server.url + "/doc?uri=gno://notes/hub.md")
    links = page.locator("[data-testid=doc-links] a").all_inner_texts()
    assert {"Alpha Notes", "Beta Plan"} <= set(links)
    page.locator("[data-testid=doc-links] a", has_text="Beta Plan").click()
    page.wait_for_url("**beta.md**")
    assert watch.problems == []


@needs("changes")
def test_changes_feed_shows_an_edit_and_its_diff(
    server: Server, page: Any, home: dict[str, Any]
) -> None:
    target = home["notes"] / "beta.md"
    target.write_text(
        target.read_text(encoding="utf-8") + "\n## Risks\n\nSee [[Hub]].\n", encoding="utf-8"
    )
    done = run_gno(home["env"], "update", "--json")  # the server's watcher may also catch it
    assert done.returncode == 0, done.stderr
    watch = PageWatch(page)
    deadline = time.monotonic() + 30
    while True:
        open_page(page, server.url + "/changes?since=1h")
        entry = page.locator("li.change[data-kind=update]", has_text="beta.md")
        if entry.count() or time.monotonic() > deadline:
            break
        page.wait_for_timeout(500)
    assert entry.count() >= 1, "the edit never reached the changes feed"
    entry.first.locator("button").click()
    delta = entry.first.locator(".delta")
    delta.wait_for()
    assert "## Risks" in delta.inner_text()
    assert "null" not in entry.first.locator(".diff").inner_text()
    shoot(page, "changes")
    assert watch.problems == []


@needs("edit")
def test_edit_save_then_a_conflict_shows_both_versions(
    server: Server, page: Any, home: dict[str, Any]
) -> None:
    uri = "gno://notes/sub/gamma.md"
    open_page(page, server.url + f"/edit?uri={uri}")
    editor = page.locator("textarea[name=content]")
    editor.fill(editor.input_value() + "\nThe word plumbagoine is new.\n")
    page.click("form.edit-form button[type=submit]")
    poll(page, "document.querySelector('[data-testid=save-status]').innerText.includes('Saved')")
    found = fetch_json(page, "/api/search", {"query": "plumbagoine"})
    assert [r["uri"] for r in found["results"]] == [uri]
    shoot(page, "edit")
    # Someone changes the file on disk while the editor is open: saving must not clobber it.
    open_page(page, server.url + f"/edit?uri={uri}")
    path = home["notes"] / "sub" / "gamma.md"
    on_disk = path.read_text(encoding="utf-8") + "\nWritten elsewhere.\n"
    path.write_text(on_disk, encoding="utf-8")
    editor = page.locator("textarea[name=content]")
    editor.fill(editor.input_value() + "\nMine.\n")
    page.click("form.edit-form button[type=submit]")
    conflict = page.locator("[data-testid=conflict]")
    conflict.wait_for()
    assert "Written elsewhere." in page.locator("[data-testid=conflict-theirs]").inner_text()
    assert "Mine." in page.locator("[data-testid=conflict-mine]").inner_text()
    assert path.read_text(encoding="utf-8") == on_disk  # nothing was written
    conflict.locator("button", has_text="Keep mine").click()
    poll(page, "document.querySelector('[data-testid=save-status]').innerText.includes('Saved')")
    assert "Mine." in path.read_text(encoding="utf-8")


@needs("capture")
def test_capture_a_note_from_the_form(server: Server, page: Any) -> None:
    watch = PageWatch(page)
    open_page(page, server.url + "/edit?collection=notes")
    page.fill("input[name=title]", "Kettle notes")
    page.fill("textarea[name=content]", "The quokkaberry kettle whistles.\n")
    page.click("form.edit-form button[type=submit]")
    page.wait_for_url("**/doc?**")
    page.wait_for_selector("[data-testid=doc-body]")
    assert "quokkaberry" in page.locator("[data-testid=doc-body]").inner_text()
    open_page(page, server.url + "/edit?collection=notes")
    shoot(page, "capture")
    found = fetch_json(page, "/api/search", {"query": "quokkaberry"})
    assert len(found["results"]) == 1
    assert watch.problems == []


@needs("ask")
def test_ask_without_a_model_points_to_search(server: Server, page: Any) -> None:
    open_page(page, server.url + "/")
    assert fetch_json(page, "/api/capabilities")["answer"] is False  # no gen model in tests
    open_page(page, server.url + "/ask?q=lighthouse")
    result = page.locator("[data-testid=ask-result]")
    poll(page, "!document.querySelector('[data-testid=ask-result]').innerText.includes('Thinking')")
    assert "UNAVAILABLE" in result.inner_text()
    shoot(page, "ask")
    result.locator("a", has_text="Search instead").click()
    page.wait_for_url("**/search?q=lighthouse")


@needs("refactor")
def test_rename_shows_the_links_it_rewrites_then_applies(
    server: Server, page: Any, home: dict[str, Any]
) -> None:
    """Last in this module: it renames sub/gamma.md, which alpha.md and hub.md link to."""
    watch = PageWatch(page)
    open_page(page, server.url + "/edit?uri=gno://notes/sub/gamma.md")
    page.fill("input[name=name]", "gamma-renamed.md")
    page.locator(".refactor button", has_text="Preview").click()
    preview = page.locator("[data-testid=refactor-preview]")
    preview.locator("button", has_text="Rename").wait_for()
    listed = preview.locator("li").all_inner_texts()
    assert any(t.startswith("alpha.md") for t in listed) and any(
        t.startswith("hub.md") for t in listed
    ), listed
    preview.locator("button", has_text="Rename").click()
    page.wait_for_url("**gamma-renamed.md**")
    page.wait_for_selector("[data-testid=doc-body]")
    notes = home["notes"]
    assert (notes / "sub" / "gamma-renamed.md").exists()
    assert not (notes / "sub" / "gamma.md").exists()
    assert "sub/gamma-renamed.md" in (notes / "hub.md").read_text(encoding="utf-8")
    assert watch.problems == []
