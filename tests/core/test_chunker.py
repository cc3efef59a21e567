import bisect
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.chunker import MAX_CHARS, WINDOW_CHARS, chunk_text, code_family
from gno.core.mirror import canonicalize

words = st.sampled_from(
    ["alpha", "beta.", "Gamma", "delta!", "\n", "\n\n", "def f():", "  x = 1", "日本語", "ünïcode"]
)
documents = st.lists(words, min_size=0, max_size=3000).map(lambda ws: canonicalize(" ".join(ws)))


def _line_of(text: str, offset: int) -> int:
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    return bisect.bisect_right(starts, offset)


@settings(max_examples=60, deadline=None)
@given(documents, st.sampled_from([None, "py", "js"]))
def test_chunks_cover_text_with_consistent_spans(text, family):
    chunks = chunk_text(text, family)
    covered = [False] * len(text)
    for i, c in enumerate(chunks):
        assert c.seq == i
        assert 0 <= c.pos < c.end <= len(text)
        assert c.end - c.pos <= MAX_CHARS + WINDOW_CHARS
        assert c.start_line == _line_of(text, c.pos)
        assert c.end_line == _line_of(text, c.end - 1)
        assert not text[c.pos : c.end].isspace()
        for k in range(c.pos, c.end):
            covered[k] = True
    assert all(covered[i] or text[i].isspace() for i in range(len(text)))
    assert chunk_text(text, family) == chunks  # deterministic


def test_small_text_is_one_chunk_and_long_text_overlaps():
    assert [(c.pos, c.end) for c in chunk_text("hello\n")] == [(0, 6)]
    text = canonicalize("\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(40)))
    chunks = chunk_text(text)
    assert len(chunks) > 3
    assert all(a.end > b.pos for a, b in itertools.pairwise(chunks))  # 480-char overlap
    assert all(
        text[c.end - 2 : c.end] == "\n\n" for c in chunks[:-1]
    )  # blank-line breaks preferred


def test_code_breaks_at_declarations():
    body = "\n".join(
        f"def fn_{i}(x):\n" + "    y = x + 1\n" * 25 + "    return y\n" for i in range(30)
    )
    chunks = chunk_text(body, code_family("src/mod.py"))
    assert len(chunks) > 1
    for c in chunks[1:]:
        assert body[c.pos :].startswith("def fn_")
    assert code_family("a/b.TS") == "js" and code_family("notes.md") is None
