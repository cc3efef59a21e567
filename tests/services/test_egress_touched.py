"""Which collections a request may carry content of (``gno.services.egress.touched``): the
egress gate judges exactly those, so a narrowing that is too wide refuses answers the policy
allows, and one that is too narrow would let content out."""

from __future__ import annotations

from gno.services.egress import touched

KNOWN = ["notes", "shared", "mail"]


def test_a_named_collection_or_uri_narrows_a_read() -> None:
    assert touched("search", {"query": "x", "collection": "notes"}, KNOWN) == ["notes"]
    assert touched("get", {"ref": "gno://shared/a.md"}, KNOWN) == ["shared"]
    assert touched("query", {"query": "x", "collections": ["notes", "mail"]}, KNOWN) == [
        "notes",
        "mail",
    ]


def test_multi_get_is_narrowed_by_its_uris() -> None:
    refs = ["gno://notes/plan.md", "gno://mail/inbox.mbox", "gno://notes/b.md"]
    assert touched("multi_get", {"refs": refs}, KNOWN) == ["notes", "mail"]


def test_multi_get_with_any_ref_that_is_not_a_uri_may_reach_every_collection() -> None:
    for odd in ("#a1b2c3d4", "notes/plan.md", "**/*.md", 7):
        assert touched("multi_get", {"refs": ["gno://notes/plan.md", odd]}, KNOWN) == KNOWN


def test_what_names_nothing_or_does_not_narrow_reaches_every_collection() -> None:
    assert touched("search", {"query": "x"}, KNOWN) == KNOWN
    assert touched("multi_get", {"refs": []}, KNOWN) == KNOWN
    assert touched("backlinks", {"ref": "gno://notes/plan.md"}, KNOWN) == KNOWN  # walks links


def test_a_document_asset_is_judged_by_the_collection_of_its_uri() -> None:
    assert touched("/api/doc-asset", {"uri": "gno://notes/img/a.png"}, KNOWN) == ["notes"]


def test_the_asset_route_reads_its_one_uri_as_the_route_will() -> None:
    from gno.rest.egress_gate import _asset_args

    assert _asset_args({"query_string": b"uri=gno%3A%2F%2Fnotes%2Fimg%2Fa.png"}) == {
        "uri": "gno://notes/img/a.png"
    }
    assert _asset_args({"query_string": b"uri=gno://notes/a.png&uri=gno://mail/b.png"}) == {}
    assert _asset_args({"query_string": b""}) == {}
    crowded = "&".join(f"k{n}=v" for n in range(100)) + "&uri=gno://notes/a.png"
    assert _asset_args({"query_string": crowded.encode()}) == {}
