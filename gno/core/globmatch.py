"""A glob matcher that runs in time linear in the path: no regular expression, no backtracking.

A pattern is parsed once into a small automaton (Thompson construction: one state
per pattern token, ``{a,b}`` groups become alternations instead of being expanded,
so ``{a,b}{c,d}…`` does not multiply). Matching walks the path once, keeping the
*set* of automaton states alive at each character (the NFA simulation used by RE2
and Go's regexp); each set is computed once per matcher and cached as a DFA
transition, so repeated matches of ordinary paths cost one dict lookup a character.
Work per character is bounded by the automaton's size, which the caps below bound,
so no pattern and no path can make one match slow or hold the GIL for long.

Semantics (kept from the regex translation it replaces, engine.md §2.1):

- ``*`` any run of characters but ``/``; ``?`` one character but ``/``;
  ``[abc]``, ``[a-z]``, ``[!a]``/``[^a]`` one character of (or not of) a class,
  never ``/``; a ``]`` right after ``[`` or ``[!`` is a member; ``\\`` is literal.
- ``**`` forming a whole segment (``a/**/b``, ``**/x``, ``x/**``) spans folders:
  followed by ``/`` it matches zero or more folders, at the end one or more
  segments. A ``**`` that does not stand alone in its segment is ``*``.
- ``{a,b}`` alternatives, nested; commas and braces inside ``[...]`` are class
  members. A stray ``}`` or ``,`` outside braces is literal.
- Hidden names: a wildcard (``*``, ``?``, class, ``**``) never matches a path
  segment that starts with ``.``; a literal dot does.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from gno.errors import ValidationError

MAX_PATTERN_CHARS = 1024
MAX_BRACE_DEPTH = 8
MAX_TEXT_CHARS = 4096  # longer than any path the OS allows; longer text never matches
MAX_CACHED_SETS = 2048  # DFA states kept per matcher before the cache starts over
# Folder prefixes ("a/b/") whose DFA state a matcher remembers: a walk matches every file of
# a folder against the same prefix, so only the file name is walked character by character.
MAX_CACHED_PREFIXES = 4096
# (folder state, file name) -> whether it matches: names such as index.md or README.md repeat
# across folders that end in the same state (two thirds of the names of the bench corpus).
MAX_CACHED_NAMES = 8192
# Work spent building DFA transitions over a glob's whole life: a fixed allowance (under a
# second) plus a few steps per character matched so far. Cached transitions cost one lookup
# a character; only patterns whose state sets never repeat (``*a`` then hundreds of ``?``)
# keep building, and they stop here instead of running long. So the total time a glob can
# take is linear in what it matched, with a small constant.
MAX_BUILD_STEPS = 5_000_000
BUILD_STEPS_PER_CHAR = 64

_LIT, _NOT_SLASH, _CLASS = 0, 1, 2


@dataclass(frozen=True, slots=True)
class _Class:
    """A bracket expression: the characters and ranges it names, or all but them."""

    negated: bool
    chars: frozenset[str]
    ranges: tuple[tuple[str, str], ...]

    def accepts(self, ch: str) -> bool:
        if ch == "/":
            return False
        inside = ch in self.chars or any(lo <= ch <= hi for lo, hi in self.ranges)
        return inside != self.negated


# Parse tree: ("lit", c) | ("any",) | ("star",) | ("class", _Class) | ("globstar", tail)
# | ("alt", [sequence, ...]); tail is True when the globstar ends the pattern or its group.
Node = tuple[object, ...]


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0

    def sequence(self, depth: int, seg_start: bool) -> list[Node]:
        """Tokens up to the end, or up to ``,``/``}`` inside a group (not consumed)."""
        out: list[Node] = []
        p = self.p
        while self.i < len(p):
            ch = p[self.i]
            at_start = seg_start if not out else out[-1] in (("lit", "/"), ("globstar", False))
            if depth and ch in ",}":
                return out
            if ch == "{":
                out.append(self.group(depth + 1, at_start))
                continue
            if ch == "*":
                run = self.i
                while self.i < len(p) and p[self.i] == "*":
                    self.i += 1
                nxt = p[self.i] if self.i < len(p) else ""
                whole = at_start and self.i - run == 2
                if whole and nxt == "/":
                    self.i += 1
                    out.append(("globstar", False))
                elif whole and (nxt == "" or (depth and nxt in ",}")):
                    out.append(("globstar", True))
                else:
                    out.append(("star",))
                continue
            elif ch == "?":
                out.append(("any",))
            elif ch == "[":
                out.append(("class", self.char_class()))
                continue
            else:
                out.append(("lit", ch))
            self.i += 1
        if depth:
            raise ValidationError(f"Unbalanced '{{' in pattern: {p}")
        return out

    def group(self, depth: int, seg_start: bool) -> Node:
        if depth > MAX_BRACE_DEPTH:
            raise ValidationError(f"Pattern nests '{{' deeper than {MAX_BRACE_DEPTH} levels")
        self.i += 1  # '{'
        options = [self.sequence(depth, seg_start)]
        while self.p[self.i] == ",":  # sequence() stopped at ',' or '}' (else it raised)
            self.i += 1
            options.append(self.sequence(depth, seg_start))
        self.i += 1  # '}'
        return ("alt", options)

    def char_class(self) -> _Class:
        p, start = self.p, self.i
        j = start + 1
        negated = j < len(p) and p[j] in "!^"
        j += negated
        first = j
        while j < len(p) and (p[j] != "]" or j == first):
            j += 1
        if j >= len(p):
            raise ValidationError(f"Unbalanced '[' in pattern: {p}")
        body = p[first:j]
        chars: set[str] = set()
        ranges: list[tuple[str, str]] = []
        k = 0
        while k < len(body):
            if k + 2 < len(body) and body[k + 1] == "-":
                ranges.append((body[k], body[k + 2]))
                k += 3
            else:
                chars.add(body[k])
                k += 1
        self.i = j + 1
        return _Class(negated, frozenset(chars), tuple(ranges))


class _Nfa:
    """States are ints. ``eps[s]`` = [(target, guarded)]: a guarded move is barred when the
    path is at the start of a segment and the next character is '.' (the hidden-name rule).
    ``moves[s]`` = [(kind, arg, target)] consume one character."""

    def __init__(self) -> None:
        self.eps: list[list[tuple[int, bool]]] = []
        self.moves: list[list[tuple[int, object, int]]] = []

    def new(self) -> int:
        self.eps.append([])
        self.moves.append([])
        return len(self.eps) - 1

    def build(self, seq: list[Node], start: int) -> int:
        """Wire ``seq`` from ``start``; returns the state reached after it."""
        cur = start
        for node in seq:
            kind = node[0]
            nxt = self.new()
            if kind == "lit":
                self.moves[cur].append((_LIT, node[1], nxt))
            elif kind == "any":
                gate = self.new()
                self.eps[cur].append((gate, True))
                self.moves[gate].append((_NOT_SLASH, None, nxt))
            elif kind == "class":
                gate = self.new()
                self.eps[cur].append((gate, True))
                self.moves[gate].append((_CLASS, node[1], nxt))
            elif kind == "star":
                loop = self.new()
                self.eps[cur].append((loop, True))
                self.moves[loop].append((_NOT_SLASH, None, loop))
                self.eps[loop].append((nxt, False))
            elif kind == "globstar":
                # (?:(?!\.)[^/]+/)* then, at the end, (?!\.)[^/]+
                # A fresh loop head: ``cur`` may be shared with the other options of a group.
                head, name_start, name = self.new(), self.new(), self.new()
                self.eps[cur].append((head, False))
                self.eps[head].append((name_start, True))
                self.moves[name_start].append((_NOT_SLASH, None, name))
                self.moves[name].append((_NOT_SLASH, None, name))
                self.moves[name].append((_LIT, "/", head))
                if node[1]:
                    self.eps[name].append((nxt, False))
                else:
                    self.eps[head].append((nxt, False))
            else:  # alt
                for option in node[1]:  # type: ignore[attr-defined]
                    end = self.build(option, cur)
                    self.eps[end].append((nxt, False))
            cur = nxt
        return cur


class Glob:
    """A compiled glob: ``match(text)`` is True when the whole text matches."""

    __slots__ = (
        "_accept",
        "_final",
        "_ids",
        "_lock",
        "_names",
        "_nfa",
        "_prefixes",
        "_rows",
        "_sets",
        "_start",
        "_start_id",
        "built",
        "chars",
        "pattern",
        "steps",
    )

    def __init__(self, pattern: str) -> None:
        if len(pattern) > MAX_PATTERN_CHARS:
            raise ValidationError(f"Pattern is longer than {MAX_PATTERN_CHARS} characters")
        self.pattern = pattern
        self._nfa = _Nfa()
        self._start = self._nfa.new()
        self._accept = self._nfa.build(_Parser(pattern).sequence(0, True), self._start)
        self._lock = threading.Lock()
        self.steps = 0  # automaton work done so far (tests check it grows linearly)
        self.built = 0  # the part of it spent building transitions (bounded)
        self.chars = 0  # characters matched over the glob's life
        self._reset()

    @property
    def size(self) -> int:
        """Number of automaton states: the most any step can touch."""
        return len(self._nfa.eps)

    def _reset(self) -> None:
        # DFA state = (NFA states before the closure, at segment start); ids index these lists.
        self._sets: list[tuple[frozenset[int], bool]] = []
        self._ids: dict[tuple[frozenset[int], bool], int] = {}
        self._rows: list[dict[str, int]] = []
        self._final: dict[int, bool] = {}
        # folder prefix (up to and including its last "/") -> DFA state after it; ids are
        # only valid until the next reset, so the two are cleared together
        self._prefixes: dict[str, int] = {}
        self._names: dict[tuple[int, str], bool] = {}
        self._start_id = self._intern((frozenset((self._start,)), True))

    def _intern(self, key: tuple[frozenset[int], bool]) -> int:
        found = self._ids.get(key)
        if found is None:
            found = len(self._sets)
            self._sets.append(key)
            self._ids[key] = found
            self._rows.append({})
        return found

    def _closure(self, states: frozenset[int], seg_start: bool, nxt: str | None) -> set[int]:
        barred = seg_start and nxt == "."
        seen = set(states)
        todo = list(states)
        eps = self._nfa.eps
        while todo:
            s = todo.pop()
            self.steps += 1
            for target, guarded in eps[s]:
                if target not in seen and not (guarded and barred):
                    seen.add(target)
                    todo.append(target)
        return seen

    def _advance(self, states: frozenset[int], seg_start: bool, ch: str) -> frozenset[int]:
        out = set()
        moves = self._nfa.moves
        for s in self._closure(states, seg_start, ch):
            for kind, arg, target in moves[s]:
                self.steps += 1
                if kind == _LIT:
                    ok = arg == ch
                elif kind == _NOT_SLASH:
                    ok = ch != "/"
                else:
                    ok = arg.accepts(ch)  # type: ignore[attr-defined]
                if ok:
                    out.add(target)
        return frozenset(out)

    def match(self, text: str) -> bool:
        if len(text) > MAX_TEXT_CHARS:
            return False
        with self._lock:  # cached rows are shared by threads; one match at a time per glob
            if len(self._sets) > MAX_CACHED_SETS:
                self._reset()
            self.chars += len(text)
            cut = text.rfind("/") + 1
            state = self._prefix_state(text[:cut])
            if not self._sets[state][0]:
                return False
            key = (state, text[cut:])
            final = self._names.get(key)
            if final is None:
                final = self._final_after(self._walk(state, text[cut:]))
                if len(self._names) >= MAX_CACHED_NAMES:
                    self._names.clear()
                self._names[key] = final
            return final

    def _prefix_state(self, prefix: str) -> int:
        """The DFA state after a folder prefix ("" or ending in "/"), walked from its parent
        folder's cached state when there is one (a walk matches a folder's files together)."""
        start = self._start_id
        if not prefix:
            return start
        state = self._prefixes.get(prefix)
        if state is None:
            parent = prefix.rfind("/", 0, len(prefix) - 1) + 1
            base = self._prefixes.get(prefix[:parent]) if parent else None
            if base is None:
                base, parent = start, 0
            state = self._walk(base, prefix[parent:])
            if len(self._prefixes) >= MAX_CACHED_PREFIXES:
                self._prefixes.clear()
            self._prefixes[prefix] = state
        return state

    def _final_after(self, state: int) -> bool:
        """Whether the text that led to ``state`` matches (the dead state never does)."""
        if not self._sets[state][0]:
            return False
        final = self._final.get(state)
        if final is None:
            states, seg_start = self._sets[state]
            final = self._accept in self._closure(states, seg_start, None)
            self._final[state] = final
        return final

    def _walk(self, state: int, text: str) -> int:
        """The DFA state after ``text`` from ``state``; stops early in the dead state."""
        rows, sets = self._rows, self._sets
        for ch in text:
            self.steps += 1
            nxt = rows[state].get(ch)
            if nxt is None:
                nxt = self._build(state, ch)  # appends to rows and sets, never replaces them
            state = nxt
            if not sets[state][0]:
                break
        return state

    def _build(self, state: int, ch: str) -> int:
        before = self.steps
        states, seg_start = self._sets[state]
        nxt = self._intern((self._advance(states, seg_start, ch), ch == "/"))
        self._rows[state][ch] = nxt
        self.built += self.steps - before
        if self.built > MAX_BUILD_STEPS + BUILD_STEPS_PER_CHAR * self.chars:
            raise ValidationError(
                f"Pattern is too complex to match (building its automaton took more than "
                f"{MAX_BUILD_STEPS:,} steps + {BUILD_STEPS_PER_CHAR} per character): "
                f"{self.pattern[:80]}"
            )
        return nxt
