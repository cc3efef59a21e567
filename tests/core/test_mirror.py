import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from gno.core.mirror import canonicalize

text = st.text(alphabet=st.characters(codec="utf-8"), max_size=400) | st.lists(
    st.sampled_from(
        ["a", " ", "\t", "\n", "\r\n", "\r", "\ufeff", "\x00", "\x7f", "e\u0301", "  \n", "é"]
    ),
    max_size=60,
).map("".join)


def test_rules_from_the_contract():
    assert canonicalize("") == "\n"
    assert canonicalize("\ufeffhello") == "hello\n"
    assert canonicalize("a\r\nb\rc") == "a\nb\nc\n"
    assert canonicalize("a  \t\nb") == "a\nb\n"
    assert canonicalize("a\n\n\n\nb\n\n\n") == "a\n\nb\n"
    assert canonicalize("x\x00y\x07z\tw") == "xyz\tw\n"
    assert canonicalize("e\u0301") == "\u00e9\n"
    assert canonicalize("\n\n\nstart") == "\nstart\n"


@given(text)
def test_idempotent(raw):
    once = canonicalize(raw)
    assert canonicalize(once) == once


@given(text)
def test_invariants(raw):
    out = canonicalize(raw)
    assert (out.endswith("\n") and not out.endswith("\n\n")) or out == "\n"
    assert "\r" not in out and "\ufeff" not in out[:1]
    assert "\n\n\n" not in out
    assert unicodedata.is_normalized("NFC", out)
    for line in out.split("\n"):
        assert line == line.rstrip()
    assert not any(ch in out for ch in "\x00\x01\x0b\x0c\x1f\x7f")
