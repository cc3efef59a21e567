"""The Web UI in a real Chromium against a real `gno serve` run with GNO_API_TOKEN: the token
form comes first, a wrong token says so, the right one opens a session (an HttpOnly cookie
from POST /api/session) through which the pages, the /api/events stream and the
/api/doc-asset images and links work; the page never keeps the token."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import PageWatch, open_page, poll, shoot
from contract_helpers import indexed_notes, run_gno
from rest_helpers import Server, running

pytestmark = pytest.mark.slow

TOKEN = "correct horse battery staple"
NOTE = "# Beacon log\n\nThe quillstone beacon is lit.\n\n![chart](chart.png)\n"


def _png() -> bytes:
    """A valid 1×1 PNG, so the browser can decode the image it loads."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("webui-token")
    env = indexed_notes(root, {"beacon.md": NOTE})
    (root / "notes" / "chart.png").write_bytes(_png())
    done = run_gno(env, "update")  # the picture: indexed_notes writes text files only
    assert done.returncode == 0, done.stderr
    with running(env | {"GNO_API_TOKEN": TOKEN}) as server:
        yield server


def _unlock(page: Any, token: str) -> None:
    page.fill("[data-testid=token-input]", token)
    page.locator("[data-testid=token-form] button[type=submit]").click()


def test_the_token_form_comes_first_then_the_ui_works(server: Server, page: Any) -> None:
    watch = PageWatch(page)
    open_page(page, server.url + "/search")
    assert page.locator("body").get_attribute("data-rendered") == "token"
    form = page.locator("[data-testid=token-form]")
    assert form.is_visible()
    assert page.locator("input[name=q]").count() == 0  # no page behind it
    shoot(page, "token-form")

    _unlock(page, "not the token")
    error = page.locator("[data-testid=token-error]")
    error.wait_for(state="visible")
    assert "Wrong token" in error.inner_text()
    assert page.context.cookies() == []
    # What went wrong so far: the probe's and the wrong token's 401s, nothing else.
    assert all("401" in p for p in watch.problems), watch.problems
    watch.problems.clear()

    with page.expect_navigation():  # the page reloads with its session
        _unlock(page, TOKEN)
    page.wait_for_selector("body[data-rendered='/search']")
    cookies = page.context.cookies()
    assert [(c["name"], c["httpOnly"], c["sameSite"]) for c in cookies] == [
        (f"gno-session-{server.port}", True, "Strict")
    ]
    assert cookies[0]["expires"] == -1  # a session cookie
    assert TOKEN not in cookies[0]["value"]
    assert page.evaluate("document.cookie") == ""  # HttpOnly: no script reads it
    stored = page.evaluate("JSON.stringify([{...localStorage}, {...sessionStorage}])")
    assert TOKEN not in stored and TOKEN not in page.content()

    page.fill("input[name=q]", "quillstone")  # search as you type
    page.wait_for_selector("li.result")
    assert "Beacon log" in page.locator("li.result a.title").all_inner_texts()
    page.wait_for_selector("#live.on")  # the event stream connected through the cookie

    open_page(page, server.url + "/doc?uri=gno://notes/beacon.md")
    # the note's image comes through /api/doc-asset: decoded, so the cookie went with it
    poll(page, "document.querySelector('[data-testid=doc-body] img')?.naturalWidth === 1")
    with page.context.expect_page() as opened:
        page.get_by_role("link", name="Original file").click()
    original = opened.value
    original.wait_for_load_state()
    assert "quillstone" in original.content()
    shoot(page, "token-unlocked")
    assert watch.problems == []


def test_a_session_made_for_an_old_token_shows_the_form_again(server: Server, page: Any) -> None:
    """A cookie the server no longer takes (GNO_API_TOKEN changed): the form again, not a
    page of error banners."""
    page.context.add_cookies(
        [{"name": f"gno-session-{server.port}", "value": "0" * 64, "url": server.url}]
    )
    open_page(page, server.url + "/")
    assert page.locator("body").get_attribute("data-rendered") == "token"
    assert page.locator("[data-testid=token-form]").is_visible()
    assert page.locator(".banner.error").count() == 0
