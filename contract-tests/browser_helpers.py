"""A real Chromium (Debian's package, driven by Playwright) for the Web UI tests: settings and
helpers that wait for a page without `eval` (the UI's CSP forbids it).

(The `browser` and `page` fixtures live in conftest.py.) Screenshots go to `$GNO_SCREENSHOTS` (default `.artifacts/screenshots/`, git-ignored).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

from contract_helpers import REPO

CHROMIUM = os.environ.get("GNO_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(os.environ.get("GNO_SCREENSHOTS") or REPO / ".artifacts" / "screenshots")
TIMEOUT_MS = 15_000


class PageWatch:
    """What went wrong on a page: console errors, failed requests, HTTP errors."""

    def __init__(self, page: Any) -> None:
        self.problems: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("requestfailed", self._failed)
        page.on("response", self._response)

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.problems.append(f"console: {message.text}")

    def _failed(self, request: Any) -> None:
        # Leaving a page aborts its event stream and pending fetches: not a failure.
        if request.failure and "ERR_ABORTED" in request.failure:
            return
        self.problems.append(f"request failed: {request.url} {request.failure}")

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")


def open_page(page: Any, url: str) -> None:
    """Go to a page and wait until it rendered and its requests settled."""
    page.goto(url)
    page.wait_for_selector("body[data-rendered]")


def poll(page: Any, expression: str, seconds: float = 15) -> None:
    """Wait until a page expression is true. (page.wait_for_function evaluates its predicate
    with eval, which the Web UI's CSP rightly forbids; page.evaluate does not.)"""
    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"still false after {seconds} s: {expression}"
        page.wait_for_timeout(100)


def shoot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
