"""The linear-time glob matcher: bounded work on hostile patterns, same answers as the rules.

Work is counted in automaton steps (``Glob.steps``), not seconds: one match may touch at
most every state of the automaton once per character, and the automaton grows at most
linearly with the pattern, so steps <= c * size * (len(text) + 1) and size <= c * len(pattern).
"""

from __future__ import annotations

import fnmatch
import random
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core import globmatch
from gno.core.globmatch import MAX_BRACE_DEPTH, MAX_PATTERN_CHARS, Glob
from gno.core.globs import compile_globs
from gno.errors import ValidationError


@pytest.fixture(scope="module")
def monkeypatch_module():
    """A monkeypatch hypothesis examples may share (each test undoes its changes)."""
    with pytest.MonkeyPatch.context() as patch:
        yield patch


STEP_FACTOR = 4  # closure visits + move checks + the cached lookup, per state and character


def assert_linear(glob: Glob, text: str) -> None:
    glob.steps = 0
    glob.match(text)
    assert glob.size <= 4 * len(glob.pattern) + 1, (glob.pattern, glob.size)
    assert glob.steps <= STEP_FACTOR * glob.size * (len(text) + 1), (glob.pattern, glob.steps)


# --- defect 1: patterns that made the regex translation backtrack exponentially ---------


def test_star_run_pattern_does_not_hang_a_process():
    """`****************x` against a long name without `x`: the old regex translation took
    minutes (the child is killed by the timeout); the matcher answers at once."""
    probe = (
        "from gno.core.globs import compile_globs\n"
        "print(bool(compile_globs('notes/' + '*' * 16 + 'x').match('notes/' + 'a' * 40 + '.md')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=20)
    assert done.stdout.strip() == "False", done.stderr


@pytest.mark.parametrize(
    "pattern",
    [
        "*" * 16 + "x",
        "*a" * 200 + "x",
        "**/" * 100 + "x",
        "{a,*}" * 100 + "x",
        "*" + "?" * 300 + "x",
        "[a-z]*" * 100 + "x",
        "{" * MAX_BRACE_DEPTH + "*a" + "}" * MAX_BRACE_DEPTH + "*" * 50 + "x",
    ],
)
def test_pathological_patterns_do_linear_work(pattern):
    glob = compile_globs(pattern)
    for text in ("a" * 2000, ("a/" * 500) + "b", "ab" * 1000):
        assert not glob.match(text)
        assert_linear(glob, text)


def test_bounds_are_enforced():
    with pytest.raises(ValidationError, match="longer than"):
        Glob("a" * (MAX_PATTERN_CHARS + 1))
    with pytest.raises(ValidationError, match="deeper than"):
        Glob("{" * (MAX_BRACE_DEPTH + 1) + "a" + "}" * (MAX_BRACE_DEPTH + 1))
    # deep nesting far past Python's recursion limit is a validation error, not a crash
    with pytest.raises(ValidationError):
        compile_globs("{" * 5000 + "a" + "}" * 5000)


hostile_alphabet = st.sampled_from(
    ["*", "**", "?", "[a-c]", "[!a]", "{", "}", ",", "/", "a", "x", "."]
)


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(hostile_alphabet, max_size=120),
    text=st.text(alphabet="ax./b", max_size=300),
)
def test_any_pattern_does_bounded_work(parts, text):
    pattern = "".join(parts)
    try:
        glob = Glob(pattern)
    except ValidationError:
        return  # unbalanced or too deep: refused up front
    assert_linear(glob, text)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(min_value=1, max_value=60), m=st.integers(min_value=1, max_value=400))
def test_work_grows_linearly_with_pattern_and_text(n, m):
    """The classic blow-up shapes: work per character is bounded by the pattern's size."""
    for pattern in ("*" * n + "x", "*a" * n + "x", "*" + "?" * n + "x"):
        glob = Glob(pattern)
        assert_linear(glob, "a" * m)


# --- the same answers as before, for patterns that never hurt -----------------------------


