"""The JSONC splice routine: only gno's member changes, every other byte stays."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.mcpinstall.jsonc import MISSING, JsoncDocument, JsoncError

PATH = ["mcpServers", "gno"]
ENTRY = {"command": "/opt/gno/bin/gno", "args": ["--index", "default", "mcp"], "env": {"A": "b"}}

COMMENTED = """{
  // servers below
  "mcpServers": {
    /* someone else's */
    "other": {"command": "npx", "args": ["-y", "x"],}, // keep this note
  },
  "theme": "dark", // trailing comma next
}
"""


def is_subsequence(old: str, new: str) -> bool:
    """Every character of ``old`` is still in ``new``, in order: only insertions happened."""
    chars = iter(new)
    return all(c in chars for c in old)


def test_comments_parse_and_strings_keep_slashes() -> None:
    doc = JsoncDocument('{"url": "http://x/*y*/", // c\n "b": [1, 2,], /* d */ "c": "//"}')
    assert doc.data == {"url": "http://x/*y*/", "b": [1, 2], "c": "//"}


def test_insert_keeps_comments_and_trailing_commas() -> None:
    new = JsoncDocument(COMMENTED).set(PATH, ENTRY)
    assert is_subsequence(COMMENTED, new)
    for kept in ("// servers below", "/* someone else's */", "// keep this note", "// trailing"):
        assert kept in new
    after = JsoncDocument(new)
    assert after.get(PATH) == ENTRY
    assert after.get(["mcpServers", "other"]) == {"command": "npx", "args": ["-y", "x"]}
    assert after.get(["theme"]) == "dark"
    # the trailing-comma style of the servers object is kept: gno's member ends with one
    assert new.split('"gno": ', 1)[1].split("\n  }", 1)[0].rstrip().endswith("},")


@pytest.mark.parametrize(
    "text",
    [
        COMMENTED,
        '{\n    "mcpServers": {\n        "other": {\n            "command": "x"\n        } // note\n    }\n}\n',
        '{"mcpServers": {"other": {"command": "x"}}}',
        '{\r\n\t"mcpServers": {\r\n\t\t"o": 1\r\n\t}\r\n}\r\n',
        '{\n  "mcpServers": {\n    "o": 1}}\n',
        '{\n  "mcpServers": {},\n  "x": 1\n}\n',
        '{\n  "mcpServers": {\n  }\n}\n',
    ],
    ids=[
        "commented",
        "four-spaces",
        "one-line",
        "tabs-crlf",
        "brace-on-line",
        "empty-servers",
        "empty-multiline",
    ],
)
def test_install_then_remove_gives_back_the_same_bytes(text: str) -> None:
    new = JsoncDocument(text).set(PATH, ENTRY)
    assert is_subsequence(text, new)
    assert JsoncDocument(new).get(PATH) == ENTRY
    back = JsoncDocument(new).remove(PATH)
    if text.startswith('{\n  "mcpServers": {\n  }'):  # an empty object comes back as {}
        assert back == '{\n  "mcpServers": {}\n}\n'
    else:
        assert back == text


def test_new_member_follows_the_file_indentation_and_line_endings() -> None:
    new = JsoncDocument('{\r\n\t"mcpServers": {\r\n\t\t"o": 1\r\n\t}\r\n}\r\n').set(PATH, ENTRY)
    assert "\n" not in new.replace("\r\n", "")  # no bare LF slipped in
    assert '\r\n\t\t"gno": {\r\n\t\t\t"command"' in new


def test_missing_container_is_created_after_the_last_member() -> None:
    text = '{\n  "theme": "dark" // c\n}\n'
    new = JsoncDocument(text).set(PATH, ENTRY)
    assert new.startswith('{\n  "theme": "dark", // c\n  "mcpServers": {\n    "gno": {')
    assert JsoncDocument(new).data == {"theme": "dark", "mcpServers": {"gno": ENTRY}}


def test_replace_changes_only_the_value() -> None:
    first = JsoncDocument(COMMENTED).set(PATH, ENTRY)
    second = JsoncDocument(first).set(PATH, {"command": "/other"})
    assert JsoncDocument(second).get(PATH) == {"command": "/other"}
    head, tail = first.split('"gno": ')[0], first.split('"gno": ')[1].split("\n    },", 1)[1]
    assert second.startswith(head) and second.endswith(tail)


@pytest.mark.parametrize("text", ["", "   \n", "// only a comment\n", "{}"])
def test_empty_documents_get_a_fresh_object(text: str) -> None:
    new = JsoncDocument(text).set(PATH, ENTRY)
    assert JsoncDocument(new).data == {"mcpServers": {"gno": ENTRY}}
    if text.startswith("//"):
        assert new.startswith("// only a comment\n{")


def test_remove_first_middle_and_only_members() -> None:
    text = '{\n  "mcpServers": {\n    "gno": 1,\n    "a": 2,\n    "b": 3\n  }\n}\n'
    assert (
        JsoncDocument(text).remove(PATH)
        == '{\n  "mcpServers": {\n    "a": 2,\n    "b": 3\n  }\n}\n'
    )
    middle = '{"mcpServers": {"a": 1, "gno": 2, "b": 3}}'
    assert JsoncDocument(middle).remove(PATH) == '{"mcpServers": {"a": 1, "b": 3}}'
    only = '{\n  "mcpServers": {\n    "gno": 1 // ours\n  }\n}\n'
    assert JsoncDocument(only).remove(PATH) == '{\n  "mcpServers": {}\n}\n'
    commented = '{\n  "mcpServers": {\n    // keep\n    "gno": 1\n  }\n}\n'
    assert JsoncDocument(commented).remove(PATH) == '{\n  "mcpServers": {\n    // keep\n  }\n}\n'


def test_remove_duplicates_and_absent() -> None:
    text = '{"mcpServers": {"gno": 1, "a": 2, "gno": 3}}'
    assert JsoncDocument(text).remove(PATH) == '{"mcpServers": {"a": 2}}'
    assert JsoncDocument('{"x": 1}').remove(PATH) == '{"x": 1}'


def test_flat_dotted_key_is_one_key() -> None:
    """Amp's "amp.mcpServers" is a single top-level key, not a path."""
    new = JsoncDocument('{"amp.mcpServers": {}}').set(["amp.mcpServers", "gno"], ENTRY)
    assert json.loads(new) == {"amp.mcpServers": {"gno": ENTRY}}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"mcpServers": {', "line 1"),
        ("{\n  /* never closed\n}", "unterminated"),
        ("[1, 2]", "not an object"),
        ('{"a": 1 "b": 2}', "line 1"),
        ('{\n\n  "a": nope\n}', "line 3"),
    ],
)
def test_malformed_text_is_reported_with_its_place(text: str, fragment: str) -> None:
    with pytest.raises(JsoncError, match=fragment):
        JsoncDocument(text)


