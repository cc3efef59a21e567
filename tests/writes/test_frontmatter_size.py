"""A frontmatter block too large to rewrite is refused before it is read: a tag edit of a
note with 3 MB of frontmatter parsed the block five times and took 15 s, then reindexed it.
And the nesting bound every parse starts with reads a line of ``- - - …`` in one pass."""

from __future__ import annotations

import random

import pytest
import yaml
from gno_contracts.models.tag_edit_input import TagEditInput

from gno.core.frontmatter_edit import MAX_EDIT_FRONTMATTER_CHARS, set_tags
from gno.core.yaml_depth import nesting_depth
from gno.errors import GnoError
from gno.services import tag_writes
from tests.conftest import sync


def _block(chars: int) -> str:
    """A frontmatter block (fences included) of exactly ``chars`` code points."""
    head, tail = "---\ntags:\n  - a\nnote: ", "\n---\n"
    return head + "x" * (chars - len(head) - len(tail)) + tail


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every PyYAML pass over a text from here on, by name."""
    seen: list[str] = []
    for name in ("load", "compose", "parse"):
        real = getattr(yaml, name)

        def spy(*args, _real=real, _name=name, **kwargs):  # type: ignore[no-untyped-def]
            seen.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(yaml, name, spy)
    return seen


@pytest.mark.parametrize("edit", ["add", "remove"])
def test_a_tag_edit_of_frontmatter_past_the_cap_is_refused_unread(
    make_app, monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    app, root = make_app({"n.md": "# N\n"})
    sync(app)
    big = "---\ntags:\n" + "".join(f"  - t{i}\n" for i in range(200_000)) + "---\nbody\n"
    assert len(big) > MAX_EDIT_FRONTMATTER_CHARS
    (root / "n.md").write_text(big)
    sync(app)
    parses = _parses(monkeypatch)
    call = tag_writes.add if edit == "add" else tag_writes.remove
    with pytest.raises(GnoError) as refused:
        call(app, TagEditInput(ref="notes/n.md", tag="t7" if edit == "remove" else "new"))
    assert refused.value.code == "VALIDATION"
    assert str(MAX_EDIT_FRONTMATTER_CHARS) in str(refused.value)
    assert parses == []  # refused before any parse of the block, not after five
    assert (root / "n.md").read_text() == big


def test_the_cap_counts_the_whole_block_and_nothing_past_it() -> None:
    at_cap = _block(MAX_EDIT_FRONTMATTER_CHARS)
    assert set_tags(at_cap + "body\n", ["a", "b"]).startswith("---\ntags:\n  - a\n  - b\n")
    with pytest.raises(GnoError) as refused:
        set_tags(_block(MAX_EDIT_FRONTMATTER_CHARS + 1), ["a", "b"])
    assert refused.value.code == "VALIDATION"
    # a long body under a small block, or a leading rule never closed, is no large block
    body = "words\n" * (MAX_EDIT_FRONTMATTER_CHARS // 3)
    assert set_tags("---\nx: y\n---\n" + body, ["a"]) == "---\nx: y\ntags:\n  - a\n---\n" + body
    assert set_tags("---\n" + body, ["a"]) == "---\ntags:\n  - a\n---\n---\n" + body


def _reference_depth(block: str) -> int:
    """``nesting_depth`` as it was written first (it sliced the line once per dash)."""
    deepest = flow = 0
    indents: list[int] = []
    for line in block.split("\n"):
        body = line.lstrip(" ")
        if not body or body.startswith("#"):
            continue
        indent = len(line) - len(body)
        while indents and indents[-1] >= indent:
            indents.pop()
        indents.append(indent)
        dashes = 0
        while body == "-" or body.startswith("- "):
            dashes += 1
            body = body[2:].lstrip(" ")
        peak = flow
        for ch in body:
            if ch in "[{":
                flow += 1
                peak = max(peak, flow)
            elif ch in "]}" and flow:
                flow -= 1
        deepest = max(deepest, len(indents) + dashes + peak)
    return deepest


def test_the_nesting_bound_of_dash_lines_is_unchanged() -> None:
    rng = random.Random(7)
    pieces = ["-", " ", "- ", "x", "[", "]", "{", "\n", "#", "  ", "\t", ":"]
    for _ in range(5_000):
        block = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        assert nesting_depth(block) == _reference_depth(block), repr(block)
    assert nesting_depth("tags:\n  " + "- " * 1_000_000 + "x\n") == 1_000_002
