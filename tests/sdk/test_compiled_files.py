"""The SDK's compiled-context file helpers (compile, check, refresh) on a local client and
on a remote one (a real `gno serve` app on 127.0.0.1): the file is written whole, checked,
refreshed when stale, and hand edits are never overwritten without ``force``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gno import Gno
from gno.app import App
from gno.errors import InvalidPathError, PathNotFoundError, ValidationError
from gno.paths import resolve_paths
from gno.sdk.compiled_files import check_file, compile_file, refresh_file
from tests.conftest import sync
from tests.live_server import live_server
from tests.services.test_context_compiled import FILES, GOAL


@pytest.fixture
def indexed(make_app: Any) -> tuple[App, Path]:
    app, root = make_app(FILES)
    sync(app)
    return app, root


@pytest.fixture(params=["local", "remote"])
def client(request: pytest.FixtureRequest, indexed: Any) -> Iterator[Gno]:
    if request.param == "local":
        with Gno() as gno:
            yield gno
        return
    from gno.rest.app import ServeOptions, create_app

    owner = App(resolve_paths())
    api = create_app(owner, options=ServeOptions(mcp=None, watch=False, web_ui=False))
    with live_server(api) as (url, _server), Gno(url=url) as gno:
        yield gno


def _capsule(gno: Gno) -> dict[str, Any]:
    built = gno.context_build(goal=GOAL, budgetTokens=12000, depthPolicy="fast")
    return built.model_dump(mode="json", exclude_unset=True)


def test_compile_check_and_refresh(client: Gno, indexed: Any, tmp_path: Path) -> None:
    app, root = indexed
    capsule = _capsule(client)
    folder = tmp_path / "project"
    folder.mkdir()
    target = folder / "AGENTS.context.md"
    preview = compile_file(client, capsule, target, budget_tokens=12000)
    assert target.read_text(encoding="utf-8") == preview.markdown
    assert [p.name for p in folder.iterdir()] == [target.name]  # no temporary left
    assert check_file(client, capsule, target).status.value == "current"
    checked, again = refresh_file(client, capsule, target)
    assert checked.status.value == "current" and again is None

    edited = preview.markdown + "\nmy own note\n"
    target.write_text(edited, encoding="utf-8")
    checked, again = refresh_file(client, capsule, target)
    assert checked.status.value == "modified" and again is None
    assert target.read_text(encoding="utf-8") == edited  # hand edits kept
    checked, again = refresh_file(client, capsule, target, force=True)
    assert again is not None and check_file(client, capsule, target).status.value == "current"

    (root / "sampling.md").write_text("# Tail sampling\n\nRewritten entirely.\n")
    sync(app)
    checked, again = refresh_file(client, capsule, target)
    assert checked.status.value == "stale" and checked.recovery.value == "rebuild_capsule"
    assert again is not None and "Tail sampling keeps slow traces" not in again.markdown
    assert target.read_text(encoding="utf-8") == again.markdown
    assert check_file(client, capsule, target).recovery.value == "rebuild_capsule"


def test_files_that_cannot_be_read(indexed: Any, tmp_path: Path) -> None:
    with Gno() as gno:
        capsule = _capsule(gno)
        with pytest.raises(PathNotFoundError):
            check_file(gno, capsule, tmp_path / "missing.md")
        with pytest.raises(InvalidPathError):
            check_file(gno, capsule, tmp_path)  # a folder
        os.mkfifo(tmp_path / "pipe.md")
        with pytest.raises(InvalidPathError, match="not a regular file"):
            check_file(gno, capsule, tmp_path / "pipe.md")


@pytest.mark.parametrize("problem", ["binary", "large"])
def test_a_file_whose_content_cannot_be_a_document_is_validation(
    indexed: Any, tmp_path: Path, problem: str
) -> None:
    """Bytes that are no UTF-8 or over 16 MiB are the content's problem, not the path's:
    VALIDATION (both were INVALID_PATH)."""
    target = tmp_path / "kept.md"
    if problem == "binary":
        target.write_bytes(b"\xff\xfe\x00 not utf-8")
    else:
        with target.open("wb") as sparse:
            sparse.truncate(16 * 1024 * 1024 + 1)
    with Gno() as gno, pytest.raises(ValidationError) as refused:
        check_file(gno, _capsule(gno), target)
    assert refused.value.code == "VALIDATION"
