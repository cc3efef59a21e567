import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.fts import TOKENIZER, index_text, parse_query
from gno.errors import ValidationError


@pytest.fixture(scope="module")
def fts():
    conn = apsw.Connection(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{TOKENIZER}')")
    docs = [
        "Tail sampling processor keeps interesting traces",
        "The OTEL_EXPORTER_OTLP_ENDPOINT variable sets the endpoint",
        "Muestreo de trazas en OpenTelemetry",
        "サンプリングの設定について",
        "gpt-4 and real-time dashboards",
        "sampling rules without the tail",
    ]
    conn.executemany(
        "INSERT INTO t (rowid, body) VALUES (?, ?)",
        [(i, index_text(d)) for i, d in enumerate(docs)],
    )
    return conn


def hits(conn, query: str, any_term: bool = False) -> set[int]:
    q = parse_query(query)
    expr = q.match_any() if any_term else q.match_all()
    return {r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,))}


def test_grammar(fts):
    assert hits(fts, "tail sampling processor") == {0}
    assert hits(fts, "sample") == {0, 5}  # porter stem + prefix
    assert hits(fts, "OTEL_EXPORTER_OTLP_ENDPOINT") == {1}  # identifier kept whole
    assert hits(fts, "muestreo de trazas") == {2}
    assert hits(fts, "サンプリング") == {3}  # CJK bigrams
    assert hits(fts, "設定") == {3}
    assert hits(fts, "gpt-4") == {4}
    assert hits(fts, '"tail sampling"') == {0}
    assert hits(fts, "sampling -tail") == set()
    assert hits(fts, "sampling -processor") == {5}
    assert hits(fts, "tail nonexistentword", any_term=True) == {0, 5}


def test_stopwords_and_short_terms_are_exact():
    q = parse_query("the de sampling")
    assert q.positives == ('"the"', '"de"', '"sampling"*')


@pytest.mark.parametrize("bad", ["", "   ", "-only", '"unbalanced', "a\nb", "!!! ???"])
def test_invalid_queries(bad):
    with pytest.raises(ValidationError):
        parse_query(bad)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_never_a_raw_sqlite_error(fts, text):
    try:
        q = parse_query(text)
    except ValidationError:
        return
    for expr in (q.match_all(), q.match_any()):
        list(fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)))
