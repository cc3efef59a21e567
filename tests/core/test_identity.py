import pytest
from hypothesis import given
from hypothesis import strategies as st

from gno.core.identity import (
    _quoted_path,
    docid_for,
    encode_path,
    index_identity,
    make_uri,
    normalize_collection_name,
    parse_ref,
    parse_uri,
)
from gno.errors import ValidationError

segment = st.text(
    alphabet=st.characters(exclude_characters="/\x00", codec="utf-8"), min_size=1, max_size=12
)
rel_paths = st.lists(segment, min_size=1, max_size=4).map("/".join)


@given(rel_paths)
def test_uri_round_trip(rel_path):
    uri = make_uri("notes", rel_path)
    parsed = parse_uri(uri)
    assert (parsed.collection, parsed.rel_path, parsed.index) == ("notes", rel_path, None)
    assert " " not in uri and "#" not in uri and "?" not in uri


@given(st.one_of(rel_paths, st.text(alphabet="aZ09_.~!*'()/- %#?é\n", max_size=24)))
def test_a_plain_path_skips_quoting_and_encodes_the_same(rel_path):
    # The shortcut returns a path of unreserved characters as it is: exactly what quoting
    # each segment gives, for every path (the alphabet mixes plain and quoted characters).
    assert encode_path(rel_path) == _quoted_path.__wrapped__(rel_path)


def test_uri_encoding_and_index_suffix():
    assert make_uri("notes", "a b/c#d?.md") == "gno://notes/a%20b/c%23d%3F.md"
    assert make_uri("notes", "x.md", "default") == "gno://notes/x.md"
    assert make_uri("notes", "x.md", "Work") == "gno://notes/x.md?index=Work"
    assert parse_uri("gno://notes/x.md?index=Work").index == "Work"
    assert docid_for("ab" * 32) == "#abababab"


def test_refs():
    assert parse_ref("#a1b2c3").docid == "#a1b2c3"
    ref = parse_ref("gno://Notes/dir/a.md:12")
    assert (ref.collection, ref.rel_path, ref.line) == ("notes", "dir/a.md", 12)
    assert parse_ref("notes/a.md").rel_path == "a.md"
    for bad in ("", "#xyz", "#abc", "nosuchform", "notes/a.md:0", "gno://notes"):
        with pytest.raises(ValidationError):
            parse_ref(bad)


def test_names():
    assert normalize_collection_name("My-Notes_1") == "my-notes_1"
    for bad in ("", "-x", "a" * 65, "has space", "ünï"):
        with pytest.raises(ValidationError):
            normalize_collection_name(bad)
    assert index_identity("Work Notes") == "work notes"
    assert index_identity("日本") == "日本"
    for bad in ("", " x", "x ", "x.", "a..b", "a/b", "a" * 65, "-x"):
        with pytest.raises(ValidationError):
            index_identity(bad)


def test_an_index_name_with_a_lone_surrogate_or_of_10_kb_is_a_short_validation_error():
    # A byte that is not UTF-8 on the command line arrives as a lone surrogate: before, the
    # UTF-16 length check raised UnicodeEncodeError ("Internal error").
    for bad in ("a\udcff", "\udcff", "ab\ud800"):
        with pytest.raises(ValidationError, match="may only contain letters"):
            index_identity(bad)
    with pytest.raises(ValidationError, match="must be 1-64 characters") as caught:
        index_identity("a" * 10240)
    assert len(caught.value.message) < 200  # the name is not echoed whole
