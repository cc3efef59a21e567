"""Property: link parsing never reports a link inside frontmatter, fenced code, inline
code or an HTML comment, and reports every link outside them (engine.md §7.1).

Documents are built from random blocks; each visible link has a unique target
(`seen<i>`), each hidden one another (`hidden<i>`), so the parsed targets must be
exactly the visible ones, whatever the mix and order of blocks.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.document import analyze

words = st.text(alphabet="abcdefghij ", min_size=0, max_size=12).map(str.strip)
KINDS = ("wiki", "markdown", "fence", "tilde", "comment", "inline", "inline-double")


def _block(kind: str, i: int, filler: str, width: int) -> tuple[str, str | None]:
    """(Markdown block, the target a parser must find in it or None)."""
    seen, hidden = f"seen{i}", f"hidden{i}"
    if kind == "wiki":
        return f"{filler} [[{seen}]] {filler}".strip(), seen
    if kind == "markdown":
        return f"{filler} [text]({seen}.md) {filler}".strip(), f"{seen}.md"
    if kind == "fence":
        fence = "`" * width
        return f"{fence}md\n[[{hidden}]] [x]({hidden}.md)\n{fence}", None
    if kind == "tilde":
        fence = "~" * width
        return f"{fence}\n{filler}\n[[{hidden}]]\n{fence}", None
    if kind == "comment":
        return f"<!-- {filler}\n[[{hidden}]]\n[x]({hidden}.md) -->", None
    if kind == "inline":
        return f"{filler} `[[{hidden}]]` {filler}".strip(), None
    return f"{filler} ``a ` [[{hidden}]]`` {filler}".strip(), None


blocks = st.lists(
    st.tuples(st.sampled_from(KINDS), words, st.integers(3, 5)), min_size=1, max_size=12
)


@given(blocks, st.booleans())
@settings(max_examples=200, deadline=None)
def test_links_come_only_from_text_outside_code_comments_and_frontmatter(
    parts: list[tuple[str, str, int]], frontmatter: bool
) -> None:
    built = [_block(kind, i, filler, width) for i, (kind, filler, width) in enumerate(parts)]
    head = "---\ntitle: T\nsee: '[[hiddenfm]] [x](hiddenfm.md)'\n---\n" if frontmatter else ""
    text = head + "\n\n".join(block for block, _ in built) + "\n"
    found = analyze(text, "notes/page.md", ".md", markdown_syntax=True).links
    targets = sorted(link.target_ref for link in found)
    assert targets == sorted(t for _, t in built if t is not None)
    assert not any("hidden" in link.target_ref for link in found)
