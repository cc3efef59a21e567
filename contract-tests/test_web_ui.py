"""The Web UI in a real Chromium (Debian's package, driven by Playwright) against a real
`gno serve` on a temp index: every page loads clean, search → open → read, keyboard
navigation, adding a collection and following its job, hostile documents that must execute
nothing, and the "changed on disk" banner from /api/events.

Screenshots of each page go to `$GNO_SCREENSHOTS` (default `.artifacts/screenshots/`, git-ignored).
`make test` installs Chromium when it can (`make browser`); without it these tests skip and say why.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from browser_helpers import SCREENSHOTS, PageWatch, open_page, poll, shoot
from contract_helpers import NOTES, indexed_notes, write_tree
from rest_helpers import Server, running

pytestmark = pytest.mark.slow

XSS = (
    "# Hostile page\n\n"
    "Plain words: zanzibarite.\n\n"
    '<script>window.__pwned = "script"</script>\n\n'
    '<img src="x" onerror="window.__pwned = \'onerror\'">\n\n'
    "[click me](javascript:window.__pwned='link') and [data](data:text/html,<script>alert(1)</script>)\n\n"
    "![logo](evil.svg)\n\n"
    '<svg onload="window.__pwned=\'svg\'"><script>window.__pwned="svg-script"</script></svg>\n'
)
EVIL_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=\'asset\'">'
    "<script>window.__pwned='asset-script'</script><rect width='10' height='10'/></svg>\n"
)
# Payloads where the pages show metadata rather than the body: the file name, frontmatter
# title/tags/dates, a heading, wiki links with quotes and brackets, a code fence's language.
HOSTILE_NAME = "<img src=x onerror=\"window.__pwned='name'\">.md"
HOSTILE_META = (
    "---\n"
    'title: \'"><img src=x onerror="window.__pwned=`title`">\'\n'
    "tags: ['<svg onload=\"window.__pwned=`tag`\">', 'x\"y']\n"
    "date: '<script>window.__pwned=\"date\"</script>'\n"
    "---\n"
    "# Heading <img src=x onerror=\"window.__pwned='heading'\">\n\n"
    'quoxalite [[evil"><img src=x onerror="window.__pwned=\'wiki\'">]] '
    "[[x' onmouseover='window.__pwned=1]] [js](JaVaScRiPt:window.__pwned='case') "
    "[vb](vbscript:msgbox) [tab](java\tscript:window.__pwned=1) "
    "![i](javascript:window.__pwned='img')\n\n"
    '```"><img src=x onerror="window.__pwned=\'fence\'">\ncode\n```\n'
)
MARKDOWN = (
    "# Lighthouse manual\n\n"
    "## Lamps\n\nThe **zephyrquartz** lamp needs `oil` and care. See [alpha](alpha.md).\n\n"
    "```python\ndef light(lamp):\n    return 'on'  # keep it burning\n```\n\n"
    "- [x] trim the wick\n- [ ] polish the lens\n\n"
    "| part | state |\n|---|---|\n| lens | clean |\n"
)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("webui")
    files = {
        **NOTES,
        "manual.md": MARKDOWN,
        "hostile.md": XSS,
        "evil.svg": EVIL_SVG,
        HOSTILE_NAME: HOSTILE_META,
    }
    env = indexed_notes(root, files)
    return {"env": env, "root": root, "notes": root / "notes"}


@pytest.fixture(scope="module")
def server(home: dict[str, Any]) -> Iterator[Server]:
    with running(home["env"]) as server:
        yield server


def test_every_page_loads_clean(server: Server, page: Any) -> None:
    watch = PageWatch(page)
    uri = "gno://notes/manual.md"
    pages = {
        "home": "/",
        "search": "/search?q=zephyrquartz",
        "browse": "/browse",
        "collections": "/collections",
        "doc": f"/doc?uri={uri}",
    }
    for name, path in pages.items():
        open_page(page, server.url + path)
        shoot(page, name)
    assert watch.problems == []
    # The document page rendered Markdown: headings with anchors, code, a task list, a table.
    assert page.locator("article h2#lamps").inner_text() == "Lamps"
    assert page.locator("article pre.code .tok-keyword").first.inner_text() == "def"
    assert page.locator("article input[type=checkbox]").count() == 2
    assert page.locator("article table td").first.inner_text() == "lens"
    assert page.locator("nav.outline a[href='#lamps']").count() == 1


def test_home_shows_the_index_and_health(server: Server, page: Any) -> None:
    open_page(page, server.url + "/")
    page.wait_for_selector("[data-testid=total-documents]")
    status = json.loads(page.evaluate("fetch('/api/status').then(r => r.text())"))
    shown = page.locator("[data-testid=total-documents]").inner_text()
    assert shown == str(status["totalDocuments"]) and status["totalDocuments"] > 0
    assert page.locator(".checks li").count() == len(status["health"]["checks"])


def test_search_then_open_a_result_with_the_keyboard(server: Server, page: Any) -> None:
    open_page(page, server.url + "/search")
    box = page.locator("input[name=q]")
    box.fill("zephyrquartz")  # keyword search runs as you type
    page.wait_for_selector("li.result")
    titles = page.locator("li.result a.title").all_inner_texts()
    assert "Lighthouse manual" in titles
    first = page.locator("li.result mark").first.inner_text()
    assert first.lower() == "zephyrquartz"  # the term is highlighted
    assert "q=zephyrquartz" in page.url  # the URL keeps the search
    index = titles.index("Lighthouse manual")
    page.locator("main h1").click()  # focus leaves the box; j/↓ move through the results
    for _ in range(index + 1):
        page.keyboard.press("ArrowDown")
    assert "selected" in (page.locator("li.result").nth(index).get_attribute("class") or "")
    page.keyboard.press("Enter")
    page.wait_for_url("**/doc?**")
    page.wait_for_selector("[data-testid=doc-body]")
    assert "zephyrquartz" in page.locator("[data-testid=doc-body]").inner_text()


# Runs dom.js's highlight() in the page and records the outcome on an <output> element: the
# call is synchronous, so the test waits for that element (wait_for_selector's timeout is kept
# by Playwright, not by the busy page) instead of awaiting page.evaluate, which has no timeout.
HIGHLIGHT = """([text, terms]) => {
  setTimeout(async () => {
    const { highlight } = await import("/assets/dom.js");
    const parts = highlight(text, terms);
    const done = document.createElement("output");
    done.id = "highlighted";
    done.dataset.marks = String(parts.filter((p) => typeof p !== "string").length);
    done.dataset.text = parts.map((p) => (typeof p === "string" ? p : p.textContent)).join("");
    done.dataset.shown = parts
      .slice(0, 40)
      .map((p) => (typeof p === "string" ? p : `[${p.textContent}]`))
      .join("");
    document.body.append(done);
  });
}"""


def highlighted(page: Any, text: str, terms: list[str]) -> dict[str, str]:
    page.evaluate("document.getElementById('highlighted')?.remove()")
    page.evaluate(HIGHLIGHT, [text, terms])
    done = page.wait_for_selector("#highlighted", state="attached")
    return {k: done.get_attribute(f"data-{k}") or "" for k in ("marks", "text", "shown")}


def test_client_side_highlighting_marks_terms_and_stays_linear(server: Server, page: Any) -> None:
    """A snippet without <mark> is highlighted in the page: the earliest hit first, the longest
    term on a tie, case kept, one-letter terms ignored. A 200 KB line with 50 terms (most of
    them absent) finishes within the page timeout: it used to search every term again from
    each hit, quadratic in the line's length."""
    open_page(page, server.url + "/search")
    normal = highlighted(
        page, "The Lamp and the LAMPS: lampshade, a lamp.", ["lamp", "lamps", "the", "a", "xyz"]
    )
    assert normal["shown"] == "[The] [Lamp] and [the] [LAMPS]: [lamps]hade, a [lamp]."
    assert normal["marks"] == "6"
    line = "ab " * 70_000
    terms = ["ab"] + [f"absent{n}" for n in range(49)]
    long = highlighted(page, line, terms)
    assert long["marks"] == "70000"
    assert long["text"] == line  # nothing lost or repeated between the marks
    assert long["shown"].startswith("[ab] [ab] [ab] ")


