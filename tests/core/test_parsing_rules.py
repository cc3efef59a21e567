"""Parsing rules of engine.md §2–§3, §7.1 and surfaces.md §1.1, checked against the
rules themselves: small reference implementations written plainly (quadratic where that
is simplest) and documents built so the expected answer follows from the rule.
"""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.config import parse_config
from gno.core.frontmatter import extract_metadata, parse_frontmatter
from gno.core.identity import is_docid, parse_ref, parse_uri, validate_context_scope
from gno.core.links import parse_links
from gno.core.regions import Regions, code_span_spans, fence_spans
from gno.core.tags import collect_tags, hashtags
from gno.errors import ConfigError, ValidationError
from gno.paths import resolve_paths

# ---------------------------------------------------------------- reference rules


def reference_fences(text: str) -> list[tuple[int, int]]:
    """CommonMark fences, counted character by character (no regex)."""
    spans, opened, offset = [], None, 0
    for line in text.split("\n"):
        start, end = offset, offset + len(line)
        offset = end + 1
        indent = len(line) - len(line.lstrip(" "))
        body = line[indent:]
        char = body[:1]
        run = len(body) - len(body.lstrip(char)) if char in ("`", "~") else 0
        if opened is None:
            info = body[run:]
            if indent <= 3 and run >= 3 and not (char == "`" and "`" in info):
                opened = (start, char, run)
        elif (
            indent <= 3 and char == opened[1] and run >= opened[2] and body[run:].strip(" \t") == ""
        ):
            spans.append((opened[0], end))
            opened = None
    if opened is not None:
        spans.append((opened[0], len(text)))
    return spans


def reference_code_spans(
    text: str, blocked: list[tuple[int, int]] | None = None
) -> list[tuple[int, int]]:
    """For each backtick run (not starting inside ``blocked``), look ahead for a run of the
    same length before a blank line."""
    runs = [
        (m.start(), m.end())
        for m in re.finditer("`+", text)
        if not any(a <= m.start() < b for a, b in blocked or [])
    ]
    spans, i = [], 0
    while i < len(runs):
        start, end = runs[i]
        closer = None
        for j in range(i + 1, len(runs)):
            between = text[end : runs[j][0]]
            if re.search(r"\n[ \t]*\n", between):
                break
            if runs[j][1] - runs[j][0] == end - start:
                closer = j
                break
        if closer is None:
            i += 1
        else:
            spans.append((start, runs[closer][1]))
            i = closer + 1
    return spans


# ---------------------------------------------------------------- fences

fence_line = st.builds(
    lambda indent, char, n, info: " " * indent + char * n + info,
    st.integers(0, 4),
    st.sampled_from(["`", "~"]),
    st.integers(1, 6),
    st.sampled_from(["", " ", "python", " x`y", "~", "  "]),
)
text_line = st.sampled_from(["", "prose [[Link]] here", "a `code` b", "#tag", "   "])
documents = st.lists(st.one_of(fence_line, text_line), max_size=25).map("\n".join)


@given(documents)
@settings(max_examples=400)
def test_fences_follow_the_commonmark_rule(text: str) -> None:
    assert fence_spans(text) == reference_fences(text)


@given(
    char=st.sampled_from(["`", "~"]),
    length=st.integers(3, 6),
    decoys=st.lists(st.integers(0, 8), max_size=6),
    close_extra=st.integers(0, 3),
)
def test_a_fence_closes_only_on_the_same_char_and_at_least_its_length(
    char: str, length: int, decoys: list[int], close_extra: int
) -> None:
    """Inside the fence: the other char at any length, the same char shorter, or the same
    char with text after it, never close it; links there are code."""
    other = "~" if char == "`" else "`"
    body = []
    for n in decoys:
        body.append(other * max(3, n))
        body.append(char * min(n, length - 1) if n else "x")
        body.append(char * (length + n) + " info")
        body.append("[[Hidden]] #hiddentag")
    text = "\n".join(
        [
            "before [[Before]]",
            char * length,
            *body,
            char * (length + close_extra),
            "after [[After]] #aftertag",
        ]
    )
    assert [link.target_ref for link in parse_links(text, "a.md")] == ["Before", "After"]
    assert hashtags(text) == ["aftertag"]


# ---------------------------------------------------------------- inline code

inline_text = st.text(alphabet="`a[]\n ", max_size=60)


@given(inline_text)
@settings(max_examples=500)
def test_code_spans_follow_the_commonmark_rule(text: str) -> None:
    assert code_span_spans(text, []) == reference_code_spans(text)


@given(st.text(alphabet="`~a<!->\n ", max_size=80) | documents, st.integers(0, 8))
@settings(max_examples=800)
def test_code_spans_skip_the_blocked_spans(text: str, frontmatter_end: int) -> None:
    """Outside fences, comments and frontmatter the spans are the rule's; a backtick run that
    starts inside one of them does not count."""
    frontmatter_end = min(frontmatter_end, len(text))
    if frontmatter_end and text[frontmatter_end - 1] != "\n":
        frontmatter_end = 0  # frontmatter ends with its closing line
    fences = fence_spans(text)
    spans = [(0, frontmatter_end)] if frontmatter_end else []
    from gno.core.regions import _merge, comment_spans

    blocked = _merge(spans + fences + comment_spans(text, fences))
    assert code_span_spans(text, blocked) == reference_code_spans(text, blocked)


