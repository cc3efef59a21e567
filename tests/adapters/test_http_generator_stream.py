"""HttpGenerator streams a free-text answer (server-sent events, ``stream: true``) from a
real loopback server (tests/fake_openai.py): pieces reach ``on_text`` while the server
still holds the rest, and every malformed or endless stream ends in a ``GenerationError``."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from gno.adapters.openai_http.client import EVENT_LINE_BYTES
from gno.adapters.openai_http.generator import TOKEN_CHARS, HttpGenerator, answer_bytes
from gno.ports import GENERATE_FAILED, GENERATE_TIMEOUT, INVALID_OUTPUT, GenerationError
from tests.fake_openai import FakeOpenAI, Reply, word_pieces

ANSWER = "Tail sampling keeps the slow traces [1]. Head sampling decides early [2]."
SCHEMA = {"type": "object"}


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(mode="ok") as fake:
        fake.chat_reply = lambda body: ANSWER
        yield fake


def _events(server: FakeOpenAI, *events: bytes) -> None:
    route = ("POST", "/v1/chat/completions")
    server.routes[route] = lambda body: Reply(200, b"", "text/event-stream", list(events))


def test_pieces_arrive_before_the_answer_is_complete(server: FakeOpenAI) -> None:
    gate = server.stream_gate = threading.Event()
    first = threading.Event()
    pieces: list[str] = []
    result: list[str] = []

    def on_text(piece: str) -> None:
        pieces.append(piece)
        first.set()

    gen = HttpGenerator(f"{server.url}/v1", "chat")
    worker = threading.Thread(target=lambda: result.append(gen.generate("q", on_text=on_text)))
    worker.start()
    try:
        assert first.wait(timeout=30), "no piece arrived"
        # The server holds everything after the first piece: the answer is not finished.
        assert worker.is_alive() and pieces == [word_pieces(ANSWER)[0]] and not result
    finally:
        gate.set()
    worker.join(timeout=30)
    assert result == [ANSWER]
    assert pieces == word_pieces(ANSWER) and len(pieces) > 5
    assert server.requests[-1].body["stream"] is True


def test_a_server_that_ignores_stream_hands_the_answer_over_whole(server: FakeOpenAI) -> None:
    server.ignore_stream = True
    pieces: list[str] = []
    assert HttpGenerator(server.url, "m").generate("q", on_text=pieces.append) == ANSWER
    assert pieces == [ANSWER]


def test_schema_calls_and_calls_without_on_text_are_not_streamed(server: FakeOpenAI) -> None:
    gen = HttpGenerator(server.url, "m")
    server.chat_reply = lambda body: '{"a": 1}'
    assert gen.generate("q", schema=SCHEMA, on_text=lambda piece: None) == '{"a": 1}'
    assert gen.generate("q") == '{"a": 1}'
    assert all("stream" not in r.body for r in server.requests)


def test_an_error_event_fails_after_the_pieces_already_shown(server: FakeOpenAI) -> None:
    server.stream_error = True
    pieces: list[str] = []
    with pytest.raises(GenerationError) as info:
        HttpGenerator(server.url, "m").generate("q", on_text=pieces.append)
    assert info.value.code == GENERATE_FAILED and "model crashed" in info.value.message
    assert pieces == word_pieces(ANSWER)[:1]


def test_framing_multiline_data_crlf_comments_and_no_done(server: FakeOpenAI) -> None:
    _events(
        server,
        b": keep-alive\r\n\r\nevent: message\r\nid: 1\r\n",
        b'data: {"choices": [{"delta": {"role": "assistant"}}]}\r\n\r\n',
        b'data: {"choices": [{"delta":\r\ndata:  {"content": "one "}}]}\r\n\r\n',
        b'data: {"choices": []}\n\n',  # e.g. a closing usage event
        b'data: {"choices": [{"delta": {"content": "two"}, "finish_reason": "stop"}]}',
    )  # the body ends without a blank line and without [DONE]
    pieces: list[str] = []
    assert HttpGenerator(server.url, "m").generate("q", on_text=pieces.append) == "one two"
    assert pieces == ["one ", "two"]


@pytest.mark.parametrize(
    ("events", "why"),
    [
        ((b"data: {not json\n\n",), "not JSON"),
        ((b"data: [1, 2]\n\n",), "not a JSON object"),
        ((b'data: {"choices": [{"delta": {"content": 7}}]}\n\n',), "not text"),
        ((b'data: {"choices": ["x"]}\n\n',), "no 'choices'"),
        ((b"data: " + b"x" * (EVENT_LINE_BYTES + 1) + b"\n\n",), "size cap"),
    ],
)
def test_malformed_streams_are_invalid_output(
    server: FakeOpenAI, events: tuple[bytes, ...], why: str
) -> None:
    _events(server, *events)
    with pytest.raises(GenerationError) as info:
        HttpGenerator(server.url, "m").generate("q", on_text=lambda piece: None)
    assert info.value.code == INVALID_OUTPUT and why in info.value.message


def test_a_stalled_stream_times_out(server: FakeOpenAI) -> None:
    server.stream_gate = threading.Event()  # never set: the stream stalls after one piece
    pieces: list[str] = []
    with pytest.raises(GenerationError) as info:
        HttpGenerator(server.url, "m").generate("q", timeout=0.5, on_text=pieces.append)
    assert info.value.code == GENERATE_TIMEOUT and len(pieces) == 1


def test_http_errors_before_the_stream(server: FakeOpenAI) -> None:
    server.mode = "error500"
    with pytest.raises(GenerationError) as info:
        HttpGenerator(server.url, "m").generate("q", on_text=lambda piece: None)
    assert info.value.code == GENERATE_FAILED and "HTTP 500" in info.value.message
    server.mode = "garbage"
    with pytest.raises(GenerationError) as info:
        HttpGenerator(server.url, "m").generate("q", on_text=lambda piece: None)
    assert info.value.code == INVALID_OUTPUT


@pytest.mark.parametrize("streamed", [False, True])
def test_an_oversized_json_body_is_refused(server: FakeOpenAI, streamed: bool) -> None:
    """A body over what ``max_tokens`` tokens could fill (``answer_bytes``: 67,072 bytes for
    one token) is INVALID_OUTPUT, never held whole, streamed call or not."""
    server.ignore_stream = True  # the streamed call gets one JSON body too
    server.chat_reply = lambda body: "x" * 100_000
    gen = HttpGenerator(server.url, "m")
    on_text = (lambda piece: None) if streamed else None
    with pytest.raises(GenerationError) as info:
        gen.generate("q", max_tokens=1, on_text=on_text)
    assert info.value.code == INVALID_OUTPUT
    assert f"over {answer_bytes(1)} bytes" in info.value.message
    server.chat_reply = lambda body: "short"
    assert gen.generate("q", max_tokens=1, on_text=on_text) == "short"


@pytest.mark.parametrize("streamed", [False, True])
def test_an_answer_longer_than_its_max_tokens_is_refused(
    server: FakeOpenAI, streamed: bool
) -> None:
    """A server that ignores ``max_tokens`` (here 50 MB for a 512-token answer, before this
    was refused only at 64 MiB or a 16 MiB stream) ends in INVALID_OUTPUT; a streamed one
    stops before the first piece past the cap is shown."""
    server.chat_reply = lambda body: "word " * (10 << 20)
    server.stream_pieces = lambda text: [text[i : i + 65536] for i in range(0, len(text), 65536)]
    shown: list[str] = []
    gen = HttpGenerator(server.url, "m")
    with pytest.raises(GenerationError) as info:
        gen.generate("q", max_tokens=512, on_text=shown.append if streamed else None)
    assert info.value.code == INVALID_OUTPUT
    refused = "longer than 512 tokens" if streamed else f"over {answer_bytes(512)} bytes"
    assert refused in info.value.message
    assert sum(map(len, shown)) <= 512 * TOKEN_CHARS
    # the text itself is measured too, whatever the body's size
    server.chat_reply = lambda body: "y" * (TOKEN_CHARS + 1)
    with pytest.raises(GenerationError) as info:
        gen.generate("q", max_tokens=1, on_text=shown.append if streamed else None)
    assert info.value.code == INVALID_OUTPUT and "longer than 1 tokens" in info.value.message
    server.chat_reply = lambda body: "y" * TOKEN_CHARS
    assert gen.generate("q", max_tokens=1) == "y" * TOKEN_CHARS
