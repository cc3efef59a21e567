"""Writes over a note's frontmatter as the file spells it: a byte-order mark and CRLF line
ends hide no frontmatter from a rename's plan, and frontmatter nested deeper than gno
parses (edited so since the last sync) is a documented refusal, never an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest
from gno_contracts.models.capture_input import CaptureInput
from gno_contracts.models.remember_input import RememberInput
from gno_contracts.models.tag_edit_input import TagEditInput

from gno.errors import GnoError
from gno.services import tag_writes
from gno.services.capture import capture
from gno.services.memory import remember
from tests.conftest import sync
from tests.services.test_refactor import apply, preview

DEEP = "deep: " + "[" * 100 + "]" * 100 + "\n"  # past MAX_FRONTMATTER_DEPTH (64)


def test_a_rename_never_rewrites_a_link_in_frontmatter_whatever_the_line_ends(make_app) -> None:
    """The index reads frontmatter after a BOM and with CRLF line ends (its mirror drops
    the one and turns the other into LF), and takes no link from it; the plan read the
    file's own text, found no frontmatter there, and rewrote ``up: "[[b]]"`` in those
    files only — the same note with LF line ends kept it."""
    block = '---\nup: "[[b]]"\n---\n[[b]] and [b](b.md)\n'
    app, root = make_app(
        {
            "b.md": "plain\n",
            "lf.md": block.encode(),
            "crlf.md": block.replace("\n", "\r\n").encode(),
            "bom.md": b"\xef\xbb\xbf" + block.encode(),
        }
    )
    sync(app)
    plan = preview(app, ref="notes/b.md", name="bee")
    assert plan["safety"]["rewriteableCount"] == 6  # two body links in each of three files
    assert apply(app, plan, ref="notes/b.md", name="bee")["status"] == "applied"
    moved = '---\nup: "[[b]]"\n---\n[[bee]] and [b](bee.md)\n'
    assert (root / "lf.md").read_bytes() == moved.encode()
    assert (root / "crlf.md").read_bytes() == moved.replace("\n", "\r\n").encode()
    assert (root / "bom.md").read_bytes() == b"\xef\xbb\xbf" + moved.encode()


@pytest.mark.parametrize("moved", ["deep.md", "c.md"])
def test_a_rename_plan_reads_a_note_whose_frontmatter_nests_too_deep(make_app, moved: str) -> None:
    """A note edited (after the last sync) to frontmatter deeper than gno parses, being
    renamed or linking to the one renamed: the plan was an internal error."""
    app, root = make_app({"deep.md": "plain\n[c](c.md)\n", "c.md": "# C\n"})
    sync(app)
    (root / "deep.md").write_text(f"---\n{DEEP}---\n[c](c.md)\n")
    plan = preview(app, ref=f"notes/{moved}", name="renamed")
    assert plan["safety"]["rewriteableCount"] == (0 if moved == "deep.md" else 1)


def _deep_fact(make_app) -> tuple[object, Path, object]:
    """A memory collection whose one fact was edited to nest too deep; (app, root, fact)."""
    app, root = make_app({".keep": ""}, name="memory")
    config = app.config
    config.collections[0].extra["memoryManaged"] = True
    app.save_config(config)
    fact = remember(
        app,
        RememberInput.model_validate(
            {"text": "Finn takes trams.", "decision": "add", "collection": "memory",
             "scopes": ["home"]}
        ),
    ).fact  # fmt: skip
    assert fact is not None
    path = root / fact.relPath
    path.write_text(path.read_text().replace("---\n", f"---\n{DEEP}", 1))
    return app, root, fact


@pytest.mark.parametrize("write", ["tag", "capture", "supersede"])
def test_frontmatter_nesting_too_deep_is_validation_and_nothing_is_written(
    make_app, write: str
) -> None:
    """A tag edit, a capture opening the note it would write, a memory supersede: each
    starts from the file on disk, and each was an internal error (FrontmatterError)."""
    if write == "supersede":
        app, root, fact = _deep_fact(make_app)
        call = lambda: remember(  # noqa: E731
            app,
            RememberInput.model_validate(
                {"text": "Finn takes buses.", "decision": "supersede", "collection": "memory",
                 "scopes": ["home"], "predecessorUri": fact.uri,  # type: ignore[attr-defined]
                 "predecessorHash": fact.contentHash}  # type: ignore[attr-defined]
            ),
        )  # fmt: skip
    else:
        app, root = make_app({"n.md": "# N\n"})
        sync(app)
        (root / "n.md").write_text(f"---\n{DEEP}---\nsame words\n")
        if write == "tag":
            call = lambda: tag_writes.add(app, TagEditInput(ref="notes/n.md", tag="x"))  # noqa: E731
        else:
            inp = CaptureInput(collection="notes", content="other", path="n.md",
                               collisionPolicy="open_existing")  # fmt: skip
            call = lambda: capture(app, inp)  # noqa: E731
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    with pytest.raises(GnoError) as refused:
        call()
    assert refused.value.code == "VALIDATION" and "nests deeper" in str(refused.value)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
