"""The SDK's remote client against a hostile or broken "gno server" on 127.0.0.1.

Whatever answers at the URL may send too much, send it compressed, drip it, nest JSON
past the decoder's limit, send JSON of the wrong shape or redirect elsewhere: each call
ends in a ``GnoError`` (never a pydantic or decoder exception), in bounded time and memory.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
import zlib
from collections.abc import Callable

import pytest

from gno import AsyncGno, Gno
from gno.errors import GnoError, InvalidServerAnswerError, ServerUnreachableError
from gno.sdk.remote import MAX_ANSWER_BYTES
from tests.hostile_http import RawServer, Script, head, json_body


def status_call(url: str, timeout: float = 5.0) -> None:
    with Gno(url=url, token="secret-token", timeout=timeout) as gno:
        gno.status()


def async_status_call(url: str, timeout: float = 5.0) -> None:
    async def call() -> None:
        async with AsyncGno(url=url, token="secret-token", timeout=timeout) as gno:
            await gno.status()

    asyncio.run(call())


CALLS = [pytest.param(status_call, id="sync"), pytest.param(async_status_call, id="async")]


def endless(conn: socket.socket) -> None:
    """An answer with no length that never ends (the client must hang up)."""
    head(conn)
    chunk = b" " * (1 << 20)
    while True:
        conn.sendall(chunk)


def drip(conn: socket.socket) -> None:
    """A JSON answer announced whole, then one byte every 0.2 s for 6 s."""
    head(conn, extra="Content-Length: 1000\r\n")
    stop = time.monotonic() + 6.0
    while time.monotonic() < stop:
        conn.sendall(b" ")
        time.sleep(0.2)


def deflate_bomb(conn: socket.socket) -> None:
    """About 1 MiB on the wire that inflates to 1 GiB, deflated as it is sent."""
    head(conn, extra="Content-Encoding: deflate\r\n")
    squeeze = zlib.compressobj(9)
    spaces = b" " * (16 << 20)
    for _ in range(64):
        conn.sendall(squeeze.compress(spaces))
    conn.sendall(squeeze.flush())


@pytest.mark.parametrize("call", CALLS)
def test_an_endless_answer_is_refused_past_the_cap(
    raw: Callable[[Script], RawServer], call: Callable[[str], None]
) -> None:
    with pytest.raises(InvalidServerAnswerError) as info:
        call(raw(endless).url)
    assert f"more than {MAX_ANSWER_BYTES} bytes" in str(info.value)


@pytest.mark.parametrize("call", CALLS)
def test_a_dripping_answer_is_cut_at_the_timeout(
    raw: Callable[[Script], RawServer], call: Callable[..., None]
) -> None:
    """Each byte comes well within the 1 s read timeout; the call still ends near 1 s."""
    url = raw(drip).url
    started = time.monotonic()
    with pytest.raises(ServerUnreachableError) as info:
        call(url, timeout=1.0)
    assert time.monotonic() - started < 3.0
    assert "no whole answer within 1.0 s" in str(info.value) and url in str(info.value)


@pytest.mark.parametrize("call", CALLS)
def test_a_compressed_answer_is_refused_unread(
    raw: Callable[[Script], RawServer], call: Callable[[str], None]
) -> None:
    with pytest.raises(InvalidServerAnswerError) as info:
        call(raw(deflate_bomb).url)
    assert "Content-Encoding 'deflate'" in str(info.value)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "without JSON"),
        (b"<html>not gno</html>", "without JSON"),
        (b'{"unexpected": true}', "no valid status output"),
    ],
    ids=["nested-too-deep", "html", "wrong-shape"],
)
def test_an_answer_that_is_no_output_model_is_a_gno_error(
    raw: Callable[[Script], RawServer], call: Callable[[str], None], body: bytes, says: str
) -> None:
    with pytest.raises(InvalidServerAnswerError) as info:
        call(raw(lambda conn: json_body(conn, body)).url)
    assert isinstance(info.value, GnoError) and says in str(info.value)


@pytest.mark.parametrize("call", CALLS)
def test_a_redirect_elsewhere_is_not_followed_with_the_token(
    raw: Callable[[Script], RawServer], call: Callable[[str], None]
) -> None:
    seen: list[bytes] = []

    def elsewhere(conn: socket.socket) -> None:
        seen.append(b"request")
        json_body(conn, json.dumps({"resident": True}).encode())

    target = raw(elsewhere).url.replace("127.0.0.1", "localhost")
    location = f"Location: {target}/api/op/status\r\nContent-Length: 0\r\n"
    url = raw(lambda conn: head(conn, "302 Found", extra=location)).url
    with pytest.raises(InvalidServerAnswerError) as info:
        call(url)
    assert "redirect" in str(info.value) and seen == []
