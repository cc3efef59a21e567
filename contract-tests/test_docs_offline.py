"""`/docs` works offline: the page and every file it loads come from `gno serve` itself
(no CDN, no other host), and it runs under a CSP that allows only this server's scripts."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from rest_helpers import Server, build_corpus, running

httpx = pytest.importorskip("httpx")


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve process")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = build_corpus(tmp_path_factory.mktemp("docs"), vectors=False)
    with running(env) as srv:
        yield srv


class References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline_scripts = 0
        self._in_script_without_src = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name in ("src", "href"):
            if found.get(name):
                self.urls.append(found[name] or "")
        self._in_script_without_src = tag == "script" and not found.get("src")

    def handle_data(self, data: str) -> None:
        if self._in_script_without_src and data.strip():
            self.inline_scripts += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script_without_src = False


def test_docs_and_every_asset_come_from_the_server(server: Server) -> None:
    page = httpx.get(f"{server.url}/docs", timeout=30)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "http://" not in page.text and "https://" not in page.text
    csp = page.headers["content-security-policy"]
    assert "http" not in csp and "script-src 'self';" in csp
    refs = References()
    refs.feed(page.text)
    assert refs.inline_scripts == 0  # the strict script-src would block it
    assert len(refs.urls) >= 3
    fetched = {}
    for ref in refs.urls:
        assert not urlsplit(ref).scheme and not ref.startswith("//"), ref
        response = httpx.get(urljoin(f"{server.url}/docs", ref), timeout=30)
        assert response.status_code == 200, (ref, response.status_code)
        fetched[ref] = response
    bundle = next(r for ref, r in fetched.items() if ref.endswith("swagger-ui-bundle.js"))
    assert "javascript" in bundle.headers["content-type"] and "SwaggerUIBundle" in bundle.text
    css = next(r for ref, r in fetched.items() if ref.endswith(".css"))
    assert css.headers["content-type"].startswith("text/css")
    init = next(r for ref, r in fetched.items() if ref.endswith("init.js"))
    assert '"/openapi.json"' in init.text and "validatorUrl: null" in init.text
    spec = httpx.get(f"{server.url}/openapi.json", timeout=30)
    assert spec.status_code == 200 and "/api/search" in spec.json()["paths"]
