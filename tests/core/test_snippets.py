import apsw
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gno.core.frontmatter_span import frontmatter_span
from gno.core.fts import TOKENIZER, fold_characters, index_text, parse_query
from gno.core.fts_tokens import FOLD_DROP, FOLD_TO
from gno.core.invisible import drop_invisible
from gno.core.mirror import canonicalize
from gno.core.snippets import (
    SNIPPET_MAX_LINES,
    _stems,
    _visible_best_offset,
    best_snippet,
    mark_terms,
)

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


wide_text = st.lists(
    st.sampled_from(
        [
            "Alpha beta",
            "",
            "GAMMA",
            "délta ALPHA",
            "日本語 alpha",
            "İstanbul beta",
            "\u212aelvin",
            "ÉCOLE école",
            "---",
            "title: x",
            "😀 beta gamma",
            "Straße",
            "ǅ dz",
            "NAI\xad\u0308VE e\u0301cole",
        ]
    ),
    max_size=30,
)


@pytest.fixture(scope="module")
def fts() -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{TOKENIZER}')")
    return conn


@settings(max_examples=150, deadline=None)
@given(
    wide_text,
    st.lists(
        st.sampled_from(["alpha", "beta", "gamma", "kelvin", "école", "ecole", "naïve", "日本"]),
        min_size=1,
        max_size=3,
    ),
)
def test_the_snippet_is_on_a_line_fts5_matches(fts, body, terms) -> None:
    """Every line FTS5 finds a term's word on (each line a document of its own) is one the
    snippet search finds it on, and the other way round: case, diacritics and invisible
    characters are read as FTS5 reads them."""
    mirror = canonicalize("\n".join(body))
    lines = mirror.split("\n")[:-1]
    fts.execute("DELETE FROM t")
    fts.executemany(
        "INSERT INTO t (rowid, body) VALUES (?, ?)",
        [(i + 1, index_text(line)) for i, line in enumerate(lines)],
    )
    for term in terms:
        expr = parse_query(term).match_all()
        matched = {r[0] for r in fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,))}
        found = {
            i + 1
            for i, line in enumerate(lines)
            if _visible_best_offset(line, _stems((term,)), 0) is not None
        }
        assert found == matched, (term, lines)


def test_a_mark_an_invisible_character_kept_from_composing_is_folded_as_fts5_folds_it() -> None:
    # The mirror keeps "nai<SHY><U+0308>ve" (NFC cannot compose across the soft hyphen);
    # FTS5 indexed "naive" (index_text drops the hyphen, composes, folds the diaeresis).
    mirror = "# T\n\nfirst\n\n" + "x\n" * 3 + "The nai\xad\u0308ve approach\n"
    for term in ("naïve", "naive", "NAÏVE", "nai\u0308ve"):
        snip = best_snippet(mirror, (term,), 3, 5)
        assert snip.start_line == 8, term
        assert mark_terms(snip.text, (term,)) == "The <mark>nai\xad\u0308ve</mark> approach"
    assert mark_terms("Naïve ÉCOLE ecole", ("naive", "école")) == (
        "<mark>Naïve</mark> <mark>ÉCOLE</mark> <mark>ecole</mark>"
    )
    assert best_snippet("日本語\nfirst\nAlpha beta\n", ("alpha", "beta")).start_line == 3


def test_mark_terms_wraps_words_the_terms_begin() -> None:
    text = "Tail sampling keeps samples.\nSampler, TAIL-based; retail."
    assert mark_terms(text, ("tail", "sampling")) == (
        "<mark>Tail</mark> <mark>sampling</mark> keeps <mark>samples</mark>.\n"
        "<mark>Sampler</mark>, <mark>TAIL</mark>-based; retail."
    )
    assert mark_terms(text, ()) == text


def test_a_word_with_invisible_characters_inside_is_found_and_marked_whole() -> None:
    # FTS5 indexed "hyphenation" (core/invisible drops the soft hyphens): so do snippets.
    mirror = "# T\n\nfirst\n\n" + "x\n" * 3 + "The hy\xadphen\xadation rule\u200dbook\nlast\n"
    snip = best_snippet(mirror, ("hyphenation", "rulebook"), 3, 5)
    assert snip.start_line == 8 and snip.text.startswith("The hy\xadphen\xadation")
    assert best_snippet("a\xad\xadb\n\xadc\x01d\nhyphen\n", ("hyphen",)).start_line == 3
    assert mark_terms(snip.text, ("hyphenation", "rulebook")) == (
        "The <mark>hy\xadphen\xadation</mark> <mark>rule\u200dbook</mark>\nlast"
    )
    assert mark_terms("ab\x01cd ab", ("abcd",)) == "<mark>ab\x01cd</mark> ab"


