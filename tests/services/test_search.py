import pytest

from gno.errors import NotFoundError, ValidationError
from tests.conftest import search, sync

CORPUS = {
    "en/sampling.md": "---\ntitle: Sampling guide\ntags: [otel, guide]\nauthor: Ada\ndate: 2024-05-01\n---\n"
    "# Sampling\n\nTail sampling processor keeps interesting traces.\nHead sampling decides early.\n",
    "en/exporter.md": "---\ntitle: Exporter\ntags: [otel]\ndate: 2021-01-01\n---\nSet OTEL_EXPORTER_OTLP_ENDPOINT for the exporter.\n",
    "ja/sampling.md": "---\ntitle: サンプリング\n---\nサンプリングの設定とテールサンプリングについて説明します。\n",
    "es/muestreo.md": "---\ntitle: Muestreo\n---\nEl muestreo de trazas reduce el volumen de datos.\n",
    "misc/realtime.md": "Real-time dashboards with gpt-4 summaries.\n",
}


@pytest.fixture
def app(make_app):
    app, _ = make_app(CORPUS)
    sync(app)
    return app


def uris(result):
    return [r.uri for r in result.results]


def test_ranking_scores_and_meta(app):
    result = search(app, "tail sampling processor")
    assert uris(result)[0] == "gno://notes/en/sampling.md"
    assert result.meta.mode.value == "bm25" and result.meta.totalResults == len(result.results)
    scores = [r.score for r in result.results]
    assert (
        scores == sorted(scores, reverse=True)
        and scores[0] == 1.0
        and all(0 <= s <= 1 for s in scores)
    )


def test_languages_identifiers_compounds(app):
    assert uris(search(app, "サンプリング")) == ["gno://notes/ja/sampling.md"]
    assert uris(search(app, "muestreo de trazas")) == ["gno://notes/es/muestreo.md"]
    assert uris(search(app, "OTEL_EXPORTER_OTLP_ENDPOINT")) == ["gno://notes/en/exporter.md"]
    assert uris(search(app, "real-time gpt-4")) == ["gno://notes/misc/realtime.md"]
    assert uris(search(app, "deciding")) == [
        "gno://notes/en/sampling.md"
    ]  # porter: decides ~ deciding


def test_snippet_is_the_matching_mirror_lines(app):
    hit = search(app, "head sampling").results[0]
    doc_lines = (
        app.store().content(app.store().documents_by_docid(hit.docid)[0].mirror_hash).split("\n")
    )
    start, end = hit.snippetRange.startLine, hit.snippetRange.endLine
    assert hit.snippet == "\n".join(doc_lines[start - 1 : end])
    assert "Head sampling" in hit.snippet and hit.line == start
    assert not hit.snippet.startswith("---")  # frontmatter skipped


def test_filters_apply_before_the_limit(make_app):
    files = {f"noise/n{i:03d}.md": "sampling " * 20 + f"\nnoise {i}\n" for i in range(60)}
    files["target/t.md"] = "---\ntags: [rare]\n---\nsampling once\n"
    app, _ = make_app(files)
    sync(app)
    assert uris(search(app, "sampling", limit=1, tagsAny=["rare"])) == ["gno://notes/target/t.md"]
    assert search(app, "sampling", limit=3).results[0].uri != "gno://notes/target/t.md"


def test_metadata_filters(app):
    assert uris(search(app, "sampling", tagsAll=["otel", "guide"])) == [
        "gno://notes/en/sampling.md"
    ]
    assert uris(search(app, "exporter OR", author="ada")) == []
    assert uris(search(app, "sampling", author="ADA")) == ["gno://notes/en/sampling.md"]
    assert uris(search(app, "otel exporter", since="2020-06-01", until="2022-01-01")) == [
        "gno://notes/en/exporter.md"
    ]
    assert uris(search(app, "tail", since="2025-01-01")) == []  # dated 2024 in its frontmatter
    assert "gno://notes/ja/sampling.md" in uris(search(app, "サンプリング", lang="ja"))
    # the only full match mentions "head"; the relaxed page never holds it either
    assert "gno://notes/en/sampling.md" not in uris(search(app, "tail sampling", exclude=["head"]))
    assert search(app, "sampling", collection="NOTES").meta.collection == "notes"
    with pytest.raises(NotFoundError):
        search(app, "sampling", collection="nope")
    with pytest.raises(ValidationError):
        search(app, "sampling", tagsAny=["Bad Tag"])


def test_relaxed_when_every_term_cannot_match(app):
    strict = search(app, "sampling unicorn")
    assert strict.meta.relaxed is True and uris(strict)[0] == "gno://notes/en/sampling.md"
    assert search(app, "the unicorn").results == []  # stopwords alone never relax into noise


def test_min_score_and_limit(app):
    result = search(app, "sampling", minScore=0.99)
    assert all(r.score >= 0.99 for r in result.results) and result.results
    assert len(search(app, "sampling", limit=1).results) == 1


def test_relaxed_when_the_filters_leave_no_full_match(make_app):
    """Every term matches only outside the filter: the page relaxes to any term inside it
    instead of coming back empty (`-c sub` found nothing for a longer question)."""
    app, _ = make_app({"full.md": "How do I keep only slow traces? Tail sampling.\n"})
    sub, _ = make_app({"slow.md": "Keep only slow traces with a latency policy.\n"}, name="sub")
    sync(sub)  # one index (the same data dir), two collections
    unscoped = search(app, "how do I keep only slow traces")
    assert uris(unscoped) == ["gno://notes/full.md"] and unscoped.meta.relaxed is None
    scoped = search(app, "how do I keep only slow traces", collection="sub")
    assert scoped.meta.relaxed is True
    assert uris(scoped) == ["gno://sub/slow.md"]