@given(n=st.integers(1, 4), inner=st.lists(st.integers(1, 6), max_size=4))
def test_links_inside_multi_backtick_code_spans_are_not_indexed(n: int, inner: list[int]) -> None:
    """A span opened by N backticks holds shorter and longer runs; a link inside is code."""
    fill = " ".join("`" * k for k in inner if k != n)
    ticks = "`" * n
    text = f"see {ticks} {fill} [[Hidden]] [x](hidden.md) {ticks} and [[Shown]]\n"
    assert [link.target_ref for link in parse_links(text, "a.md")] == ["Shown"]


def test_an_unclosed_backtick_run_is_text_and_blank_lines_end_spans() -> None:
    assert [link.target_ref for link in parse_links("a `` b [[One]]\n", "a.md")] == ["One"]
    text = "`open\n\n[[Two]] `x`"
    assert [link.target_ref for link in parse_links(text, "a.md")] == ["Two"]


def test_comments_and_regions_are_linear_on_hostile_input() -> None:
    """Pathological inputs a backtracking scan would choke on; each is one pass here
    (the test bounds nothing by time, it only runs them to completion)."""
    hostile = [
        "<!--" * 20_000,
        "".join("`" * k + "a" for k in range(1, 400)),
        "```\n" + "~~~~\n" * 10_000,
        "[[" * 20_000 + "|" * 20_000,
        "[a](" + " " * 50_000,
    ]
    for text in hostile:
        Regions(text).contains(len(text) // 2)
        parse_links(text, "a.md")
    # The line parser YAML falls back to (a tab makes the block invalid YAML).
    parse_frontmatter("---\n\tbad\nx" + " " * 50_000 + "y\n---\n")


@pytest.mark.parametrize(
    "unit",
    ["[[a]]\n", "[[a]] ", "[a](b.md)\n", "[a]([[b]])\n"],
    ids=["wiki-lines", "wiki-one-line", "markdown-lines", "logseq-lines"],
)
def test_many_links_are_parsed_in_linear_time(unit: str) -> None:
    # Each link's line was counted from the top of the note: 200,000 one-link lines
    # (1.2 MB) took minutes to sync.
    started = time.monotonic()
    links = parse_links(unit * 200_000, "a.md")
    assert time.monotonic() - started < 20
    assert len(links) == 200_000
    last = links[-1]
    if unit.endswith("\n"):
        assert (last.start_line, last.start_col) == (200_000, 1)
    else:
        assert (last.start_line, last.start_col) == (1, len(unit) * 199_999 + 1)


@given(
    st.lists(
        st.sampled_from(["[[A]]", "[[B|b]]", "[x](c.md)", "[y]([[D]])", "\n", " ", "text", "`"]),
        max_size=40,
    )
)
def test_link_positions_are_the_lines_and_columns_of_the_text(parts: list[str]) -> None:
    text = "".join(parts)
    for link in parse_links(text, "a.md"):
        lines = text.split("\n")
        start = sum(len(line) + 1 for line in lines[: link.start_line - 1]) + link.start_col - 1
        end = sum(len(line) + 1 for line in lines[: link.end_line - 1]) + link.end_col - 1
        assert text[start] == "[" and text[end - 1] in ")]", (text, link)


# ---------------------------------------------------------------- wiki and Logseq links

collection_names = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,10}", fullmatch=True)
targets = st.text(
    alphabet=st.characters(exclude_characters="[]|#\n:/\\`<", codec="utf-8"),
    min_size=1,
    max_size=20,
).filter(lambda t: t.strip() and t.strip()[0].isalnum())
anchors = st.text(alphabet="abcdefgh-", min_size=1, max_size=8)
aliases = st.text(alphabet="abc XYZ", min_size=1, max_size=10).filter(str.strip)


@given(
    collection=st.none() | collection_names,
    target=targets,
    anchor=st.none() | anchors,
    alias=st.none() | aliases,
)
def test_wiki_link_parts(
    collection: str | None, target: str, anchor: str | None, alias: str | None
) -> None:
    inner = (f"{collection}:" if collection else "") + target + (f"#{anchor}" if anchor else "")
    text = "x [[" + inner + (f"|{alias}" if alias else "") + "]] y\n"
    (link,) = parse_links(text, "a.md")
    assert link.link_type == "wiki"
    assert link.target_collection == collection
    assert link.target_ref == target.strip()
    assert "#" not in link.target_ref and link.target_anchor == anchor
    expected_text = alias.strip() if alias and alias.strip() != target.strip() else None
    assert link.link_text == expected_text