def _old_split_braces(pattern: str) -> list[str]:
    """The previous translation's brace expansion (reference semantics)."""
    start = pattern.find("{")
    if start < 0:
        return [pattern]
    depth = 0
    for end in range(start, len(pattern)):
        if pattern[end] == "{":
            depth += 1
        elif pattern[end] == "}":
            depth -= 1
            if depth == 0:
                break
    options, depth, current = [], 0, ""
    for ch in pattern[start + 1 : end]:
        if ch == "," and depth == 0:
            options.append(current)
            current = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        current += ch
    options.append(current)
    head, tail = pattern[:start], pattern[end + 1 :]
    return [e for option in options for e in _old_split_braces(head + option + tail)]


def _old_segment(segment: str) -> str:
    out = [r"(?!\.)"] if segment[:1] in ("*", "?", "[") else []
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "*":
            out.append(r"[^/]*")
        elif ch == "?":
            out.append(r"[^/]")
        elif ch == "[":
            close = segment.find("]", i + 1)
            out.append("[" + segment[i + 1 : close] + "]")
            i = close
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def old_regex(pattern: str) -> re.Pattern[str]:
    alternatives = []
    for alt in _old_split_braces(pattern):
        segments = alt.split("/")
        out = []
        for i, segment in enumerate(segments):
            last = i == len(segments) - 1
            if segment == "**":
                out.append(r"(?:(?!\.)[^/]+/)*" + (r"(?!\.)[^/]+" if last else ""))
            else:
                out.append(_old_segment(segment) + ("" if last else "/"))
        alternatives.append("".join(out))
    return re.compile("^(?:" + "|".join(alternatives) + ")$")


token = st.sampled_from(["a", "b", ".", "*", "?", "[ab]", "[a-b]"])
segment = st.one_of(st.just("**"), st.lists(token, min_size=1, max_size=4).map("".join))
path_glob = st.lists(segment, min_size=1, max_size=4).map("/".join)
# top-level alternatives, as engine.md §2.1 describes ({a,b} split into separate globs)
simple_pattern = st.one_of(
    path_glob,
    st.lists(path_glob, min_size=2, max_size=3).map(lambda alts: "{" + ",".join(alts) + "}"),
)


@settings(max_examples=400, deadline=None)
@given(pattern=simple_pattern, text=st.text(alphabet="ab./", max_size=14))
def test_same_answers_as_the_previous_translation(pattern, text):
    assert Glob(pattern).match(text) == bool(old_regex(pattern).match(text)), (pattern, text)


@settings(max_examples=150, deadline=None)
@given(
    pattern=simple_pattern,
    folders=st.lists(st.text(alphabet="ab./", max_size=8), min_size=1, max_size=4),
    names=st.lists(st.text(alphabet="ab.", max_size=4), min_size=1, max_size=4),
    small=st.booleans(),
)
def test_a_reused_glob_answers_like_a_fresh_one(pattern, folders, names, small, monkeypatch_module):
    """A walk matches every file with one glob, which remembers folder prefixes and
    (folder state, name) answers: reused, and with caches small enough to start over
    mid-walk, it answers each path as the reference does."""
    if small:
        monkeypatch_module.setattr(globmatch, "MAX_CACHED_SETS", 3)
        monkeypatch_module.setattr(globmatch, "MAX_CACHED_PREFIXES", 2)
        monkeypatch_module.setattr(globmatch, "MAX_CACHED_NAMES", 2)
    # the same names under several folders (and folders of several depths), as in a walk
    texts = [f"{folder}/{name}" if folder else name for folder in folders for name in names]
    try:
        glob, reference = Glob(pattern), old_regex(pattern)
        for text in [*texts, *texts]:  # the second round answers from the caches
            assert glob.match(text) == bool(reference.match(text)), (pattern, text)
    finally:
        monkeypatch_module.undo()


fn_token = st.sampled_from(["a", "b", "c", "*", "?", "[ab]", "[!a]", "[a-c]", "-", "x"])


