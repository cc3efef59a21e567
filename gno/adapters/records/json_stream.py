"""The messages of a ``.json`` chat export, read one at a time (spec/records.md).

``json.loads`` of a whole export held the file, its text and every message object at
once: about ten times the file (320 MB over the baseline for 32 MiB of tiny messages).
Here only the document's top level — the list of messages, or the object holding a
``messages`` list — is walked by hand; each message is parsed by the standard library's own
decoder (``JSONDecoder.raw_decode``) from a sliding window of decoded text. A message
therefore reads exactly as ``json.loads`` reads it: the same numbers (``parse_int``
included), NaN/Infinity, duplicate keys (the last wins), strictness and ``RecursionError``
past the interpreter's depth; the bytes are decoded as ``json.loads`` decodes them
(``json.detect_encoding``: UTF-8 with or without a BOM, UTF-16/32; ``surrogatepass``),
incrementally.

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

Every other top-level value (an ``attachments`` list, a ``metadata`` object, a document
that is one scalar, a ``messages`` that is not a list) is **skipped**: checked, never
built (``_Window.skip``), in a window of about ``chunk`` characters however large it is.
It is refused exactly when the decoder would refuse it — bad syntax, a bad escape, a
control character in a string (strict), extra data; NaN and Infinity pass — and nested
deeper than the decoder nests at that point raises ``RecursionError`` (the depth is asked
of the decoder itself, in the frame that parsed such values before). Its integers are
checked, not converted (``parse_int`` is not called: gno's never refuses). A refusal,
however far into a huge value, is a ``JsonError`` naming the first fault met and its
character offset in the document (the message may differ from ``json.loads``'s, which
decoded the whole file first, so bytes that do not decode anywhere were its error); the
messages before the value have been yielded, those after it are not read. For speed,
containers that fit the window are still handed to the decoder (their objects are no
larger than the window, and dropped), and runs of scalar members pass in one match.
"""

from __future__ import annotations

import codecs
import json
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, Protocol

CHUNK_BYTES = 64 * 1024
_WHITESPACE = re.compile(r"[ \t\n\r]*")  # the decoder's own whitespace
_NEAR_END = 64  # a decoder error this close to the window's end may be the window's end

