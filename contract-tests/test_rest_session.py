"""`/api/session` against a real `gno serve` with GNO_API_TOKEN set: the Web UI's session
cookie (HttpOnly, SameSite=Strict, not the token), taken by the token gate but never as a
CSRF pass, and what the route does when no token is set (spec/rest.md "Token")."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from rest_helpers import Server, build_corpus, running

TOKEN = "s3cret-token"
OTHER = "another-token"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return build_corpus(tmp_path_factory.mktemp("session"), vectors=False)


@pytest.fixture(scope="module")
def srv(env: dict[str, str]) -> Iterator[Server]:
    with running(env | {"GNO_API_TOKEN": TOKEN}) as server:
        yield server


def _open(srv: Server, token: str) -> httpx.Response:
    return httpx.post(f"{srv.url}/api/session", headers={"X-GNO-Token": token})


def _cookie(srv: Server, token: str = TOKEN) -> tuple[str, str]:
    """The (name, value) a right token gets."""
    answer = _open(srv, token)
    assert answer.status_code == 204, answer.text
    pair = answer.headers["set-cookie"].split(";")[0]
    name, _, value = pair.partition("=")
    return name, value


def _sent(cookies: dict[str, str]) -> dict[str, str]:
    """A ``Cookie`` header (httpx deprecates per-request cookies)."""
    return {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}


def _error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


def test_the_right_token_gets_a_session_cookie_that_is_not_the_token(srv: Server) -> None:
    answer = _open(srv, TOKEN)
    assert answer.status_code == 204 and answer.content == b""
    cookies = answer.headers.get_list("set-cookie")
    assert len(cookies) == 1
    pair, *attributes = [part.strip() for part in cookies[0].split(";")]
    name, _, value = pair.partition("=")
    assert name == f"gno-session-{srv.port}"  # cookies ignore ports: the name carries it
    assert {a.lower() for a in attributes} == {"httponly", "samesite=strict", "path=/"}
    # no Expires / Max-Age: a session cookie, gone with the browser
    assert value and TOKEN not in value and value != TOKEN
    # derived from the token (HMAC-SHA256 of a fixed label): stable while the token is
    assert value == _cookie(srv)[1]
    assert answer.headers["cache-control"] == "no-store"


def test_a_wrong_or_missing_token_gets_401_and_no_cookie(srv: Server) -> None:
    for headers in ({"X-GNO-Token": "wrong"}, {"X-GNO-Token": ""}, {}):
        answer = httpx.post(f"{srv.url}/api/session", headers=headers)
        _error(answer, 401, "UNAUTHORIZED")
        assert "set-cookie" not in answer.headers
    # a valid cookie alone does not renew itself: opening a session needs the token
    name, value = _cookie(srv)
    answer = httpx.post(f"{srv.url}/api/session", headers=_sent({name: value}))
    _error(answer, 401, "UNAUTHORIZED")
    assert "set-cookie" not in answer.headers


def test_the_cookie_stands_in_for_the_token_everywhere_it_is_needed(srv: Server) -> None:
    jar = _sent(dict([_cookie(srv)]))
    _error(httpx.get(f"{srv.url}/api/status"), 401, "UNAUTHORIZED")
    assert httpx.get(f"{srv.url}/api/status", headers=jar).status_code == 200
    assert httpx.get(f"{srv.url}/api/session", headers=jar).status_code == 204
    _error(httpx.get(f"{srv.url}/api/session"), 401, "UNAUTHORIZED")
    asset = httpx.get(
        f"{srv.url}/api/doc-asset", params={"uri": "gno://notes/alpha.md"}, headers=jar
    )
    assert asset.status_code == 200 and asset.content
    search = httpx.post(f"{srv.url}/api/search", json={"query": "lighthouse"}, headers=jar)
    assert search.status_code == 200 and search.json()["results"]
    with httpx.stream("GET", f"{srv.url}/api/events", headers=jar, timeout=10) as events:
        assert events.status_code == 200
        assert events.headers["content-type"].startswith("text/event-stream")


def test_a_cookie_made_for_another_token_or_port_is_refused(srv: Server) -> None:
    name, value = _cookie(srv)
    foreign = hmac.new(OTHER.encode(), b"gno-web-session-v1", hashlib.sha256).hexdigest()
    for jar in (
        {name: foreign},  # a session of a server with another token
        {name: TOKEN},  # the token itself is no cookie
        {name: value[:-1]},
        {f"gno-session-{srv.port + 1}": value},  # another port's cookie name
        {"gno-session": value},
    ):
        _error(httpx.get(f"{srv.url}/api/status", headers=jar), 401, "UNAUTHORIZED")


def test_a_new_token_makes_old_cookies_worthless(tmp_path: Path) -> None:
    env = build_corpus(tmp_path, vectors=False)  # its own: one server per data directory
    with running(env | {"GNO_API_TOKEN": OTHER}) as other:
        name, old = _cookie(other, OTHER)
    with running(env | {"GNO_API_TOKEN": TOKEN}) as srv:
        name, new = _cookie(srv)
        assert old != new
        _error(httpx.get(f"{srv.url}/api/status", headers=_sent({name: old})), 401, "UNAUTHORIZED")
        assert httpx.get(f"{srv.url}/api/status", headers=_sent({name: new})).status_code == 200


def test_the_cookie_is_no_csrf_pass(srv: Server) -> None:
    """A browser attaches the cookie by itself, so unlike X-GNO-Token it proves nothing about
    who made the request: a write with the cookie and a foreign Origin is still refused."""
    jar = _sent(dict([_cookie(srv)]))
    url, body = f"{srv.url}/api/search", {"query": "lighthouse"}
    # another port of this host is the same site: SameSite lets the cookie go there too
    for origin in ("http://evil.example", f"http://127.0.0.1:{srv.port + 1}"):
        headers = jar | {"Origin": origin}
        _error(httpx.post(url, json=body, headers=headers), 403, "CSRF_VIOLATION")
        _error(
            httpx.delete(f"{srv.url}/api/collections/notes", headers=headers),
            403,
            "CSRF_VIOLATION",
        )
        _error(httpx.post(f"{srv.url}/api/session", headers=headers), 403, "CSRF_VIOLATION")
    own = jar | {"Origin": f"http://127.0.0.1:{srv.port}"}
    assert httpx.post(url, json=body, headers=own).status_code == 200
    # the header keeps standing in for CSRF (a non-browser client)
    token = {"X-GNO-Token": TOKEN, "Origin": "http://evil.example"}
    assert httpx.post(url, json=body, headers=token).status_code == 200


def test_delete_clears_the_cookie_without_a_token(srv: Server) -> None:
    answer = httpx.delete(f"{srv.url}/api/session")
    assert answer.status_code == 204
    pair, *attributes = [part.strip() for part in answer.headers["set-cookie"].split(";")]
    assert pair == f"gno-session-{srv.port}="
    assert {a.lower() for a in attributes} == {
        "httponly",
        "samesite=strict",
        "path=/",
        "max-age=0",
    }
    foreign = {"Origin": "http://evil.example"}
    _error(httpx.delete(f"{srv.url}/api/session", headers=foreign), 403, "CSRF_VIOLATION")


def test_without_a_token_there_is_no_session_to_open(tmp_path: Path) -> None:
    """No GNO_API_TOKEN: every request passes already; the route opens nothing (204, no
    cookie) whatever it is sent, so the UI's flow and scripts that always log in still work."""
    env = build_corpus(tmp_path, vectors=False)
    with running(env) as srv:
        for headers in ({"X-GNO-Token": "anything"}, {}):
            answer = httpx.post(f"{srv.url}/api/session", headers=headers)
            assert answer.status_code == 204 and "set-cookie" not in answer.headers
        assert httpx.get(f"{srv.url}/api/session").status_code == 204
