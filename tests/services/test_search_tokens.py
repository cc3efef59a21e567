"""On a real index: a query's words are the words FTS5 indexed (core/fts_tokens), and a
snippet marks a word FTS5 read whole though the file has invisible characters inside it."""

from __future__ import annotations

from gno_contracts.models.search_input import SearchInput
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gno.app import App
from gno.errors import ValidationError
from gno.rest.views import search_marked
from tests.conftest import search, sync
from tests.core.test_fts_tokens import ALPHABET

NOTES = {
    "yoruba.md": "# Ẹ̀kọ́\n\nÌwé ẹ́kọ́ fún àwọn ọmọdé.\n",
    "ipa.md": "# IPA\n\nThe tone is written q\u0301x in the transcription.\n",
    "apart.md": "# Apart\n\nAn ẹ and a kọ; a q and an x.\n",
    "shy.md": "# Shy\n\nfirst line\n\nsecond line\n\nThe hy\xadphen\xadation rule, Ẹ́kọ́.\n",
}


def uris(app: App, query: str) -> set[str]:
    return {hit.uri.rsplit("/", 1)[-1] for hit in search(app, query, limit=20).results}


def test_a_word_with_a_combining_mark_fts5_keeps_inside_is_found(make_app) -> None:
    app, _ = make_app(NOTES)
    sync(app)
    assert uris(app, "ẹ́kọ́") == {"yoruba.md", "shy.md"}  # U+1EB9 U+0301: no precomposed form
    assert uris(app, "Ẹ́KỌ́") == {"yoruba.md", "shy.md"}
    assert uris(app, "q\u0301x") == {"ipa.md"}
    assert uris(app, '"written q\u0301x"') == {"ipa.md"}


def test_a_snippet_marks_a_word_with_soft_hyphens_whole(make_app) -> None:
    app, _ = make_app(NOTES)
    sync(app)
    (hit,) = search(app, "hyphenation").results
    assert hit.line == 7 and hit.snippet.startswith("The hy\xadphen\xadation rule")
    (marked,) = search_marked(app, SearchInput(query="hyphenation ẹ́kọ́")).results
    assert marked.snippet == "The <mark>hy\xadphen\xadation</mark> rule, <mark>Ẹ́kọ́</mark>."


def test_any_text_in_a_note_is_found_by_the_same_text(make_app) -> None:
    app, root = make_app({"seed.md": "# Seed\n"})
    runs = iter(range(10**6))  # new names every example: a file sync saw before reports nothing

    @settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.text(ALPHABET, min_size=1, max_size=12), min_size=1, max_size=5))
    def check(texts: list[str]) -> None:
        for old in root.glob("n*.md"):
            old.unlink()
        run = next(runs)
        names = [f"n{run}-{i}.md" for i in range(len(texts))]
        for name, text in zip(names, texts, strict=True):
            (root / name).write_text(f"# Note\n\n{text}\n", encoding="utf-8")
        result = sync(app)
        binary = {e.relPath for c in result.collections for e in c.errors}  # controls
        for name, text in zip(names, texts, strict=True):
            if name in binary:
                continue
            try:
                found = uris(app, text)
            except ValidationError:
                continue  # no word in it (tests/core/test_fts_tokens checks FTS5 has none)
            assert name in found, (text, found)

    check()