def test_relaxed_when_tag_or_date_filters_leave_no_full_match(make_app):
    """The same rule under the other owner filters: tags and dates leave only documents
    with some of the terms, and the page relaxes to them (issue 11 item 8)."""
    app, _ = make_app(
        {
            "full.md": "---\ntags: [guide]\ndate: 2020-01-01\n---\n"
            "How do I keep only slow traces? Tail sampling.\n",
            "slow.md": "---\ntags: [ops]\ndate: 2025-06-01\n---\n"
            "Keep only slow traces with a latency policy.\n",
        }
    )
    sync(app)
    question = "how do I keep only slow traces"
    assert uris(search(app, question)) == ["gno://notes/full.md"]
    for filters in ({"tagsAny": ["ops"]}, {"tagsAll": ["ops"]}, {"since": "2025-01-01"}):
        scoped = search(app, question, **filters)
        assert scoped.meta.relaxed is True, filters
        assert uris(scoped) == ["gno://notes/slow.md"], filters
    # a filter that leaves nothing with any term stays empty
    assert search(app, question, until="2019-01-01").results == []


def test_scores_do_not_depend_on_the_page_size(make_app):
    """The same document scores the same with -n 2 and -n 5; the last hit of a page is
    not 0 just for being last, so minScore keeps the same documents whatever the limit."""
    files = {f"d{i}.md": "sampling " * (i + 1) + f"\nfiller words number {i}\n" for i in range(12)}
    app, _ = make_app(files)
    sync(app)
    small = {r.uri: r.score for r in search(app, "sampling", limit=2).results}
    large = {r.uri: r.score for r in search(app, "sampling", limit=5).results}
    assert len(small) == 2 and len(large) == 5
    for uri, score in small.items():
        assert large[uri] == score
    assert min(small.values()) > 0.0  # the page's last hit is not the window's worst
    assert max(large.values()) == 1.0
    kept_small = [r.uri for r in search(app, "sampling", limit=2, minScore=0.5).results]
    kept_large = [r.uri for r in search(app, "sampling", limit=5, minScore=0.5).results]
    assert kept_small == kept_large[: len(kept_small)]
    # The window's worst match (here the 12th of 12) is the one that scores 0.
    everything = search(app, "sampling", limit=100).results
    assert len(everything) == 12 and everything[-1].score == 0.0


def test_filter_check_takes_more_ids_than_sqlite_variables(app):
    """The filtered window may check tens of thousands of candidates: more than the 32766
    variables one SQLite statement takes."""
    ids = [doc.id for doc in app.store().documents_by_docid("#")] + list(
        range(10**6, 10**6 + 40_000)
    )
    passing = app.store().ids_passing(ids, "AND collection = ?", ["notes"])
    assert passing == {doc.id for doc in app.store().documents_by_docid("#")}


def test_a_decomposed_query_finds_what_the_composed_one_finds(make_app):
    """The mirror is NFC: a query typed NFD (combining marks, as macOS gives it) must be
    composed too, or "nai\u0308ve" is searched as the phrase "nai ve" and finds nothing."""
    import unicodedata

    app, _ = make_app({"cv.md": unicodedata.normalize("NFD", "# CV\n\nA naïve résumé.\n")})
    sync(app)
    for word in ("naïve", "résumé"):
        composed = search(app, unicodedata.normalize("NFC", word))
        decomposed = search(app, unicodedata.normalize("NFD", word))
        assert uris(composed) == uris(decomposed) == ["gno://notes/cv.md"]
        assert decomposed.results[0].snippet == composed.results[0].snippet


def test_author_and_exclude_fold_unicode_case_and_form(make_app):
    """``author`` is a case-insensitive substring and ``exclude`` drops documents mentioning
    a term: SQLite's lower() folds ASCII only, so "émile" never found "Émile", and "école"
    (or its NFD spelling) never dropped a note saying "ÉCOLE"."""
    import unicodedata

    from gno_contracts.models.query_input import QueryInput

    from gno.services.query import query

    app, _ = make_app(
        {
            "fr.md": "---\nauthor: Émile Zola\n---\n# Fr\n\nespresso à l'ÉCOLE, ÜBER alles\n",
            "en.md": "---\nauthor: Ada\n---\n# En\n\nespresso at school\n",
        }
    )
    sync(app)
    nfd = unicodedata.normalize("NFD", "école")
    for author in ("émile", "ÉMILE", unicodedata.normalize("NFD", "Émile zola")):
        assert uris(search(app, "espresso", author=author)) == ["gno://notes/fr.md"]
    for term in ("école", "ÉCOLE", nfd, "über"):
        assert uris(search(app, "espresso", exclude=[term])) == ["gno://notes/en.md"]
        found = query(app, QueryInput(query="espresso", exclude=[term]))
        assert [r.uri for r in found.results] == ["gno://notes/en.md"]
    assert search(app, "espresso", exclude=[nfd]).meta.exclude == ["école"]
    # ASCII exclusion and author matching are as before
    assert uris(search(app, "espresso", exclude=["SCHOOL"])) == ["gno://notes/fr.md"]
    assert uris(search(app, "espresso", author="ADA")) == ["gno://notes/en.md"]
