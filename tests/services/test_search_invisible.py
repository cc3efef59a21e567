"""On a real index: a word holding an invisible character (gno.core.invisible) is indexed
and asked as the word without it, by search, the owner filters, and an index written before
migration 14 once it is opened."""

from __future__ import annotations

from gno.adapters.sqlite import store as store_module
from gno.adapters.sqlite.migrations import MIGRATIONS
from gno.app import App
from gno.core import fts
from gno.paths import resolve_paths
from tests.conftest import search, sync

NOTES = {
    "shy.md": "# Shy\n\nThe open\xadtelemetry collector.\n",
    "joined.md": "# Joined\n\nThe opentelemetry collector.\n",
    "apart.md": "# Apart\n\nAn open door and a telemetry feed.\n",
    "author.md": "---\nauthor: Ana\u200dMaria\n---\n# Letter\n\nA collector note.\n",
}


def uris(app: App, query: str, **kwargs) -> set[str]:
    return {hit.uri.rsplit("/", 1)[-1] for hit in search(app, query, limit=20, **kwargs).results}


def test_a_query_word_with_an_invisible_character_is_one_word(make_app) -> None:
    app, _ = make_app(NOTES)
    sync(app)
    for typed in ["opentelemetry", "open\x07telemetry", "open\x1btelemetry", "open\u200dtelemetry",
                  "open\xadtelemetry", "open\x00telemetry", "open\u2060telemetry"]:  # fmt: skip
        assert uris(app, typed) == {"shy.md", "joined.md"}, repr(typed)
    assert uris(app, "open telemetry") == {"apart.md"}


def test_the_owner_filters_drop_invisible_characters_too(make_app) -> None:
    app, _ = make_app(NOTES)
    sync(app)
    assert uris(app, "collector", exclude=["open\u200btelemetry"]) == {
        "shy.md",
        "joined.md",
        "author.md",
    }
    assert uris(app, "collector", exclude=["opentelemetry"]) == {"author.md"}
    assert uris(app, "collector", exclude=["open\x1btelemetry"]) == {"author.md"}
    assert uris(app, "collector", author="anamaria") == {"author.md"}
    assert uris(app, "collector", author="ana\xadmaria") == {"author.md"}
    # Nothing but invisible characters is no filter, as nothing but spaces is.
    assert uris(app, "collector", author="\u200d") == uris(app, "collector")


def test_an_older_index_is_indexed_again_where_it_holds_invisible_characters(
    make_app, monkeypatch
) -> None:
    with monkeypatch.context() as patched:
        # The index as gno wrote it before migration 14: invisible characters split words.
        patched.setattr(store_module, "MIGRATIONS", [m for m in MIGRATIONS if m[0] < 14])
        patched.setattr(fts, "drop_invisible", lambda text: text)
        app, _ = make_app(NOTES)
        sync(app)
        assert app.store().schema_version() == 13
        assert uris(app, "opentelemetry") == {"joined.md"}
        app.close()
    migrated = App(resolve_paths())
    assert migrated.store().schema_version() == max(v for v, _ in MIGRATIONS)
    assert uris(migrated, "opentelemetry") == {"shy.md", "joined.md"}
    assert uris(migrated, "shy") == {"shy.md"}  # outline_fts: the title row is still there
    assert uris(migrated, "collector") == {"shy.md", "joined.md", "author.md"}
    migrated.close()


def test_a_mark_a_soft_hyphen_kept_from_composing_is_found_in_the_snippet(make_app) -> None:
    # The mirror keeps "nai<SHY><U+0308>ve" (NFC cannot compose across the hyphen); FTS5
    # indexed "naive": the snippet is the line search matched, whichever way it is asked.
    app, _ = make_app({"mark.md": "# Mark\n\nfirst\n\n" + "x\n" * 5 + "The nai\xad\u0308ve way\n"})
    sync(app)
    for typed in ["naïve", "naive", "NAÏVE"]:
        (hit,) = search(app, typed, limit=5).results
        assert hit.snippet == "The nai\xad\u0308ve way", typed


def test_vt_and_ff_in_a_query_are_deleted_as_the_mirror_deleted_them(make_app) -> None:
    # The mirror deletes VT and FF (GNO's rule): "foo<VT>bar" was indexed as "foobar".
    app, _ = make_app(
        {"vt.md": "# Vt\n\nThe foo\x0bbar and baz\x0cqux.\n", "sp.md": "# Sp\n\nfoo bar\n"}
    )
    sync(app)
    assert uris(app, "foo\x0bbar") == uris(app, "foobar") == {"vt.md"}
    assert uris(app, "baz\x0cqux") == {"vt.md"}
    assert uris(app, "foo bar") == {"sp.md"}