@settings(max_examples=300, deadline=None)
@given(
    pattern=st.lists(fn_token, min_size=1, max_size=6).map("".join).filter(lambda p: p != "**"),
    text=st.text(alphabet="abcx-", max_size=10),
)
def test_single_segment_agrees_with_fnmatch(pattern, text):
    """Within one segment of a visible name the rules are fnmatch's (a lone ``**`` is the
    globstar, one or more segments, so it needs a non-empty name)."""
    assert Glob(pattern).match(text) == fnmatch.fnmatchcase(text, pattern), (pattern, text)


# Brace alternatives whose bracket classes hold ',' or '}' (issue 11 item 5): a class is one
# character whatever it contains, so the braces split only at commas outside classes.
brace_token = st.sampled_from(
    ["a", "b", "c", "*", "?", "[ab]", "[!a]", "[a-c]", "[,b]", "[}a]", "[!,]", "[]a]", "x"]
)
brace_alt = st.lists(brace_token, min_size=1, max_size=4).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    alternatives=st.lists(brace_alt.filter(lambda a: a != "**"), min_size=2, max_size=3),
    text=st.text(alphabet="abcx,}]", max_size=6),
)
def test_braces_with_bracket_classes_follow_the_rule(alternatives, text):
    """``{p1,p2,…}`` matches a name exactly when one alternative, read by fnmatch's rules,
    matches it: a ``,`` or ``}`` inside a class never ends an alternative."""
    pattern = "{" + ",".join(alternatives) + "}"
    expected = any(fnmatch.fnmatchcase(text, alt) for alt in alternatives)
    assert Glob(pattern).match(text) == expected, (pattern, text)


def test_classes_and_braces():
    glob = compile_globs("{a[0-9].md,b.md}")  # issue 11: a bracket class inside braces
    assert glob.match("a1.md") and glob.match("b.md") and not glob.match("ax.md")
    glob = compile_globs("docs/{a[,}]x.md,b.md}")  # ',' and '}' inside a class are members
    assert glob.match("docs/a,x.md") and glob.match("docs/a}x.md") and glob.match("docs/b.md")
    assert compile_globs("[]a]").match("]") and compile_globs("[!]a]").match("b")
    assert not compile_globs("a[!b]c").match("a/c")  # a class never matches '/'
    assert not compile_globs("*.md").match(".md") and compile_globs(".*.md").match(".x.md")
    assert compile_globs("a/**/b").match("a/b") and compile_globs("a/**/b").match("a/x/y/b")
    assert not compile_globs("a/**/b").match("a/.x/b")
    assert compile_globs("a/**").match("a/x/y") and not compile_globs("a/**").match("a")
    assert compile_globs("a**b").match("axxb") and not compile_globs("a**b").match("ax/xb")
    assert compile_globs("x/{*.md,**/*.txt}").match("x/a/b.txt")
    with pytest.raises(ValidationError, match="Unbalanced"):
        compile_globs("a[bc")


def test_building_the_automaton_has_a_budget():
    """A pattern whose state sets never repeat (``*a`` then 1,000 ``?``) would do tens of
    millions of steps on long paths: it stops at the budget with a clear error, across matches
    too (many paths, as multi_get over a whole collection). Short paths keep the state sets
    small, so they never get there: work per character is bounded by the path, too."""
    from gno.core.globmatch import BUILD_STEPS_PER_CHAR, MAX_BUILD_STEPS

    def allowance(glob: Glob) -> int:
        return MAX_BUILD_STEPS + BUILD_STEPS_PER_CHAR * glob.chars + 4 * glob.size

    rng = random.Random(7)
    glob = Glob("*a" + "?" * 1000)
    with pytest.raises(ValidationError, match="too complex"):
        for _ in range(3000):
            glob.match("".join(rng.choice("ab") for _ in range(400)))
    assert glob.built <= allowance(glob)
    assert glob.steps <= 2 * allowance(glob)  # + cached lookups and end-of-path checks


def test_ordinary_patterns_stay_far_from_the_budget():
    glob = compile_globs("{docs/**/*.md,README.md,src/**/[a-z]*.py}")
    for i in range(5000):
        glob.match(f"docs/section-{i % 50}/sub{i % 7}/page-{i}.md")
    assert glob.built < 200_000
