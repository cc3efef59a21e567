"""Query expansion core: prompt, parsing, guardrails, strong signal, depth policy."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core import expansion as ex
from gno.core.expansion import Expansion

# -- prompt and cache key ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "template"),
    [
        ("en", "en"),
        ("EN-us", "en"),
        ("en_GB", "en"),
        ("de", "de"),
        ("de-CH", "de"),
        ("fr", "multi"),
        ("ja", "multi"),
        (None, "multi"),
        ("", "multi"),
    ],
)
def test_template_by_language(lang, template) -> None:
    assert ex.template_language(lang) == template


def test_prompt_shape() -> None:
    english = ex.build_prompt("slow traces", "en")
    german = ex.build_prompt("langsame Traces", "de", "  nur   Produktion ")
    multi = ex.build_prompt("trazas lentas", "es")
    assert (
        len({english.split("Query:")[0], german.split("Query")[0], multi.split("Query:")[0]}) == 3
    )
    assert english.endswith("Query: slow traces\n") and "Query intent" not in english
    assert "Query intent: nur Produktion\nQuery: langsame Traces\n" in german
    assert "Deutsch" in german and "language of the query" in multi
    for prompt in (english, german, multi):
        assert all(key in prompt for key in ("lexicalQueries", "vectorQueries", "hyde"))


def test_cache_key_covers_every_part() -> None:
    base = ("m", "q", "en", None)
    keys = {
        ex.cache_key(*base),
        ex.cache_key("m2", "q", "en", None),
        ex.cache_key("m", "q2", "en", None),
        ex.cache_key("m", "q", "de", None),
        ex.cache_key("m", "q", "en", "why"),
    }
    assert len(keys) == 5 and ex.cache_key(*base) == ex.cache_key(*base)
    assert all(len(k) == 64 for k in keys)


# -- parsing ------------------------------------------------------------------------------


def test_parse_first_object_in_prose_and_fences() -> None:
    text = (
        "Sure {not json} here:\n```json\n"
        '{"lexicalQueries": ["a  b", "A B", 3, "", "c"], "vectorQueries": "nope", '
        '"hyde": "text with } and { inside"}\n```\n{"lexicalQueries": ["later"]}'
    )
    got = ex.parse_answer(text)
    assert got == Expansion(("a b", "c"), (), "text with } and { inside")


def test_parse_caps_lists_and_tolerates_control_characters() -> None:
    answer = {"lexicalQueries": [f"q{i}" for i in range(9)], "vectorQueries": ["x\ty"]}
    got = ex.parse_answer(json.dumps(answer).replace("\\t", "\t"))
    assert got is not None and got.lexical == ("q0", "q1", "q2", "q3", "q4")
    assert got.vector == ("x y",) and got.hyde is None


@pytest.mark.parametrize("text", ["", "no braces", "{broken", "[1, 2]", '{"a": 1'])
def test_parse_without_an_object(text) -> None:
    assert ex.parse_answer(text) is None


def test_cache_round_trip() -> None:
    original = Expansion(("a", "b"), ("c",), "ü passage")
    assert ex.from_json(original.to_json()) == original
    assert ex.from_json(Expansion().to_json()) == Expansion()


# -- guardrails ---------------------------------------------------------------------------


def test_signals_and_anchor() -> None:
    sig = ex.signals('Configure OTel "tail sampling" for gpt-4 and C++ -metrics -"span links"')
    assert sig.entities == ("OTel", "gpt-4", "C++")  # "Configure" only starts the query
    assert sig.phrases == ("tail sampling",)
    assert sig.negations == ("-metrics", '-"span links"')
    assert sig.anchor() == 'OTel gpt-4 C++ "tail sampling" -metrics -"span links"'
    assert ex.signals("Keep only slow traces").anchor() is None
    assert ex.signals("-metrics only").anchor() is None  # negations alone anchor nothing
    assert ex.signals("what is in the Kubernetes setup").entities == ("Kubernetes",)
    assert ex.signals("How do I").entities == ()  # a capitalized stopword is no name


def test_guard_keeps_overlapping_variants_only() -> None:
    raw = Expansion(
        lexical=("tail sampling policy", "latency threshold traces", "unrelated words"),
        vector=("how to keep slow traces", "completely different"),
        hyde="Traces slower than a threshold are kept by the tail sampling processor.",
    )
    got = ex.guard("keep slow traces", raw)
    assert got.lexical == ("latency threshold traces",)
    assert got.vector == ("how to keep slow traces",)
    assert got.hyde == raw.hyde
    anchored = ex.guard('OTel "tail sampling"', raw)
    assert anchored.lexical[:2] == ('OTel "tail sampling"', "tail sampling policy")


def test_guard_falls_back_to_the_query_and_drops_unrelated_hyde() -> None:
    raw = Expansion(("nothing shared",), ("also nothing",), "A passage about cooking pasta.")
    assert ex.guard("slow traces", raw) == Expansion(("slow traces",), ("slow traces",), None)


def test_cjk_overlap_by_bigrams() -> None:
    got = ex.guard("サンプリング 設定", Expansion(("テールサンプリング",), (), None))
    assert got.lexical == ("テールサンプリング",)


WORDS = ["trace", "Traces", "OTel", "gpt-4", "C++", "the", "slow", "kept", "node.js", "日本語"]
word = st.sampled_from(WORDS) | st.text(alphabet="abcXYZ19.+#-", min_size=1, max_size=6)
phrase = st.lists(word, min_size=1, max_size=6).map(" ".join)
query = st.one_of(
    phrase,
    st.tuples(phrase, phrase).map(lambda p: f'{p[0]} "{p[1]}"'),
    st.tuples(phrase, word).map(lambda p: f"{p[0]} -{p[1]}"),
)
raw_expansion = st.builds(
    Expansion,
    st.lists(phrase, max_size=8).map(tuple),
    st.lists(phrase, max_size=8).map(tuple),
    st.none() | phrase,
)


@settings(max_examples=300, deadline=None)
@given(query, raw_expansion)
def test_guard_properties(q: str, raw: Expansion) -> None:
    sig = ex.signals(q)
    got = ex.guard(q, raw)
    assert ex.guard(q, raw) == got  # deterministic
    assert 1 <= len(got.lexical) <= ex.MAX_VARIANTS and 1 <= len(got.vector) <= ex.MAX_VARIANTS
    for variant in (*got.lexical, *got.vector):
        assert variant == q or ex.overlaps(variant, sig)
    assert got.hyde is None or ex.overlaps(got.hyde, sig)
    assert got.hyde is None or got.hyde == raw.hyde


@settings(max_examples=200, deadline=None)
@given(raw_expansion, st.text(alphabet="ab \n`:", max_size=20))
def test_parse_recovers_what_was_written(raw: Expansion, prose: str) -> None:
    got = ex.parse_answer(prose + raw.to_json() + prose)
    assert got is not None
    assert len(got.lexical) <= ex.MAX_VARIANTS and len(got.vector) <= ex.MAX_VARIANTS
    assert set(got.lexical) <= {" ".join(v.split()) for v in raw.lexical}


# -- strong signal ------------------------------------------------------------------------


def test_bm25_confidence_curve() -> None:
    assert ex.bm25_confidence(-4.5) == pytest.approx(0.5)
    assert ex.bm25_confidence(4.5) == ex.bm25_confidence(-4.5)  # magnitude only
    assert ex.bm25_confidence(-(4.5 + 2.8 * math.log(0.84 / 0.16))) == pytest.approx(0.84)
    assert ex.bm25_confidence(-1e9) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("scores", "strong"),
    [
        ([-12.0, -3.0], True),
        ([-12.0], True),  # a single hit: the gap is the top itself
        ([-12.0, -11.0], False),  # no gap
        ([-6.0, -1.0], False),  # not confident
        ([], False),
        ([-12.0, -1.0, -1.0, -1.0, -1.0, -20.0], True),  # only the top five count
    ],
)
def test_strong_signal(scores, strong) -> None:
    assert ex.strong_signal(scores).strong is strong


@given(st.lists(st.floats(min_value=-50, max_value=0), max_size=8))
def test_strong_signal_needs_both_thresholds(scores) -> None:
    signal = ex.strong_signal(sorted(scores))
    assert signal.strong == (signal.top >= 0.84 and signal.gap >= 0.14)
    assert 0.0 <= signal.top <= 1.0


# -- depth policy -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "runs"),
    [
        ({}, True),  # balanced, slim-tuned preset
        ({"preset": "slim"}, True),
        ({"preset": "balanced"}, False),
        ({"preset": "balanced", "expand": True}, True),
        ({"expand": False}, False),
        ({"fast": True, "expand": True}, False),
        ({"thorough": True, "preset": "quality"}, True),
        ({"thorough": True, "expand": False}, True),  # overrides apply in balanced only
        ({"thorough": True, "has_modes": True}, False),
    ],
)
def test_depth_policy(kw, runs) -> None:
    args = {"fast": False, "thorough": False, "expand": None, "has_modes": False}
    args |= {"preset": "slim-tuned"} | kw
    assert (ex.skip_reason(**args) is None) is runs


def test_overlap_words_are_fts5s() -> None:
    # A variant overlaps where search would match: FTS5 folds case and diacritics, keeps a
    # combining mark inside a word ("ẹ́kọ́" is one word, not "ẹ" and "kọ") and splits at "_".
    assert ex.words("Naïve ÉCOLE ẹ́kọ́ snake_case") == {"naive", "ecole", "eko", "snake", "case"}
    sig = ex.signals("naïve approach")
    assert ex.overlaps("the naive method", sig)
