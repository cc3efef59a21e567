from hypothesis import given
from hypothesis import strategies as st

from gno.core.frontmatter import frontmatter_span
from gno.core.mirror import canonicalize
from gno.core.snippets import SNIPPET_MAX_LINES, best_snippet

lines = st.lists(
    st.sampled_from(["alpha beta", "", "gamma", "delta alpha", "---", "title: x", "ÉCOLE"]),
    max_size=40,
)


@given(lines, st.lists(st.sampled_from(["alpha", "beta", "gamma", "école", "zzz"]), max_size=3))
def test_snippet_is_exact_mirror_lines(body, terms):
    mirror = canonicalize("\n".join(body))
    fm_line, fm_offset = frontmatter_span(mirror)
    snip = best_snippet(mirror, tuple(terms), fm_line + 1, fm_offset)
    all_lines = mirror.split("\n")[:-1]
    assert 1 <= snip.start_line <= snip.end_line <= max(1, len(all_lines))
    assert snip.end_line - snip.start_line < SNIPPET_MAX_LINES
    if all_lines:
        assert snip.text == "\n".join(all_lines[snip.start_line - 1 : snip.end_line])


def test_snippet_prefers_the_line_with_most_terms_and_skips_frontmatter():
    mirror = canonicalize(
        "---\ntitle: alpha beta\n---\nalpha only\n\nfiller\n"
        + "x\n" * 20
        + "beta and alpha together\n"
    )
    fm_line, fm_offset = frontmatter_span(mirror)
    snip = best_snippet(mirror, ("alpha", "beta"), fm_line + 1, fm_offset)
    assert snip.text.startswith("beta and alpha together") and snip.start_line == 27
    assert best_snippet(mirror, ("nothing",), fm_line + 1, fm_offset).start_line == 4