def test_why_this_result_shows_the_stages(server: Server, page: Any) -> None:
    open_page(page, server.url + "/search?q=zephyrquartz&mode=hybrid&depth=fast")
    page.wait_for_selector("li.result")
    page.locator("li.result button.link").first.click()
    page.wait_for_selector(".why table.stages td")
    stages = page.locator(".why table.stages tbody tr td:first-child").all_inner_texts()
    assert "bm25" in stages


def test_hostile_documents_execute_nothing(server: Server, page: Any) -> None:
    watch = PageWatch(page)
    open_page(page, server.url + "/doc?uri=gno://notes/hostile.md")
    body = page.locator("[data-testid=doc-body]")
    text = body.inner_text()
    assert '<script>window.__pwned = "script"</script>' in text  # shown as text, not run
    assert page.evaluate("window.__pwned") is None
    assert body.locator("script, iframe, object, embed, svg, [onerror], [onload]").count() == 0
    hrefs = [a.get_attribute("href") or "" for a in body.locator("a").all()]
    assert not any(h.lower().startswith(("javascript:", "data:")) for h in hrefs)
    # The SVG image goes through /api/doc-asset as an <img>: scripts in it never run.
    poll(page, "[...document.images].every(i => i.complete)")
    assert page.evaluate("window.__pwned") is None
    assert watch.problems == []
    # Opened directly, the SVG is served sandboxed: the browser blocks its scripts.
    page.goto(server.url + "/api/doc-asset?uri=gno://notes/hostile.md&path=evil.svg")
    assert page.evaluate("window.__pwned ?? null") is None
    blocked = [p for p in watch.problems if "Blocked script execution" in p]
    assert blocked, "the SVG's scripts were not even attempted"
    # The sandboxed page has an opaque origin, so its favicon request is refused too.
    others = [p for p in watch.problems if p not in blocked and "ERR_BLOCKED_BY_RESPONSE" not in p]
    assert others == []