@given(target=targets, text=aliases)
def test_logseq_link_is_one_wiki_link_with_its_text(target: str, text: str) -> None:
    doc = f"see [{text}]([[{target}]]) now\n"
    (link,) = parse_links(doc, "a.md")
    assert link.link_type == "wiki" and link.target_ref == target.strip()
    assert link.link_text == (text.strip() if text.strip() != target.strip() else None)
    assert (link.start_col, link.end_col) == (5, 5 + len(f"[{text}]([[{target}]])"))


def test_logseq_embeds_and_anchor_only_links() -> None:
    links = parse_links(
        "{{embed [[Page One]]}}\n{{embed ((64a1b2c3-0000-4000-8000-000000000000))}}\n"
        "[[#Local heading]] [top](#top) [doc](dir/other.md#part)\n",
        "notes/a.md",
    )
    assert [(lk.link_type, lk.target_ref, lk.target_anchor) for lk in links] == [
        ("wiki", "Page One", None),
        ("markdown", "dir/other.md", "part"),
    ]
    assert links[1].target_ref_norm == "notes/dir/other.md"


# ---------------------------------------------------------------- Logseq properties

tag_words = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)


@given(st.lists(tag_words, min_size=1, max_size=5, unique=True), st.data())
def test_logseq_tags_property(tags: list[str], data: st.DataObject) -> None:
    forms = [data.draw(st.sampled_from(["{}", "[[{}]]", "#{}"])).format(t) for t in tags]
    page = f"tags:: {', '.join(forms)}\nauthor:: Ada\ndate:: 2024-02-03\n\n# Page\n\nbody\n"
    meta = extract_metadata(parse_frontmatter(page))
    assert collect_tags(meta.tags) == tags
    assert meta.author == "Ada" and meta.frontmatter_date == "2024-02-03T00:00:00.000Z"
    in_yaml = extract_metadata(parse_frontmatter(f"---\ntags:: {', '.join(forms)}\n---\nx\n"))
    assert collect_tags(in_yaml.tags) == tags


def test_logseq_properties_only_at_the_top_of_the_page() -> None:
    late = "\n".join(["line"] * 12 + ["tags:: late"]) + "\n"
    assert extract_metadata(parse_frontmatter(late)).tags == []


# ---------------------------------------------------------------- identity


@given(st.text(alphabet="#0123456789abcdefABCDEFxyz \n", max_size=12))
def test_docid_rules(text: str) -> None:
    assert is_docid(text) == bool(re.fullmatch(r"#[0-9a-f]{8}", text) and "\n" not in text)
    if text.startswith("#"):
        ok = bool(re.fullmatch(r"#[0-9a-f]{6,8}", text.strip())) and text.strip() == text
        try:
            parse_ref(text)
            accepted = True
        except ValidationError:
            accepted = False
        assert accepted == ok


def test_uri_rules() -> None:
    assert parse_uri("gno://notes/a.md?index=Work").index == "Work"
    assert parse_uri("gno://notes/sub/").rel_path == "sub/"  # a prefix scope
    for bad in (
        "gno://notes/a.md?index=",
        "gno://notes/a.md?index",
        "gno://notes/a.md?index=..",
        "gno://notes//a.md",
        "gno://notes/sub//a.md",
        "gno:///a.md",
        "gno://notes",
    ):
        with pytest.raises(ValidationError):
            parse_uri(bad)


def test_empty_index_name_is_rejected() -> None:
    with pytest.raises(ValidationError):
        resolve_paths(index="")


# ---------------------------------------------------------------- context scopes


def _scope_ok(scope_type: str, key: str) -> bool:
    if scope_type == "global":
        return key == "/"
    if scope_type == "collection":
        return bool(re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}:", key))
    if scope_type == "prefix":
        m = re.fullmatch(r"gno://([a-z0-9][a-z0-9_-]{0,63})/(.*)", key)
        return bool(m) and "?" not in key and "" not in m.group(2).split("/")[:-1]
    return False


@given(
    st.sampled_from(["global", "collection", "prefix", "Global", "folder"]),
    st.text(alphabet="/:gno.abAB-_?", max_size=14)
    | st.sampled_from(["/", "notes:", "gno://notes/", "gno://notes/a/b"]),
)
def test_context_scope_rules(scope_type: str, key: str) -> None:
    try:
        validate_context_scope(scope_type, key)
        accepted = True
    except ValidationError:
        accepted = False
    assert accepted == _scope_ok(scope_type, key)


def test_malformed_context_scope_is_a_config_error() -> None:
    base = {"version": "1.0"}
    good = [{"scopeType": "collection", "scopeKey": "notes:", "text": "t"}]
    assert parse_config(base | {"contexts": good}).contexts[0].scope_key == "notes:"
    for scope_type, key in (("collection", "notes"), ("global", "*"), ("prefix", "notes/a")):
        bad = [{"scopeType": scope_type, "scopeKey": key, "text": "t"}]
        with pytest.raises(ConfigError):
            parse_config(base | {"contexts": bad})