def test_a_parent_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(JsoncError, match="mcpServers is not an object"):
        JsoncDocument('{"mcpServers": [1]}').set(PATH, ENTRY)


def test_get_missing_and_bom() -> None:
    doc = JsoncDocument('\ufeff{"mcpServers": {"gno": null}}')
    assert doc.get(PATH) is None
    assert doc.get(["mcpServers", "zzz"]) is MISSING
    new = doc.set(PATH, ENTRY)
    assert new.startswith("\ufeff{") and JsoncDocument(new).get(PATH) == ENTRY


# ------------------------------------------------------------------ property

_scalars = st.one_of(st.integers(), st.booleans(), st.none(), st.text(max_size=8))
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(
    others=st.dictionaries(
        st.text(min_size=1, max_size=6).filter(lambda k: k != "gno"),
        _values,
        min_size=1,
        max_size=4,
    ),
    top=st.dictionaries(
        st.text(max_size=6).filter(lambda k: k != "mcpServers"), _values, max_size=3
    ),
    indent=st.sampled_from([None, 2, 4, "\t"]),
    comment=st.booleans(),
)
def test_any_formatting_round_trips(others, top, indent, comment) -> None:
    text = json.dumps({**top, "mcpServers": others}, indent=indent)
    if comment:
        text = "// header\n" + text + "\n/* footer */\n"
    new = JsoncDocument(text).set(PATH, ENTRY)
    assert is_subsequence(text, new)
    after = JsoncDocument(new)
    assert after.get(PATH) == ENTRY
    assert after.get(["mcpServers"]) == {**others, "gno": ENTRY}
    assert JsoncDocument(new).remove(PATH) == text
