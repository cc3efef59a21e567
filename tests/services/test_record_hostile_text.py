"""Text in a record that is valid in its container but no UTF-8 text, or not text a
reader sees: a lone UTF-16 surrogate (JSON's ``"\\ud800"``, or its CESU bytes in a
``.jsonl``), a NUL or another control character. Each message is kept and searchable, and
the messages after it are read. Real files, a real index."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import search, sync

KEEP = {"keep.md": "# Keep\n\nkeepword\n"}


def errors_of(result: Any) -> dict[str, tuple[str, str]]:
    return {e.relPath: (e.code, e.message) for c in result.collections for e in c.errors}


def test_a_lone_surrogate_does_not_stop_the_chat_import(make_app):
    """The surrogate was encoded as UTF-8 for the record's key and hash: UnicodeEncodeError
    ended the import there ("Unreadable container"), and the messages after it were lost."""
    app, root = make_app(KEEP)
    lines = [
        '{"id": "1", "text": "first quokka"}',
        '{"id": "2", "text": "second quokka \\udc00", "author": "\\ud800x"}',
        '{"id": "\\udfff", "text": "third quokka"}',
        '{"id": "4", "text": "pair quokka \\ud83d\\ude00"}',
    ]
    (root / "chat.jsonl").write_text("\n".join(lines) + "\n")
    (root / "cesu.jsonl").write_bytes(
        b'{"id": "1", "text": "cesu quokka \xed\xa0\x80"}\n{"id": "2", "text": "after quokka"}\n'
    )
    result = sync(app)
    assert errors_of(result) == {}
    hits = search(app, "quokka", limit=20).results
    texts = " ".join(h.snippet for h in hits)
    assert len(hits) == 6
    assert "\ufffd" in texts and "\U0001f600" in texts  # a pair is still one character


def test_a_nul_or_control_character_keeps_the_record(make_app):
    """A NUL in a message (``"\\u0000"``) or a mail body made the record's Markdown look
    binary to the converter: the record was refused ("Binary content in a text file")."""
    app, root = make_app(KEEP)
    messages = [
        {"id": "1", "text": "nul\u0000wallaby"},
        {"id": "2", "text": "escape \u001b[31m wallaby \u007f bell\u0007"},
    ]
    (root / "chat.json").write_text(json.dumps(messages))
    (root / "m.mbox").write_bytes(
        b"From a@b Mon Jan  1 00:00:00 2024\nFrom: a@b\nSubject: nul mail\n"
        b"Message-ID: <x1@y>\n\nhello\0 mailwallaby\n"
    )
    result = sync(app)
    assert errors_of(result) == {}
    hits = search(app, "wallaby", limit=10).results + search(app, "mailwallaby").results
    assert len(hits) == 3
    for hit in hits:
        assert not any(ord(c) < 0x20 and c not in "\t\n" for c in hit.snippet)


def test_a_lone_carriage_return_cannot_start_markdown(make_app):
    """Markdown ends a line at a lone CR: a ``---`` or ``1.`` after it was not escaped."""
    from gno.core.records import Record, markdown

    record = Record("x", "t", (), "a\r---\r1. b\r\n+ c", "line:1", ())
    body = markdown(record).split("\n\n", 1)[1].strip("\n")
    assert "\r" not in body
    assert body.splitlines() == ["a", "\\---", "1\\. b", "\\+ c"]


def test_a_container_whose_name_is_not_utf8_is_reported_not_fatal(make_app):
    """Its records' folder is a hash of its name: encoding the name raised
    UnicodeEncodeError and the whole sync failed ("Internal error"). Now it is an
    INVALID_NAME like any such file, and the rest is indexed."""
    import os

    app, root = make_app(KEEP)
    with open(os.fsencode(root) + b"/bad\xff\xfe.jsonl", "wb") as bad:
        bad.write(b'{"id": 1, "text": "badname echidna"}\n')
    (root / "good.jsonl").write_text('{"id": 1, "text": "good echidna"}\n')
    result = sync(app)
    assert errors_of(result) == {
        "bad\\xff\\xfe.jsonl": (
            "INVALID_NAME",
            "File name is not valid UTF-8; rename it to index it",
        )
    }
    assert len(search(app, "echidna").results) == 1
    assert search(app, "keepword").results


def test_an_id_that_is_another_ids_suffixed_key_overwrites_nothing(make_app):
    """Two messages with id ``dup`` made the second ``dup#2``: a third message whose own id
    is ``dup#2`` got the same record key, and one of them overwrote the other (the report
    still said three added)."""
    app, root = make_app(KEEP)
    lines = [
        {"id": "dup#2", "text": "alpha gecko"},
        {"id": "dup", "text": "beta gecko"},
        {"id": "dup", "text": "gamma gecko"},
        {"id": "dup", "text": "delta gecko"},
        {"id": "dup#3", "text": "epsilon gecko"},
    ]
    (root / "chat.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = sync(app)
    assert errors_of(result) == {}
    hits = search(app, "gecko", limit=10).results
    assert len({h.uri for h in hits}) == 5
    words = {h.snippet.split()[-2] for h in hits}
    assert words == {"alpha", "beta", "gamma", "delta", "epsilon"}


def test_deactivating_a_record_says_what_the_next_sync_does(make_app):
    """The warning said the next sync indexes the document again, as it does a file; an
    unchanged export is not read again, so the record stayed out. The warning now says
    when it comes back, and it does."""
    from gno_contracts.models.doc_ref_input import DocRefInput

    from gno.services import doc_writes

    app, root = make_app(KEEP)
    export = root / "chat.jsonl"
    export.write_text('{"id": 1, "text": "first tapir"}\n{"id": 2, "text": "second tapir"}\n')
    sync(app)
    first = next(h for h in search(app, "tapir").results if "first" in h.snippet)
    gone = doc_writes.deactivate(app, DocRefInput(id=first.uri))
    assert gone.warning is not None and "until that file changes" in gone.warning
    sync(app)
    assert first.uri not in [h.uri for h in search(app, "tapir").results]
    with export.open("a") as more:
        more.write('{"id": 3, "text": "third tapir"}\n')
    sync(app)
    assert first.uri in [h.uri for h in search(app, "tapir").results]


def test_a_capture_never_writes_a_note_into_an_export_or_a_pdf(make_app):
    """A capture is a Markdown note: to a new ``.jsonl`` it was written and then failed to
    index as a chat export (CAPTURE_SYNC_FAILED, the file left behind); over an existing
    export (MCP's ``overwrite``) it replaced the export with the note."""
    from gno_contracts.models.capture_input import CaptureInput

    from gno.errors import InvalidPathError
    from gno.services.capture import capture

    app, root = make_app(KEEP)
    export = root / "chat.jsonl"
    export.write_text('{"id": 1, "text": "kept tapir"}\n')
    sync(app)
    for path, overwrite in (("chat.jsonl", True), ("new.JSONL", False), ("a/b.pdf", False)):
        inp = CaptureInput(collection="notes", path=path, content="a note", overwrite=overwrite)
        try:
            capture(app, inp)
        except InvalidPathError as exc:
            assert "is not a note" in exc.message
        else:
            raise AssertionError(f"captured to {path}")
    assert export.read_text() == '{"id": 1, "text": "kept tapir"}\n'
    assert sorted(p.name for p in root.iterdir()) == ["chat.jsonl", "keep.md"]
    assert capture(app, CaptureInput(collection="notes", path="n.md", content="x")).created
