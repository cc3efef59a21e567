"""Capture on real files in temp collections: paths, collisions, idempotency, safety."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from gno_contracts.models.capture_input import CaptureInput
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError as PydanticError

from gno.app import App
from gno.errors import DuplicateError, GnoError, InvalidPathError, ReadOnlyError, ValidationError
from gno.file_writes import TEMP_PREFIX
from gno.index_lock import write_lease_path
from gno.services.capture import capture
from tests.conftest import search

SCHEMAS = Path(__file__).resolve().parents[2] / "generated" / "gno_contracts" / "schemas"


def _validate(name: str, payload: dict) -> None:
    from jsonschema import Draft202012Validator

    schema = json.loads((SCHEMAS / f"{name}.json").read_text())
    Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER).validate(
        payload
    )


EMPTY = {".keep": ""}  # a collection root with no note (hidden files are not indexed)


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and p.name != ".keep"
    }


def _cap(app: App, **fields: object):
    try:
        inp = CaptureInput.model_validate({"collection": "notes", **fields})
    except PydanticError as exc:  # what every surface refuses before the handler
        raise ValidationError(str(exc)) from None
    return capture(app, inp)


def test_a_capture_is_written_indexed_and_searchable_when_it_returns(make_app) -> None:
    app, root = make_app({"a.md": "# A\nunrelated\n"})
    receipt = _cap(app, content="Tail sampling keeps the slow traces.", tags=["OTel", "work"])
    payload = receipt.model_dump(mode="json", exclude_unset=True)
    _validate("capture-receipt", payload)
    _validate("mcp-capture-result", payload)
    assert payload["relPath"].startswith("inbox/") and payload["relPath"].endswith(".md")
    assert payload["relPath"].split("/")[-1] == f"capture-{payload['contentHash'][:12]}.md"
    assert payload["tags"] == ["otel", "work"] and payload["sync"]["status"] == "completed"
    text = (root / payload["relPath"]).read_text()
    assert text.startswith("---\n") and "Tail sampling keeps the slow traces." in text
    assert "kind: direct" in text
    hits = search(app, "slow traces").results
    assert [h.uri for h in hits] == [payload["uri"]]
    assert hits[0].docid == payload["docid"]


def test_title_folder_preset_and_source_land_in_the_note(make_app) -> None:
    app, root = make_app(EMPTY)
    receipt = _cap(
        app,
        title="Finn Müller: notes?",
        folderPath="people",
        presetId="person",
        source={"kind": "meeting", "title": "Standup", "url": "https://example.com/x"},
    )
    assert receipt.relPath == "people/finn-müller-notes.md"
    text = (root / receipt.relPath).read_text()
    assert "type: person" in text and "## How we met" in text and "title: Standup" in text
    assert receipt.source.kind.value == "meeting" and receipt.source.url == "https://example.com/x"


def test_collision_policies(make_app) -> None:
    app, root = make_app({"plan.md": "# Plan\nold\n"})
    with pytest.raises(DuplicateError):
        _cap(app, path="plan.md", content="new")
    assert (root / "plan.md").read_text() == "# Plan\nold\n"
    suffixed = _cap(app, path="plan.md", content="new", collisionPolicy="create_with_suffix")
    assert suffixed.relPath == "plan-2.md" and suffixed.createdWithSuffix
    third = _cap(app, path="plan.md", content="newer", collisionPolicy="create_with_suffix")
    assert third.relPath == "plan-3.md"
    opened = _cap(app, path="plan.md", content="x", collisionPolicy="open_existing")
    assert opened.openedExisting and not opened.created
    assert (root / "plan.md").read_text() == "# Plan\nold\n"
    replaced = _cap(app, path="plan.md", content="replaced body", overwrite=True)
    assert replaced.overwritten and "replaced body" in (root / "plan.md").read_text()
    # the same text captured twice without a path is one note (generated path: open_existing)
    first = _cap(app, content="same words")
    again = _cap(app, content="same words")
    assert again.relPath == first.relPath and again.openedExisting


def test_a_disk_only_file_counts_as_a_collision_and_is_indexed_when_opened(make_app) -> None:
    app, root = make_app(EMPTY)
    (root / "late.md").write_text("# Late\narrived after the sync\n")
    with pytest.raises(DuplicateError):
        _cap(app, path="late.md", content="mine")
    opened = _cap(app, path="late.md", content="mine", collisionPolicy="open_existing")
    assert opened.docid and [h.uri for h in search(app, "arrived").results] == [opened.uri]


@pytest.fixture
def one_app(make_app):
    return make_app(EMPTY)


_ROUND = itertools.count()


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.text(
        st.characters(codec="utf-8", exclude_categories=["Cc", "Cs"]), min_size=1, max_size=200
    ).filter(str.strip),
    request_id=st.text(
        st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=40
    ),
)
def test_the_same_request_id_twice_writes_once(one_app, body: str, request_id: str) -> None:
    app, root = one_app
    n = next(_ROUND)  # one app for all examples: each example its own folder and id
    rid = f"{n}-{request_id}"[:128]
    first = capture(
        app, CaptureInput(collection="notes", content=body, path=f"r{n}/x.md", requestId=rid)
    )
    before = _files(root)
    second = capture(
        app,
        CaptureInput(
            collection="notes", content=body + " changed", path=f"r{n}/y.md", requestId=rid
        ),
    )
    assert second.model_dump(mode="json") == first.model_dump(mode="json")
    assert _files(root) == before
    assert sorted(p for p in before if p.startswith(f"r{n}/")) == [f"r{n}/x.md"]


BAD_PATHS = [
    "../outside.md",
    "notes/../../outside.md",
    "/etc/passwd.md",
    "C:/x.md",
    "CON.md",
    "sub/nul.md",
    ".git/config.md",
    "a\x00b.md",
    "a\x1bb.md",
    "bad\udcffname.md",
    "x" * 300 + ".md",
    "link-out/escape.md",
]


@pytest.mark.parametrize("rel", BAD_PATHS)
def test_path_escapes_are_refused_and_touch_nothing(make_app, tmp_path: Path, rel: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    app, root = make_app({"a.md": "# A\n"})
    (root / "link-out").symlink_to(outside, target_is_directory=True)
    before = _files(root)
    with pytest.raises((InvalidPathError, ValidationError)):
        _cap(app, path=rel, content="escape attempt")
    assert _files(root) == before
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "outside.md").exists()
    assert not [p for p in root.rglob(f"{TEMP_PREFIX}*")]


@pytest.mark.parametrize(
    "content",
    ["a\x00b", "bell\x07", "del\x7f", "lone \udc80 surrogate", "x" * (1024 * 1024 + 1)],
    ids=["nul", "c0", "del", "invalid-utf8", "oversize"],
)
def test_content_that_is_not_text_or_too_large_is_refused_not_truncated(
    make_app, content: str
) -> None:
    app, root = make_app(EMPTY)
    with pytest.raises(ValidationError):
        _cap(app, content=content)
    assert _files(root) == {}


def test_a_read_only_collection_refuses_writes(make_app) -> None:
    app, root = make_app({"a.md": "# A\n"})
    config = app.config
    config.collections[0].extra["readOnly"] = True
    app.save_config(config)
    with pytest.raises(ReadOnlyError) as caught:
        _cap(app, content="nope")
    assert caught.value.http_status == 409 and caught.value.code == "READ_ONLY"
    assert _files(root) == {"a.md": b"# A\n"}


def test_a_file_the_collection_does_not_index_is_refused_before_writing(make_app) -> None:
    app, root = make_app({"a.md": "# A\n"}, include=[".md"])
    with pytest.raises(InvalidPathError):
        _cap(app, path="data.csv", content="a,b")
    assert _files(root) == {"a.md": b"# A\n"}


def test_capture_waits_for_the_writer_lease_another_process_holds(make_app) -> None:
    app, root = make_app(EMPTY)
    lease = write_lease_path(app.paths)
    lease.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import fcntl,sys,os;f=os.open({str(lease)!r},os.O_RDWR|os.O_CREAT);"
            "fcntl.flock(f,fcntl.LOCK_EX);print('held',flush=True);sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    outcome: list[object] = []
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        worker = threading.Thread(
            target=lambda: outcome.append(_cap(App(app.paths), path="w.md", content="waited"))
        )
        worker.start()
        worker.join(timeout=1.0)
        assert worker.is_alive() and not (root / "w.md").exists()  # still waiting its turn
    finally:
        holder.communicate("", timeout=10)
    worker.join(timeout=60)
    assert not worker.is_alive() and (root / "w.md").exists()
    assert not isinstance(outcome[0], GnoError)


def test_a_failed_write_leaves_no_temp_file_and_the_index_unchanged(make_app) -> None:
    app, root = make_app({"a.md": "# A\n"})
    docs_before = app.store().totals()
    with pytest.raises(GnoError) as caught:  # a file stands where the folder would go
        _cap(app, path="a.md/blocked.md", content="cannot land")
    assert caught.value.code == "INVALID_PATH" and "'a.md': it is a file" in caught.value.message
    assert not [p for p in root.rglob(f"{TEMP_PREFIX}*")]
    assert _files(root) == {"a.md": b"# A\n"}
    assert app.store().totals() == docs_before


@given(
    st.one_of(
        st.text(max_size=400),
        st.sampled_from(["CON", "nul", "Com1", "aux.txt", "LPT9 ", "..", "#"]),
    )
)
def test_any_title_becomes_a_safe_file_name(title: str) -> None:
    from gno.core.note_files import file_name_for_title
    from gno.core.write_paths import check_segment

    name = file_name_for_title(title)
    assert name.endswith(".md") and "/" not in name
    assert check_segment(name) == name  # never a name the path rules refuse


def test_text_whose_note_was_deleted_since_the_last_sync_is_written_again(make_app) -> None:
    """The same text captured again after its note was deleted outside gno (the index still
    lists it): nothing is there to open, so the note is written — never dropped with a
    CAPTURE_SYNC_FAILED that says it was written."""
    app, _ = make_app(EMPTY)
    first = _cap(app, content="Buy oat milk")
    Path(first.absPath).unlink()  # by hand, no sync since
    again = _cap(app, content="Buy oat milk")
    assert again.created and again.collisionPolicyResult.value == "created"
    assert b"Buy oat milk" in Path(again.absPath).read_bytes()
    assert [h.uri for h in search(app, "oat milk").results] == [again.uri]