def test_mark_terms_reads_words_as_fts5_does() -> None:
    # A combining acute is inside an FTS5 word: the whole Yoruba or IPA word is marked.
    assert mark_terms("Ìwé ẹ́kọ́ and q\u0301x.", ("ẹ́kọ́", "q\u0301x")) == (
        "Ìwé <mark>ẹ́kọ́</mark> and <mark>q\u0301x</mark>."
    )


def _after_lines(text: str, skip: int) -> int:
    offset = 0
    for _ in range(skip):
        offset = text.find("\n", offset) + 1 or len(text)
    return offset


@given(
    lines,
    st.lists(st.sampled_from(["alpha", "beta", "gamma", "école"]), min_size=1, max_size=3),
    st.lists(st.tuples(st.integers(0, 10**4), st.sampled_from("\xad\u200d\x01\u2060")), max_size=8),
    st.integers(0, 4),
)
def test_invisible_characters_never_move_the_snippet(body, terms, inserted, skip) -> None:
    clean = "\n".join(body) + "\n"
    stems = _stems(tuple(terms))
    # Where a term is found (else the snippet is the body's first line, blank or not).
    assume(_visible_best_offset(clean, stems, _after_lines(clean, skip)) is not None)
    dirty = clean
    for at, ch in inserted:
        at %= len(dirty)
        dirty = dirty[:at] + ch + dirty[at:]
    found = best_snippet(dirty, tuple(terms), skip + 1, _after_lines(dirty, skip))
    expected = best_snippet(clean, tuple(terms), skip + 1, _after_lines(clean, skip))
    assert found.start_line == expected.start_line


# Characters where a stem search can go wrong: case and diacritics FTS5 folds (the Kelvin
# sign and "İ" to ASCII, "ẞ" to "ß"; fullwidth "Ｂ" to "ｂ", not to "b"), marks it folds to
# nothing, invisible characters (an ASCII one too), a word break, which is no part of a word.
_TRICKY = "abkeiß ｂ\nABKÉé\u212a\u0130\u1e9e\uff22\u0308\u0301\u0327\xad\x01\u200d\u200b"
_WRITTEN = {
    "a": "aA",
    "b": "bBｂ\uff22",
    "k": "kK\u212a",
    "e": "eEÉé",
    "i": "iI\u0130",
    "ß": "ß\u1e9e",
}
_UNSEEN = ("", "", "\xad", "\x01", "\u200d", "\u0308", "\u0327\u0301", "\u200b")


@st.composite
def _text_and_stem(draw: st.DrawFn) -> tuple[str, str]:
    """A stem, and a text with the stem written in it as FTS5 may have read it (or nearly:
    "ｂ" for "b", a word break inside), amid tricky characters."""
    stem = draw(st.text(alphabet="".join(_WRITTEN), min_size=1, max_size=3))
    written = "".join(
        draw(st.sampled_from(_WRITTEN[c])) + draw(st.sampled_from(_UNSEEN)) for c in stem
    )
    around = st.text(alphabet=_TRICKY, max_size=12)
    return draw(around) + written + draw(around), stem


def _fts5_first_match(text: str, stem: str) -> int | None:
    """Where ``stem`` first starts in ``text`` as FTS5 read it: what FTS5 never saw
    (core/invisible, the marks it folds to nothing) removed, the rest folded one for one."""
    kept = [i for i, ch in enumerate(text) if drop_invisible(ch) and ch not in FOLD_DROP]
    at = fold_characters("".join(text[i] for i in kept)).find(stem)
    return None if at < 0 else kept[at]


@settings(max_examples=300)
@given(_text_and_stem())
def test_a_stem_is_found_where_fts5_folded_text_has_it(text_and_stem) -> None:
    """The mirror is searched unfolded (``_stem_pattern``), ASCII text lowered: the first match
    is where the stem starts in the text as FTS5 read and folded it."""
    text, stem = text_and_stem
    for mirror in (text, text.encode("ascii", "ignore").decode()):
        assert _visible_best_offset(mirror, [stem], 0) == _fts5_first_match(mirror, stem)


def test_a_folded_character_folds_to_itself() -> None:
    # _stem_pattern puts each stem character in its own class: it must be its own fold.
    assert fold_characters(FOLD_TO) == FOLD_TO
