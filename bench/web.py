"""The Web UI on the corpus index, in Debian's Chromium: time to first render and the server
time of search-as-you-type.

    .venv/bin/python bench/web.py [--reps 5]

First render: `first-contentful-paint` of `/` and `/search?q=…` from the Performance API, in a
fresh browser context each time (no cache), median of the runs. Search-as-you-type: the 20
queries of performance.md typed one character at a time (60 ms apart) into the search box; every
request the page sends to `/api/search` is timed from request start to response end in the
browser's resource timing (loopback, so this is the server's time plus a few tenths of a ms),
p50 and p95. Targets (issue 15): first render ≤ 300 ms, typing p50 ≤ 30 ms.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import CORPUS, GNO, QUERIES, create_index, workspace
from verdicts import verdict

CHROMIUM = os.environ.get("GNO_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
URL_LINE = re.compile(r"gno serve: (http://[^\s]+)")


def serve(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [GNO, "serve", "--port", "0", "--no-watch"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    found: list[str] = []

    def read() -> None:
        for line in proc.stdout or []:
            if match := URL_LINE.search(line):
                found.append(match.group(1))
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(60)
    if not found:
        proc.kill()
        sys.exit("web: gno serve did not start")
    return proc, found[0].replace("localhost", "127.0.0.1")


def first_paint(browser, url: str) -> float:
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("body[data-rendered]")
    ms = page.evaluate(
        "performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint')"
        "?.startTime ?? performance.now()"
    )
    context.close()
    return float(ms)


def typing(browser, url: str) -> list[float]:
    """Type every query a key at a time; the durations of the /api/search requests sent."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{url}/search")
    page.wait_for_selector("body[data-rendered]")
    box = page.locator("input[name=q]")
    for query in QUERIES:
        box.fill("")
        box.press_sequentially(query, delay=60)
        page.wait_for_timeout(400)
    durations = page.evaluate(
        "performance.getEntriesByType('resource').filter(e => e.name.endsWith('/api/search'))"
        ".map(e => e.responseEnd - e.requestStart)"
    )
    context.close()
    return [float(d) for d in durations if d > 0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"web: corpus not found at {CORPUS}; skipping.")
        return
    if not Path(CHROMIUM).exists():
        print(f"web: Chromium not found at {CHROMIUM}; skipping (make browser).")
        return
    from playwright.sync_api import sync_playwright

    with workspace("web") as env:
        create_index(env)
        proc, url = serve(env)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                first_paint(browser, url)  # warm-up: the server's first answers
                home = [first_paint(browser, f"{url}/") for _ in range(args.reps)]
                search = [
                    first_paint(browser, f"{url}/search?q=tail+sampling+processor")
                    for _ in range(args.reps)
                ]
                typed = sorted(typing(browser, url))
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    p50 = statistics.median(typed)
    p95 = typed[min(len(typed) - 1, round(0.95 * (len(typed) - 1)))]
    rows = [
        ("first render of /, ms", statistics.median(home), 300),
        ("first render of /search?q=…, ms", statistics.median(search), 300),
        (f"search-as-you-type p50, ms ({len(typed)} requests)", p50, 30),
    ]
    print()
    for label, value, target in rows:
        word = verdict(15, label, f"{value:.1f}", f"≤ {target}", value <= target)
        print(f"{label:<48} {value:>8.1f}   ≤ {target:<4} {word}")
    print(f"{'search-as-you-type p95, ms':<48} {p95:>8.1f}")


if __name__ == "__main__":
    main()