def test_hostile_names_and_metadata_execute_nothing_on_any_page(server: Any, page: Any) -> None:
    """Every page that shows a document's name, title, tags, headings or links: the
    payloads show as text, nothing runs, and no link leads to a script URL."""
    uri = "gno://notes/" + quote(HOSTILE_NAME, safe="")
    pages = [
        "/search?q=quoxalite",
        f"/doc?{urlencode({'uri': uri})}",
        "/browse?collection=notes",
        f"/graph?{urlencode({'uri': uri})}",
        "/graph",
        "/changes",
    ]
    for path in pages:
        open_page(page, server.url + path)
        page.wait_for_timeout(300)  # let late fetches (related links, graph) render too
        assert page.evaluate("window.__pwned ?? null") is None, path
        main = page.locator("main")
        assert main.locator("script, iframe, object, embed, [onerror], [onload]").count() == 0
        assert main.locator("svg, img:not([src^='/api/doc-asset'])").count() == 0, path
        hrefs = [a.get_attribute("href") or "" for a in main.locator("[href]").all()]
        schemes = ("javascript:", "data:", "vbscript:")
        assert not any(h.strip().lower().startswith(schemes) for h in hrefs), (path, hrefs)
    open_page(page, server.url + f"/doc?{urlencode({'uri': uri})}")
    head = page.locator("header.doc-head h1").inner_text()
    assert head == '"><img src=x onerror="window.__pwned=`title`">'  # shown, as text
    assert 'evil"><img' in page.locator("[data-testid=doc-body]").inner_text()


def test_add_a_collection_and_follow_its_job(
    server: Server, page: Any, home: dict[str, Any]
) -> None:
    extra = write_tree(home["root"] / "corpus" / "extra", {"one.md": "# One\n\nquillworthy\n"})
    open_page(page, server.url + "/collections")
    page.fill("input[name=path]", str(extra))
    page.fill("input[name=name]", "extra")
    page.click("form.add-collection button[type=submit]")
    page.wait_for_selector("[data-testid=job-log] p.ok", timeout=30_000)
    assert "completed" in page.locator("[data-testid=job-log] p.ok").first.inner_text()
    page.wait_for_selector("tr[data-collection=extra]")
    found = page.evaluate(
        "fetch('/api/search', {method: 'POST', headers: {'content-type': 'application/json'},"
        " body: JSON.stringify({query: 'quillworthy'})}).then(r => r.json())"
    )
    assert [r["uri"] for r in found["results"]] == ["gno://extra/one.md"]


def test_a_file_changed_on_disk_shows_a_banner(
    server: Server, page: Any, home: dict[str, Any]
) -> None:
    open_page(page, server.url + "/doc?uri=gno://notes/manual.md")
    page.wait_for_selector("#live.on")  # the event stream is connected
    banner = page.locator("[data-testid=changed-banner]")
    assert banner.is_hidden()
    target = home["notes"] / "manual.md"
    target.write_text(MARKDOWN + "\nA new paragraph.\n", encoding="utf-8")
    deadline = time.monotonic() + 30
    while banner.is_hidden() and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert banner.is_visible(), "no document-changed event reached the page"
    assert "changed on disk" in banner.inner_text()
    banner.locator("a").click()
    poll(
        page,
        "document.querySelector('[data-testid=doc-body]')?.innerText.includes('A new paragraph')",
    )


def test_time_to_first_render(server: Server, page: Any) -> None:
    """Records the first render of / and /search (Performance API) for `make bench`."""
    figures = {}
    for name, path in {"home": "/", "search": "/search?q=lighthouse"}.items():
        open_page(page, server.url + path)
        figures[name] = page.evaluate(
            "performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint')"
            "?.startTime ?? performance.now()"
        )
        assert figures[name] > 0
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / "first-render-ms.json").write_text(json.dumps(figures), encoding="utf-8")