# A skipped value's pieces, as the decoder (strict) reads them. Every repetition is
# possessive and its alternatives begin with different characters, so no match backtracks:
# each is linear in what it reads (a string longer than the window is read in pieces).
_STRING_BODY = r'(?:[^"\\\x00-\x1f]++|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*+'
_SCALAR = (
    rf'(?:"{_STRING_BODY}"|-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][-+]?+[0-9]++)?+'
    r"|true|false|null|NaN|-?Infinity)"
)
_WS = r"[ \t\n\r]*+"
_IN_STRING = re.compile(_STRING_BODY)
_QUOTED = re.compile(f'"{_STRING_BODY}"')
_CONSTANT = re.compile(r"true|false|null|NaN|-?Infinity")
_DIGITS = re.compile(r"[0-9]*+")
# Members holding a scalar, each with its comma: the bulk of a large flat list or object
# passes in one match (a member the window cuts is not matched, and is read by hand).
_SCALAR_MEMBERS = {
    "]": re.compile(rf"(?:{_WS}{_SCALAR}{_WS},)*+"),
    "}": re.compile(rf'(?:{_WS}"{_STRING_BODY}"{_WS}:{_WS}{_SCALAR}{_WS},)*+'),
}


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

    def key(self) -> str | None:
        """The next property name; ``None`` for one longer than the window, passed over
        unbuilt (``messages`` is at most 50 characters, every letter escaped)."""
        self.expect('"', "Expecting property name enclosed in double quotes")
        self.pos -= 1
        while len(self.text) - self.pos < _NEAR_END and self.more():
            pass
        if not _QUOTED.match(self.text, self.pos):
            self._string()  # longer than the window, or bad: refused there
            return None
        key = self.value()
        assert isinstance(key, str)
        return key

    def skip(self) -> None:
        """Pass over the next JSON value without building it (module docstring): refused
        as the decoder refuses it, in a window of about ``chunk`` whatever its size."""
        closers: list[str] = []  # of the containers open around the reading point
        ok, too_deep = 0, sys.maxsize  # nesting the decoder is known to reach here, or not
        fast_from = 0  # no container is handed to the decoder before this character
        while True:
            char = self.peek()
            if char == "[" or char == "{":
                end: int | None = None  # of the container, when the decoder read it whole
                need = len(closers) + 1
                if self._dropped + self.pos >= fast_from:
                    if len(self.text) - self.pos < self._chunk:
                        self.more()
                    try:  # RecursionError: nested too deeply even from here, so too deeply
                        end = self._json.raw_decode(self.text, self.pos)[1]
                    except json.JSONDecodeError:  # past the window, or bad: by hand to there
                        fast_from = self._dropped + len(self.text)
                    else:  # its nesting is at most its brackets
                        opened = self.text.count("[", self.pos, end)
                        need = len(closers) + opened + self.text.count("{", self.pos, end)
                while True:
                    # Ask the decoder how deep it nests from this frame (where value() parsed
                    # skipped values): doubling, then halving, so a few short probes in all.
                    while ok < need < too_deep:
                        probe = max(need, min(2 * need, (ok + too_deep) // 2))
                        try:
                            self._json.raw_decode("[" * probe + "]" * probe)
                            ok = probe
                        except RecursionError:
                            too_deep = probe
                    if need <= ok:
                        break
                    if end is None:
                        raise RecursionError("maximum recursion depth exceeded in a JSON value")
                    # Maybe too deep: walked by hand, which finds where.
                    fast_from = self._dropped + end
                    end, need = None, len(closers) + 1
                if end is not None:
                    self.pos = end
                else:
                    self.pos += 1
                    closers.append("]" if char == "[" else "}")
                    if self.peek() != closers[-1]:
                        self._member(closers[-1])
                        continue  # to the member's value
                    self.pos += 1
                    closers.pop()
            elif char == '"':
                self._string()
            else:
                self._scalar()
            while closers:  # after a value
                if self.expect("," + closers[-1], "Expecting ',' delimiter") == ",":
                    self._member(closers[-1])
                    break
                closers.pop()
            else:
                return

    def _member(self, closer: str) -> None:
        """Pass over the scalar members the window holds whole, then the next member's key
        (in an object)."""
        match = _SCALAR_MEMBERS[closer].match(self.text, self.pos)
        assert match is not None  # the pattern matches the empty string
        self.pos = match.end()
        if closer == "}":
            self.expect('"', "Expecting property name enclosed in double quotes")
            self.pos -= 1
            self._string()
            self.expect(":", "Expecting ':' delimiter")

    def _string(self) -> None:
        """Pass over the string whose quote is at ``pos``, in pieces of the window."""
        start = self._dropped + self.pos
        self.pos += 1
        while True:
            match = _IN_STRING.match(self.text, self.pos)
            assert match is not None
            self.pos = end = match.end()
            char = self.text[end : end + 1]
            if char == '"':
                self.pos += 1
                return
            if char and char != "\\":
                raise self.error("Invalid control character", end)
            if len(self.text) - end < 6 and self.more():  # cut by the window, maybe mid-escape
                continue
            escape = self.text[end + 1 : end + 2]
            if escape and escape not in 'u"\\/bfnrt':
                raise self.error("Invalid \\escape", end)
            if len(self.text) - end >= 6:
                raise self.error("Invalid \\uXXXX escape", end)
            raise self.error("Unterminated string", start - self._dropped, at_end=True)

    def _scalar(self) -> None:
        """Pass over the number or constant at ``pos`` (its digits may outrun the window)."""
        while len(self.text) - self.pos < 9 and self.more():  # "-Infinity" is the longest
            pass
        start = self.pos
        constant = _CONSTANT.match(self.text, self.pos)
        if constant:
            self.pos = constant.end()
            return
        if self.text.startswith("-", self.pos):
            self.pos += 1
        first = self.text[self.pos : self.pos + 1]
        if first == "0":
            self.pos += 1
        elif first and first in "123456789":
            self._digits()
        else:
            raise self.error("Expecting value", start, at_end=not first)
        if self._next() == ".":
            self.pos += 1
            if not self._digits():
                raise self.error("Expecting digits", self.pos, at_end=not self._next())
        if self._next() in ("e", "E"):
            self.pos += 1
            if self._next() in ("+", "-"):
                self.pos += 1
            if not self._digits():
                raise self.error("Expecting digits", self.pos, at_end=not self._next())

    def _next(self) -> str:
        """The next character, whitespace or not ('' at the end of the text)."""
        while self.pos == len(self.text) and self.more():  # a read may decode to nothing
            pass
        return self.text[self.pos : self.pos + 1]

    def _digits(self) -> int:
        count = 0
        while True:
            match = _DIGITS.match(self.text, self.pos)
            assert match is not None
            count += match.end() - self.pos
            self.pos = match.end()
            if self.pos < len(self.text) or not self.more():
                return count

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
    then the rest of the document is checked, its other values skipped unbuilt
    (``JsonError`` on bad JSON or extra data; ``RecursionError`` and
    ``UnicodeDecodeError`` as the decoder raises them)."""
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
                    window.skip()
                if window.expect(",}", "Expecting ',' delimiter") == "}":
                    break
    else:
        window.skip()
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
