"""Properties of rename/move (hypothesis, real files and a real index per example):

- a rename followed by the inverse rename restores every file byte for byte;
- a plan is stale exactly when a file it involves (the moved note, a linking note, the
  target path) changed: changing any other file leaves it applicable.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gno.app import App
from gno.paths import resolve_paths
from tests.services.test_refactor import apply, preview

STEMS = ["alpha", "beta note", "gamma-2", "déjà", "emoji 😀"]
FOLDERS = ["", "sub/", "sub/deeper/", "other/"]


@st.composite
def link(draw: st.DrawFn, target: str, home: str) -> str:
    stem = target.rsplit("/", 1)[-1][:-3]
    anchor = draw(st.sampled_from(["", "#Intro", "#a-b"]))
    kind = draw(st.sampled_from(["wiki", "wiki-md", "wiki-alias", "markdown"]))
    if kind == "wiki":
        return f"[[{stem}{anchor}]]"
    if kind == "wiki-md":
        return f"[[{stem}.md{anchor}]]"
    if kind == "wiki-alias":
        return f"[[{stem}{anchor}|shown text]]"
    rel = os.path.relpath(target, os.path.dirname(home) or ".")
    rel = rel.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
    return f"[see]({rel}{anchor})"


@st.composite
def corpus(draw: st.DrawFn) -> tuple[dict[str, bytes], str]:
    target = draw(st.sampled_from(FOLDERS)) + draw(st.sampled_from(STEMS)) + ".md"
    files: dict[str, str] = {target: draw(st.sampled_from(["", "# Heading\n"])) + "Body.\n"}
    for n in range(draw(st.integers(0, 4))):
        home = f"{draw(st.sampled_from(FOLDERS))}n{n}.md"
        if home in files:
            continue
        parts = draw(
            st.lists(
                st.one_of(
                    link(target, home),
                    st.text(
                        st.characters(codec="utf-8", exclude_characters="[]`\r\x00"), max_size=12
                    ),
                    st.just("`[[code]]`"),
                ),
                min_size=1,
                max_size=5,
            )
        )
        files[home] = " ".join(parts) + "\n"
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    data = {k: v.replace("\n", newline).encode("utf-8") for k, v in files.items()}
    if draw(st.booleans()):  # a BOM on the moved note
        data[target] = b"\xef\xbb\xbf" + data[target]
    return data, target


@contextmanager
def indexed(files: dict[str, bytes]) -> Iterator[tuple[App, Path]]:
    from gno_contracts.models.collection_add_input import CollectionAddInput
    from gno_contracts.models.init_input import InitInput

    from gno.services.collections import collection_add, init
    from tests.conftest import sync

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        saved = {k: os.environ.get(k) for k in ("GNO_CONFIG_DIR", "GNO_DATA_DIR", "GNO_CACHE_DIR")}
        for key, sub in (("GNO_CONFIG_DIR", "c"), ("GNO_DATA_DIR", "d"), ("GNO_CACHE_DIR", "k")):
            os.environ[key] = str(base / sub)
        root = base / "notes"
        for rel, content in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(content)
        app = App(resolve_paths())
        try:
            init(app, InitInput())
            collection_add(app, CollectionAddInput(path=str(root), name="notes"))
            sync(app)
            yield app, root
        finally:
            app.close()
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _uri_path(rel: str) -> str:
    return "notes/" + rel


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(corpus(), st.sampled_from(["renamed", "zeta", "new name"]), st.booleans())
def test_rename_then_inverse_rename_restores_every_byte(
    case: tuple[dict[str, bytes], str], new_stem: str, move: bool
) -> None:
    files, target = case
    with indexed(files) as (app, root):
        before = snapshot(root)
        folder = os.path.dirname(target)
        fields: dict[str, Any] = (
            {"folderPath": "moved/here", "name": new_stem + ".md"}
            if move
            else {"name": new_stem + ".md"}
        )
        plan = preview(app, ref=_uri_path(target), **fields)
        assume(plan["canApply"])
        done = apply(app, plan, ref=_uri_path(target), **fields)
        assert done["status"] == "applied", done
        moved = plan["target"]["relPath"]
        assert not (root / target).exists() and (root / moved).exists()
        back: dict[str, Any] = {"name": os.path.basename(target)}
        if move:
            back["folderPath"] = folder
        inverse = preview(app, ref=_uri_path(moved), **back)
        assert inverse["canApply"], inverse["safety"]
        assert apply(app, inverse, ref=_uri_path(moved), **back)["status"] == "applied"
        after = snapshot(root)
        if move:  # the folder the move created is left empty; files are what count
            assert not any(p.startswith("moved/") for p in after)
        assert after == before


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(corpus(), st.data())
def test_a_plan_is_stale_exactly_when_an_involved_file_changed(
    case: tuple[dict[str, bytes], str], data: st.DataObject
) -> None:
    files, target = case
    with indexed(files | {"bystander.md": b"no links here\n"}) as (app, root):
        plan = preview(app, ref=_uri_path(target), name="renamed.md")
        assume(plan["canApply"])
        involved = {target} | {d["relPath"] for d in plan["affectedDocuments"]}
        changed = data.draw(st.sampled_from(sorted(snapshot(root))))
        path = root / changed
        path.write_bytes(path.read_bytes() + b"\nappended words\n")
        again = preview(app, ref=_uri_path(target), name="renamed.md")
        assert (again["planDigest"] != plan["planDigest"]) == (changed in involved)
        result = apply(app, plan, ref=_uri_path(target), name="renamed.md")
        assert result["status"] == ("stale_plan" if changed in involved else "applied"), result
