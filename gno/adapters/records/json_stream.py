"""The messages of a ``.json`` chat export, read one at a time (spec/records.md).

``json.loads`` of a whole export held the file, its text and every message object at
once: about ten times the file (320 MB over the baseline for 32 MiB of tiny messages).
Here only the document's top level — the list of messages, or the object holding a
``messages`` list — is walked by hand; each message (and each other top-level value) is
parsed by the standard library's own decoder (``JSONDecoder.raw_decode``) from a sliding
window of decoded text. A message therefore reads exactly as ``json.loads`` reads it: the
same numbers (``parse_int`` included), NaN/Infinity, duplicate keys (the last wins),
strictness and ``RecursionError`` past the interpreter's depth; the bytes are decoded as
``json.loads`` decodes them (``json.detect_encoding``: UTF-8 with or without a BOM,
UTF-16/32; ``surrogatepass``), incrementally.

Why not ijson: its C backend (yajl2_c, 3.2.3 to 3.6.0) crashes the process with a
segmentation fault on an integer of more than 4,300 digits, and with ``use_float=True``
refuses every integer past 2^63 as a parse error (ijson issue #153); its pure-Python
backend took 22 s for 32 MiB before any record was made.

The one difference from ``json.loads``: a top-level object with ``messages`` twice yields
the items of every ``messages`` list in turn (``json.loads`` keeps the last), so a
duplicated key loses no message; a ``messages`` that is not a list is passed over.

A value that fails to parse at the end of the window is read again with more text (the
window grows geometrically, so a long message costs a bounded number of re-reads); it is
an error only at the end of the file, or when the decoder stops well before the end of the
window at something other than an open string (a cut-short window ends an item only at its
end).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator
from typing import Any, Protocol

CHUNK_BYTES = 64 * 1024
_WHITESPACE = re.compile(r"[ \t\n\r]*")  # the decoder's own whitespace
_NEAR_END = 64  # a decoder error this close to the window's end may be the window's end


class Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


class JsonError(ValueError):
    """The document is not valid JSON at ``offset`` (characters from its start)."""


class _Window:
    def __init__(self, stream: Readable, chunk: int, parse_int: Callable[[str], Any]) -> None:
        self._stream, self._chunk = stream, chunk
        first = stream.read(max(chunk, 4))  # json.detect_encoding looks at 4 bytes
        self._decoder = codecs.getincrementaldecoder(json.detect_encoding(first))("surrogatepass")
        self._json = json.JSONDecoder(parse_int=parse_int)
        # Bytes that do not decode: raised only where the parser needs the text past them
        # (reading ahead must not lose the messages before them).
        self.undecodable: UnicodeDecodeError | None = None
        self.eof = not first
        self.text = self._decode(first)
        self.pos = 0
        self._dropped = 0  # characters consumed and cut from the window

    def _decode(self, data: bytes) -> str:
        try:
            return self._decoder.decode(data, final=self.eof)
        except UnicodeDecodeError as exc:  # the decoder's state is as before the call
            self.undecodable = exc
            pending = len(self._decoder.getstate()[0])
            return self._decoder.decode(data[: max(0, exc.start - pending)])

    def more(self) -> bool:
        """Read on (at least as much again as is unread, so re-reads stay linear); False
        at the end of the file or of its decodable text."""
        if self.eof or self.undecodable:
            return False
        data = self._stream.read(max(self._chunk, len(self.text) - self.pos))
        self.eof = not data
        self._dropped += self.pos
        self.text = self.text[self.pos :] + self._decode(data)
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character after whitespace ('' at the end of the file)."""
        char = self.text[self.pos : self.pos + 1]
        if char and char not in " \t\n\r":
            return char
        while True:
            end = _WHITESPACE.match(self.text, self.pos)
            assert end is not None  # the pattern matches the empty string
            self.pos = end.end()
            if self.pos < len(self.text) or not self.more():
                return self.text[self.pos : self.pos + 1]

    def expect(self, chars: str, what: str) -> str:
        char = self.peek()
        if not char:
            raise self.error(what, self.pos, at_end=True)
        if char not in chars:
            raise self.error(what, self.pos)
        self.pos += 1
        return char

    def value(self) -> Any:
        """The next JSON value, parsed by the standard decoder."""
        self.peek()
        while True:
            try:
                value, end = self._json.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as exc:
                truncated = exc.msg.startswith("Unterminated string") or (
                    exc.pos >= len(self.text) - _NEAR_END
                )
                if not truncated:
                    raise self.error(exc.msg, exc.pos) from None
                if not self.more():
                    raise self.error(exc.msg, exc.pos, at_end=True) from None
                continue
            # A number at the window's end may go on ("1" of "1.5e3"): read on, parse again.
            if end + _NEAR_END < len(self.text) or not self.more():
                self.pos = end
                return value

    def key(self) -> str:
        self.expect('"', "Expecting property name enclosed in double quotes")
        self.pos -= 1
        key = self.value()
        assert isinstance(key, str)
        return key

    def error(self, message: str, pos: int, *, at_end: bool = False) -> ValueError:
        """The error at ``pos``; at the end of the decodable text, the bytes that did not
        decode when there are such (``UnicodeDecodeError``, as ``json.loads`` raised)."""
        if at_end and self.undecodable is not None:
            return self.undecodable
        return JsonError(f"{message} at character {self._dropped + pos}")


def messages(
    stream: Readable, parse_int: Callable[[str], Any], chunk: int = CHUNK_BYTES
) -> Iterator[Any]:
    """The items of the top-level list, or of the top-level object's ``messages`` lists;
    then the rest of the document is checked (``JsonError`` on bad JSON or extra data;
    ``RecursionError`` and ``UnicodeDecodeError`` as the decoder raises them)."""
    window = _Window(stream, chunk, parse_int)
    start = window.peek()
    if start == "[":
        window.pos += 1
        yield from _items(window)
    elif start == "{":
        window.pos += 1
        if window.peek() == "}":
            window.pos += 1
        else:
            while True:
                name = window.key()
                window.expect(":", "Expecting ':' delimiter")
                if name == "messages" and window.peek() == "[":
                    window.pos += 1
                    yield from _items(window)
                else:
                    window.value()
                if window.expect(",}", "Expecting ',' delimiter") == "}":
                    break
    else:
        window.value()
    if window.peek():
        raise window.error("Extra data", window.pos)
    if window.undecodable is not None:
        raise window.undecodable


def _items(window: _Window) -> Iterator[Any]:
    if window.peek() == "]":
        window.pos += 1
        return
    while True:
        yield window.value()
        if window.expect(",]", "Expecting ',' delimiter") == "]":
            return
