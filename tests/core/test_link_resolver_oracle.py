"""The resolver's indexes give the answers of the ten ranks of engine.md §7.2 read
literally: every document tested against every rank, no index (a brute-force oracle).
Paths and refs come from a tiny alphabet, so case folding, `.md`, shared tails,
duplicate titles and ambiguity happen often."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.link_resolver import (
    EXPLICIT_RANKS,
    MAX_REF,
    UNRESOLVED,
    Doc,
    Resolution,
    Resolver,
    ascii_lower,
)

SEGMENTS = ["a", "A", "b", "x.md", "X.MD", "b.md", "Ä"]
TITLES = [None, "", "A", "a", "b", "x.md", "a/b", "B.md", "Ä"]


def _proper_suffixes(text: str) -> set[str]:
    return {text[i + 1 :] for i, char in enumerate(text) if char == "/" and text[i + 1 :]}


def oracle_wiki(docs: list[Doc], collection: str, norm: str) -> Resolution:
    """engine.md §7.2 for one wiki ref, by testing each document against each rank."""
    ref = ascii_lower(norm.strip())
    if not ref or len(ref) > MAX_REF:
        return UNRESOLVED
    ref_md = ref if ref.endswith(".md") else ref + ".md"
    bare = ref.removesuffix(".md")
    for rank in range(1, 11):
        ids = set()
        for doc in docs:
            if doc.collection != collection:
                continue
            title = ascii_lower(doc.title) if doc.title else None
            path = ascii_lower(doc.rel_path)
            hit = {
                1: title is not None and title == ref,
                2: title is not None and ref.endswith(".md") and title == bare,
                3: title is not None and title in _proper_suffixes(ref),
                4: title is not None
                and any(x.removesuffix(".md") == title for x in _proper_suffixes(ref_md)),
                5: path == ref,
                6: path == ref + ".md",
                7: ref in _proper_suffixes(path),
                8: ref + ".md" in _proper_suffixes(path),
                9: path in _proper_suffixes(ref),
                10: path in _proper_suffixes(ref_md),
            }[rank]
            if hit:
                ids.add(doc.id)
        if ids:
            targets = tuple(sorted(ids))
            if len(targets) > 1:
                return Resolution(targets, rank, "ambiguous")
            return Resolution(targets, rank, "explicit" if rank in EXPLICIT_RANKS else "inferred")
    return UNRESOLVED


paths = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3).map("/".join)
doc_specs = st.lists(
    st.tuples(st.sampled_from(["n", "m"]), paths, st.sampled_from(TITLES)),
    min_size=1,
    max_size=12,
    unique_by=lambda spec: (spec[0], spec[1]),
)


def _docs(specs: list[tuple[str, str, str | None]]) -> list[Doc]:
    return [
        Doc(i, coll, path, f"#{i:08x}", f"gno://{coll}/{path}", title)
        for i, (coll, path, title) in enumerate(specs, start=1)
    ]


@st.composite
def refs(draw: st.DrawFn, docs: list[Doc]) -> str:
    """A ref made from a document's path or title (with a prefix, without `.md`, in
    another case), or from the alphabet alone."""
    doc = draw(st.sampled_from(docs))
    base = draw(st.sampled_from([doc.rel_path, doc.title or "", draw(paths)]))
    if draw(st.booleans()):
        base = base.removesuffix(".md")
    if draw(st.booleans()):
        base = draw(st.sampled_from(SEGMENTS)) + "/" + base
    if draw(st.booleans()):
        base = base.swapcase()
    return base + draw(st.sampled_from(["", "", ".md", "/", " "]))


@settings(max_examples=400, deadline=None)
@given(data=st.data(), specs=doc_specs)
def test_wiki_resolution_matches_the_ranks_read_literally(data: st.DataObject, specs) -> None:
    docs = _docs(specs)
    resolver = Resolver(docs)
    for _ in range(8):
        ref = data.draw(refs(docs))
        collection = data.draw(st.sampled_from(["n", "m"]))
        assert resolver.wiki(collection, ref) == oracle_wiki(docs, collection, ref), ref


def test_ambiguous_suffix_and_unresolved_examples() -> None:
    docs = _docs([("n", "a/x.md", None), ("n", "b/x.md", "B"), ("n", "b/A/x.md", None)])
    resolver = Resolver(docs)
    for ref in ["x", "a/x", "A/X.md", "b/a/x", "q/b/x", "zz", "/x", "x/", "B"]:
        assert resolver.wiki("n", ref) == oracle_wiki(docs, "n", ref), ref
    assert resolver.wiki("n", "x").confidence == "ambiguous"  # rank 7, three paths
    assert resolver.wiki("n", "x").targets == (1, 2, 3)
    assert resolver.wiki("n", "a/x").rank == 6  # the path itself before any tail
    tails = Resolver(_docs([("n", "p/a/x.md", None), ("n", "q/A/x.md", None)]))
    assert tails.wiki("n", "a/x") == Resolution((1, 2), 8, "ambiguous")  # case folded
    assert resolver.wiki("n", "zz") == UNRESOLVED
